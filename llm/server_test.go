package llm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// chatServer is an httptest server that speaks the chat-completions wire
// format. It records every request body and answers with the next reply.
type chatServer struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	reply  func(n int) (status int, body string) // n counts requests from 0
}

// newChatServer starts a server that answers every request with reply and
// returns it with a real go-openai client pointed at it.
func newChatServer(t testing.TB, reply func(n int) (int, string)) (*chatServer, *openai.Client) {
	t.Helper()
	s := &chatServer{t: t, reply: reply}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = s.srv.URL + "/v1"
	cfg.HTTPClient = s.srv.Client()
	return s, openai.NewClientWithConfig(cfg)
}

// answering starts a server that answers every request with the assistant
// message content.
func answering(t testing.TB, content string) (*chatServer, *openai.Client) {
	return newChatServer(t, func(int) (int, string) { return http.StatusOK, completion(content) })
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	status, out := s.reply(n)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, out)
}

// requests returns the number of requests served.
func (s *chatServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// lastRequest decodes the body of the latest request as generic JSON.
func (s *chatServer) lastRequest() map[string]any {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		s.t.Fatal("no request was made")
	}
	var m map[string]any
	if err := json.Unmarshal(s.bodies[len(s.bodies)-1], &m); err != nil {
		s.t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

// completion is a chat.completion response whose one choice says content.
func completion(content string) string {
	return message(map[string]any{"role": "assistant", "content": content, "refusal": nil}, "stop")
}

// refusal is a chat.completion response whose one choice is a refusal.
func refusal(text string) string {
	return message(map[string]any{"role": "assistant", "content": nil, "refusal": text}, "stop")
}

func message(msg map[string]any, finish string) string {
	b, err := json.Marshal(map[string]any{
		"id":      "chatcmpl-test",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   "gpt-4o-mini-2024-07-18",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 200, "completion_tokens": 50, "total_tokens": 250},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// apiError is an OpenAI error body.
func apiError(msg, typ string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	return string(b)
}

// answer is the JSON text of a well-formed analysis with the given correction
// (nil for JSON null).
func answer(recoverable bool, severity string, correction map[string]any) string {
	var c any
	if correction != nil {
		c = correction
	}
	b, err := json.Marshal(map[string]any{
		"is_recoverable": recoverable,
		"root_cause":     "the path does not exist",
		"severity":       severity,
		"correction":     c,
		"context":        "",
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// corr is a correction object with every key; optional values are nil unless given.
func corr(typ string, modifiedInput, alternativeTool, guidance any) map[string]any {
	return map[string]any{
		"correction_type":  typ,
		"description":      "fix it",
		"modified_input":   modifiedInput,
		"alternative_tool": alternativeTool,
		"guidance":         guidance,
	}
}
