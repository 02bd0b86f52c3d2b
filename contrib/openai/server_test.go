package reflectionopenai_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// chatServer is an httptest server that speaks the chat-completions wire
// format: it records every request body and answers with what reply says.
type chatServer struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	reply  func(n int, req map[string]any) (status int, body string) // n counts requests from 0
}

// newChatServer starts a chat-completions server and returns it with a real
// openai-go client pointed at it, which never retries (so no test waits).
func newChatServer(t testing.TB, reply func(n int, req map[string]any) (int, string)) (*chatServer, *openai.Client) {
	t.Helper()
	s := &chatServer{t: t, reply: reply}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	client := openai.NewClient(
		option.WithAPIKey("test-key"),
		option.WithBaseURL(s.srv.URL+"/v1/"),
		option.WithHTTPClient(s.srv.Client()),
		option.WithMaxRetries(0),
	)
	return s, &client
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, apiError("no route "+r.URL.Path, "invalid_request_error", "not_found"))
		return
	}
	if r.Header.Get("Authorization") != "Bearer test-key" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, apiError("bad key", "invalid_request_error", "invalid_api_key"))
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, apiError("body is not JSON: "+err.Error(), "invalid_request_error", "bad_json"))
		return
	}
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, req)
	s.mu.Unlock()
	status, body := s.reply(n, req)
	w.Header().Set("X-Request-Id", "req_test")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// requests returns every request body received so far, in order.
func (s *chatServer) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// last returns the latest request body.
func (s *chatServer) last() map[string]any {
	s.t.Helper()
	reqs := s.requests()
	if len(reqs) == 0 {
		s.t.Fatal("no request was made")
	}
	return reqs[len(reqs)-1]
}

// completionJSON is a chat.completion answer whose one choice holds msg.
func completionJSON(msg map[string]any, finish string) string {
	b, err := json.Marshal(map[string]any{
		"id":                 "chatcmpl-test",
		"object":             "chat.completion",
		"created":            1700000000,
		"model":              "gpt-4o-mini-2024-07-18",
		"system_fingerprint": "fp_test",
		"service_tier":       "default",
		"choices":            []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens": 200, "completion_tokens": 50, "total_tokens": 250,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 128, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 16, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
		},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// textAnswer is a chat.completion answer whose one choice says content.
func textAnswer(content string) string {
	return completionJSON(map[string]any{"role": "assistant", "content": content, "refusal": nil}, "stop")
}

// toolCallsAnswer is a chat.completion answer whose one choice calls tools.
func toolCallsAnswer(calls ...map[string]any) string {
	return completionJSON(map[string]any{"role": "assistant", "content": nil, "refusal": nil, "tool_calls": calls}, "tool_calls")
}

// functionCall is one function tool call as the API writes it.
func functionCall(id, name, args string) map[string]any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

// customCall is one custom tool call as the API writes it.
func customCall(id, name, input string) map[string]any {
	return map[string]any{"id": id, "type": "custom", "custom": map[string]any{"name": name, "input": input}}
}

// apiError is an OpenAI error body.
func apiError(msg, typ, code string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
	return string(b)
}

// analysisJSON is the JSON text of a well-formed failure analysis; correction
// nil stands for JSON null.
func analysisJSON(recoverable bool, correction map[string]any) string {
	var c any
	if correction != nil {
		c = correction
	}
	b, err := json.Marshal(map[string]any{
		"is_recoverable": recoverable,
		"root_cause":     "the input is wrong",
		"severity":       "low",
		"correction":     c,
		"context":        "",
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// inputFix is a correction object proposing modified as the new input.
func inputFix(modified string) map[string]any {
	return map[string]any{
		"correction_type":  "input_fix",
		"description":      "use the corrected input",
		"modified_input":   modified,
		"alternative_tool": nil,
		"guidance":         nil,
	}
}

// isReflectorRequest reports whether req is the llm Reflector's request (it
// asks for the failure_analysis schema) rather than the agent's.
func isReflectorRequest(req map[string]any) bool {
	rf, _ := req["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	return js["name"] == "failure_analysis"
}

// assistantMessage decodes an assistant message the way openai-go does when
// it reads a completion, so unions carry their raw JSON.
func assistantMessage(t testing.TB, calls ...map[string]any) openai.ChatCompletionMessage {
	t.Helper()
	var c openai.ChatCompletion
	if err := json.Unmarshal([]byte(toolCallsAnswer(calls...)), &c); err != nil {
		t.Fatal(err)
	}
	return c.Choices[0].Message
}
