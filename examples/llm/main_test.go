package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

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

// chatRequest is the part of a chat-completions request the test reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// TestRunAgainstLocalServer points the program at a fake OpenAI-compatible
// server, with a base URL and no key, as for Ollama. Its first answer is
// unusable, so the Reflector repairs it; the program prints what each
// analysis cost.
func TestRunAgainstLocalServer(t *testing.T) {
	var mu sync.Mutex
	var requests []chatRequest
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var req chatRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		requests = append(requests, req)
		auth = r.Header.Get("Authorization")
		answer := `{"is_recoverable":true,"root_cause":"wrong directory","severity":"low","correction":` +
			`{"correction_type":"input_fix","description":"use docs/","modified_input":"{\"path\":\"docs/release-notes.md\"}",` +
			`"alternative_tool":null,"guidance":null},"context":""}`
		if len(requests) == 1 {
			answer = `The file is in docs/, try that.`
		}
		content, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":`+string(content)+`},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":300,"completion_tokens":40,"total_tokens":340}}`)
	}))
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-format", "json_object"},
		env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_MODEL": "llama3.2"}), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d; stdout %q; stderr %q", code, stdout.String(), stderr.String())
	}
	if len(requests) != 2 || requests[0].Model != "llama3.2" || auth != "Bearer "+localKey {
		t.Fatalf("%d requests, model %q, auth %q", len(requests), requests[0].Model, auth)
	}
	user := requests[0].Messages[1].Content
	if !strings.Contains(user, "\n\nOther tools you may name as alternative_tool in a tool_change:\n- list_dir: List the files of a directory of the project.") ||
		strings.Contains(user, "- read_file") {
		t.Errorf("the catalog in the user message is wrong:\n%s", user)
	}
	if n := len(requests[1].Messages); n != 4 {
		t.Errorf("the repair request has %d messages, want 4", n)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^call 1: read_file \{"path": "doc/release-notes.md"\} -> error: open doc/release-notes.md: no such file`),
		regexp.MustCompile(`^analysis of call 1 \(read_file\): 2 request\(s\), 680 tokens, [0-9.]+(ms|s|µs)?$`),
		regexp.MustCompile(`^call 2: read_file \{"path":"docs/release-notes.md"\} -> ok$`),
		regexp.MustCompile(`^recovered after 2 call\(s\):$`),
	}
	if len(lines) < len(want) {
		t.Fatalf("stdout has %d lines:\n%s", len(lines), stdout.String())
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d = %q, want it to match %s", i+1, lines[i], re)
		}
	}
}
