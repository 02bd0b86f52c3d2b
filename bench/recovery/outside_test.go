package recovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

// TestOutsideModel runs the llm package's Reflector, through Outside,
// against an OpenAI-compatible server in this process that calls every
// failure recoverable: the model's configurations run, their HTTP traffic
// happens outside the bubbles, and the answers reach the Driver.
func TestOutsideModel(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		answer := `{"is_recoverable":true,"root_cause":"the service is briefly unavailable","severity":"low","correction":null,"context":"retry"}`
		json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: "chatcmpl-1", Object: "chat.completion", Model: "test",
			Choices: []openai.ChatCompletionChoice{{
				Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answer},
				FinishReason: openai.FinishReasonStop,
			}},
		})
	}))
	defer srv.Close()
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL + "/v1"
	proxy, stop := Outside(llm.New(openai.NewClientWithConfig(cfg)), 2, 10*time.Second)
	defer stop()

	path := t.TempDir() + "/s.jsonl"
	line := `{"id": "m-1", "class": "transient", "tools": [{"name": "get_weather", "effect": "read_only"}], "call": {"name": "get_weather", "input": {"city": "Oslo"}}, "faults": [{"error": "503 Service Unavailable", "status": 503}], "result": "Oslo: 4°C", "right": "succeed"}`
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t, s, Options{Reflector: proxy, Name: "llm", Configs: []string{"llm", "llm_safe"}, Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.WriteTables(&b)
	for _, want := range []string{"| llm | 100.0 %", "| llm_safe | 100.0 %"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, b.String())
		}
	}
	// One analysis per configuration and seed.
	if n := requests.Load(); n != 4 {
		t.Errorf("the server was asked %d times, want 4", n)
	}
}
