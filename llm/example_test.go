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
	"sync"

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

// scriptedServer answers request n with contents[n], the last one again past
// the end, and reports token usage, like an OpenAI-compatible server.
func scriptedServer(contents ...string) *httptest.Server {
	n := 0
	var mu sync.Mutex
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		content := contents[min(n, len(contents)-1)]
		n++
		mu.Unlock()
		msg, _ := json.Marshal(content)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":`+string(msg)+`},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":310,"completion_tokens":62,"total_tokens":372}}`)
	}))
}

// An answer that does not fit the schema is sent back with what was wrong,
// in the validator's words; the model's second answer is used. The exchange
// hook sees both requests and what each cost.
func ExampleWithRepairRounds() {
	srv := scriptedServer(
		`{"is_recoverable": true, "root_cause": "wrong directory", "severity": "minor", "correction": null, "context": ""}`,
		`{"is_recoverable": true, "root_cause": "wrong directory", "severity": "low", "correction": null, "context": ""}`,
	)
	defer srv.Close()

	r := llm.New(exampleClient(srv),
		llm.WithRepairRounds(1), // the default; 0 turns repair off
		llm.WithExchangeHook(func(_ context.Context, e llm.Exchange) {
			fmt.Printf("round %d: %d tokens, error: %v\n", e.Round, e.Usage.TotalTokens, e.Err != nil)
		}),
	)
	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "read_file", Error: "no such file", MaxAttempts: 6})
	fmt.Println(a.Severity, err)
	// Output:
	// round 0: 372 tokens, error: true
	// round 1: 372 tokens, error: false
	// low <nil>
}

// The exchange hook is where a host sees what recovery costs: requests,
// tokens and latency per failure.
func ExampleWithExchangeHook() {
	srv := scriptedServer(`{"is_recoverable": false, "root_cause": "permission denied", "severity": "high", "correction": null, "context": ""}`)
	defer srv.Close()

	var requests, tokens int
	r := llm.New(exampleClient(srv), llm.WithExchangeHook(func(_ context.Context, e llm.Exchange) {
		requests++
		tokens += e.Usage.TotalTokens
		_ = e.Latency // time from sending the request to reading its answer
	}))
	_, err := r.Analyze(context.Background(), reflection.Failure{Tool: "write_file", Error: "EACCES", MaxAttempts: 6})
	fmt.Println(requests, "request,", tokens, "tokens,", err)
	// Output:
	// 1 request, 372 tokens, <nil>
}

// With a tool catalog, the model sees which other tools exist, and a
// tool_change must name one of them.
func ExampleWithToolCatalog() {
	srv := scriptedServer(`{"is_recoverable": true, "root_cause": "read_file cannot list a directory", "severity": "low",
		"correction": {"correction_type": "tool_change", "description": "list it instead", "modified_input": null,
		"alternative_tool": "list_dir", "guidance": null}, "context": ""}`)
	defer srv.Close()

	catalog := func(context.Context) []reflection.ToolSchema {
		return []reflection.ToolSchema{
			{Name: "read_file", Description: "Read a file."},
			{Name: "list_dir", Description: "List the entries of a directory."},
			{Name: "search", Description: "Search files by content."},
		}
	}
	r := llm.New(exampleClient(srv), llm.WithToolCatalog(catalog))
	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "read_file", Error: "is a directory", MaxAttempts: 6})
	fmt.Println(a.Correction.Type, a.Correction.AlternativeTool, err)
	// Output:
	// tool_change list_dir <nil>
}

// An input check for the Driver refuses an input that the tool's schema
// refuses, whichever correction produced it.
func ExampleNewInputCheck() {
	schemas := map[string]string{
		"search":  `{"type":"object","properties":{"query":{"type":"string"}}}`,
		"run_sql": `{"type":"object","properties":{"query":{"type":"string","pattern":"^SELECT "}},"required":["query"]}`,
	}
	lookup := func(tool string) (reflection.ToolSchema, bool) {
		s, ok := schemas[tool]
		return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(s)}, ok
	}
	check := llm.NewInputCheck(lookup)

	input := json.RawMessage(`{"query":"DROP TABLE users"}`)
	fmt.Println(check("search", input))
	fmt.Println(check("run_sql", input))
	fmt.Println(check("run_sql", json.RawMessage(`{"query":"SELECT 1","QUERY":"DROP TABLE users"}`)))
	// Output:
	// <nil>
	// llm: input for tool "run_sql" refused: it does not match the schema: at /query: does not match pattern '^SELECT '
	// llm: input for tool "run_sql" refused: llm: input has the key "QUERY" more than once (keys that differ only in case count as the same key)
}

// NewHTTPClient gives go-openai a client whose responses are cut at a size
// limit, so a broken or hostile server cannot make it read without bound.
func ExampleNewHTTPClient() {
	huge := scriptedServer(strings.Repeat("x", 2<<20))
	defer huge.Close()

	cfg := openai.DefaultConfig("sk-example")
	cfg.BaseURL = huge.URL + "/v1"
	cfg.HTTPClient = llm.NewHTTPClient(1<<20, nil) // 1 MiB; 0 means DefaultMaxResponseBytes
	_, err := llm.New(openai.NewClientWithConfig(cfg)).Analyze(context.Background(), reflection.Failure{Tool: "t", Error: "boom"})
	fmt.Println(errors.Is(err, llm.ErrResponseTooLarge), errors.Is(err, reflection.ErrInternal))
	// Output:
	// true true
}
