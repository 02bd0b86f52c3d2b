package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

// exampleServer stands in for an OpenAI-compatible server: every request is
// answered with content as the assistant's message, or with an error status.
func exampleServer(status int, content string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, `{"error":{"message":"`+content+`","type":"server_error"}}`)
			return
		}
		msg, _ := json.Marshal(content)
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
			"choices":[{"index":0,"message":{"role":"assistant","content":`+string(msg)+`},"finish_reason":"stop"}]}`)
	}))
}

func exampleClient(srv *httptest.Server) *openai.Client {
	cfg := openai.DefaultConfig("sk-example")
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = srv.Client()
	return openai.NewClientWithConfig(cfg)
}

func Example() {
	srv := exampleServer(http.StatusOK, `{
		"is_recoverable": true,
		"root_cause": "the file lives under docs/, not doc/",
		"severity": "low",
		"correction": {
			"correction_type": "input_fix",
			"description": "point at the existing file",
			"modified_input": "{\"path\": \"docs/notes.md\"}",
			"alternative_tool": null,
			"guidance": null
		},
		"context": ""
	}`)
	defer srv.Close()

	r := llm.New(exampleClient(srv), llm.WithModel(openai.GPT4oMini))
	a, err := r.Analyze(context.Background(), reflection.Failure{
		Error:       "open doc/notes.md: no such file or directory",
		Tool:        "read_file",
		Input:       json.RawMessage(`{"path": "doc/notes.md"}`),
		Schema:      &reflection.ToolSchema{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","required":["path"]}`)},
		MaxAttempts: 6,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.IsRecoverable, a.Severity, a.RootCause)
	fmt.Println(a.Correction.Type, string(a.Correction.ModifiedInput))
	// Output:
	// true low the file lives under docs/, not doc/
	// input_fix {"path":"docs/notes.md"}
}

// A broken answer, like any other failure, is an error that wraps
// reflection.ErrInternal; a Driver then gives up on the call softly.
func Example_errors() {
	srv := exampleServer(http.StatusOK, "I am not sure what went wrong.")
	defer srv.Close()

	_, err := llm.New(exampleClient(srv)).Analyze(context.Background(), reflection.Failure{Tool: "t", Error: "boom"})
	fmt.Println(errors.Is(err, reflection.ErrInternal))

	down := exampleServer(http.StatusServiceUnavailable, "overloaded")
	defer down.Close()
	_, err = llm.New(exampleClient(down)).Analyze(context.Background(), reflection.Failure{Tool: "t", Error: "boom"})
	var apiErr *openai.APIError
	fmt.Println(errors.Is(err, reflection.ErrInternal), errors.As(err, &apiErr), apiErr.HTTPStatusCode)
	// Output:
	// true
	// true true 503
}

// Servers without json_schema support get the schema in the system prompt;
// the answer is checked the same way, and a fenced block is accepted.
func ExampleWithResponseFormat() {
	srv := exampleServer(http.StatusOK, "```json\n"+
		`{"is_recoverable": false, "root_cause": "permission denied", "severity": "high", "correction": null, "context": ""}`+
		"\n```")
	defer srv.Close()

	r := llm.New(exampleClient(srv), llm.WithModel("llama3.2"), llm.WithResponseFormat(llm.ResponseFormatJSONObject))
	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "write_file", Error: "EACCES"})
	fmt.Println(a.IsRecoverable, a.Severity, a.Correction == nil, err)
	// Output:
	// false high true <nil>
}

// The redactor runs on the error text, the input and the task before the
// request leaves the process; long text is then cut with a visible marker.
func ExampleWithRedactor() {
	sent := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		sent <- req.Messages[1].Content
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":`+
			`"{\"is_recoverable\":false,\"root_cause\":\"bad password\",\"severity\":\"medium\",\"correction\":null,\"context\":\"\"}"}}]}`)
	}))
	defer srv.Close()

	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[secret]") }
	r := llm.New(exampleClient(srv), llm.WithRedactor(redact), llm.WithMaxErrorBytes(32))
	_, err := r.Analyze(context.Background(), reflection.Failure{
		Tool:        "login",
		Input:       json.RawMessage(`{"user": "ada", "password": "hunter2"}`),
		Error:       "login failed for ada with password hunter2: account locked after 3 attempts",
		Task:        "open the admin panel",
		MaxAttempts: 6,
	})
	fmt.Println(err)
	fmt.Println(<-sent)
	// Output:
	// <nil>
	// Tool: login
	// Input: {"user":"ada","password":"[secret]"}
	// Error: login failed for ada with passwo…[truncated 44 bytes]
	// Task: open the admin panel
	// Attempt: 1 of 6
}

func ExampleUserMessage() {
	fmt.Println(llm.UserMessage(reflection.Failure{
		Error:       "missing required property: path",
		Tool:        "read_file",
		Input:       json.RawMessage(`{ "file": "notes.md" }`),
		Schema:      &reflection.ToolSchema{Name: "read_file", InputSchema: json.RawMessage(`{"type": "object", "required": ["path"]}`)},
		Task:        "summarise the notes",
		Attempt:     1,
		MaxAttempts: 6,
	}))
	// Output:
	// Tool: read_file
	// Input: {"file":"notes.md"}
	// Schema: {"type":"object","required":["path"]}
	// Error: missing required property: path
	// Task: summarise the notes
	// Attempt: 2 of 6
}
