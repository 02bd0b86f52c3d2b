package llm_test

import (
	"errors"

	"encoding/json"
	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
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
	return s.requestAt(-1)
}

// requestAt decodes the body of request i (from 0; -1 is the latest) as
// generic JSON.
func (s *chatServer) requestAt(i int) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 {
		i += len(s.bodies)
	}
	if i < 0 || i >= len(s.bodies) {
		s.t.Fatalf("no request %d: %d were made", i, len(s.bodies))
	}
	var m map[string]any
	if err := json.Unmarshal(s.bodies[i], &m); err != nil {
		s.t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

// messagesAt returns the messages of request i as role and content pairs.
func (s *chatServer) messagesAt(i int) [][2]string {
	s.t.Helper()
	var out [][2]string
	for _, m := range s.requestAt(i)["messages"].([]any) {
		msg := m.(map[string]any)
		content, _ := msg["content"].(string)
		out = append(out, [2]string{msg["role"].(string), content})
	}
	return out
}

// replies starts a server that answers request n with contents[n], and every
// later request with the last of them.
func replies(t testing.TB, contents ...string) (*chatServer, *openai.Client) {
	return newChatServer(t, func(n int) (int, string) {
		return http.StatusOK, completion(contents[min(n, len(contents)-1)])
	})
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

func errorsIsInternal(err error) bool { return errors.Is(err, reflection.ErrInternal) }

func errorsIsLimit(err error) bool { return errors.Is(err, llm.ErrLimitExceeded) }
