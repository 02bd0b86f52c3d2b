package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRunWithoutConfigurationSaysWhatToSet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, env(nil), &stdout, &stderr)
	if code == 0 {
		t.Fatal("exit code 0 without a key or base URL")
	}
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not name %s", stderr.String(), want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestRunRejectsUnknownFormat(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-format", "yaml"}, env(map[string]string{"OPENAI_API_KEY": "k"}), &stdout, &stderr); code == 0 {
		t.Fatal("exit code 0 for an unknown format")
	}
}

// TestRunAgainstLocalServer points the program at a fake OpenAI-compatible
// server, with a base URL and no key, as for Ollama.
func TestRunAgainstLocalServer(t *testing.T) {
	var gotModel, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		gotModel, gotAuth = req.Model, r.Header.Get("Authorization")
		answer := `{"is_recoverable":true,"root_cause":"wrong directory","severity":"low","correction":` +
			`{"correction_type":"input_fix","description":"use docs/","modified_input":"{\"path\":\"docs/release-notes.md\"}",` +
			`"alternative_tool":null,"guidance":null},"context":""}`
		content, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":`+string(content)+`},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-format", "json_object"},
		env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_MODEL": "llama3.2"}), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d; stdout %q; stderr %q", code, stdout.String(), stderr.String())
	}
	if gotModel != "llama3.2" || gotAuth != "Bearer "+localKey {
		t.Errorf("model %q, auth %q", gotModel, gotAuth)
	}
	if !strings.Contains(stdout.String(), "recovered after 2 call(s)") {
		t.Errorf("stdout %q", stdout.String())
	}
}
