package reflectionopenai_test

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
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/loopctl-go/reflection/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// exampleMessage stands for the assistant message of a completion: the model
// asks for a file under a wrong path and runs an SQL query with a typo.
func exampleMessage() openai.ChatCompletionMessage {
	var c openai.ChatCompletion
	_ = json.Unmarshal([]byte(`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"doc/notes.md\"}"}},
		{"id":"call_2","type":"custom","custom":{"name":"run_sql","input":"SELEC count(*) FROM notes"}}
	]}}]}`), &c)
	return c.Choices[0].Message
}

// exampleDispatch runs one tool call: the host's own tools.
func exampleDispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	switch call.Name {
	case "read_file":
		var in struct{ Path string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return reflection.ToolResult{}, err
		}
		if in.Path != "docs/notes.md" {
			return reflection.ToolResult{ID: call.ID, Content: "open " + in.Path + ": no such file or directory", IsError: true}, nil
		}
		return reflection.ToolResult{ID: call.ID, Content: "ship on friday"}, nil
	case "run_sql":
		query, err := reflection.InputText(call.Input)
		if err != nil {
			return reflection.ToolResult{}, err
		}
		if !strings.HasPrefix(query, "SELECT") {
			return reflection.ToolResult{ID: call.ID, Content: "syntax error at or near " + strings.Fields(query)[0], IsError: true}, nil
		}
		return reflection.ToolResult{ID: call.ID, Content: "42"}, nil
	}
	return reflection.ToolResult{}, fmt.Errorf("unknown tool %q", call.Name)
}

// A Runner answers every tool call of a turn, after the Driver recovered it.
// The Reflector here is a plain function; in production it is the llm
// Reflector (see ExampleNewClient).
func ExampleNewRunner() {
	reflector := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		fixed := map[string]string{
			"read_file": `{"path":"docs/notes.md"}`,
			"run_sql":   `{"input":"SELECT count(*) FROM notes"}`,
		}[f.Tool]
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow,
			Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(fixed)},
		}, nil
	})
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
	)
	runner := reflectionopenai.NewRunner(driver, exampleDispatch, reflectionopenai.WithConcurrency(2))

	msgs, err := runner.Run(context.Background(), exampleMessage())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Println(m.OfTool.ToolCallID, m.OfTool.Content.OfString.Value)
	}
	// Output:
	// call_1 ship on friday
	// call_2 42
}

// Schemas builds the SchemaLookup of a Driver from the request's tools, once;
// a custom tool gets a generated schema for its {"input": "..."} object.
func ExampleSchemas() {
	tools := []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:       "read_file",
			Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}},
		}),
		openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{Name: "run_sql"}),
	}
	lookup, err := reflectionopenai.Schemas(tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"read_file", "run_sql", "write_file"} {
		s, ok := lookup(name)
		fmt.Println(name, ok, string(s.InputSchema))
	}
	// Output:
	// read_file true {"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}
	// run_sql true {"type":"object","properties":{"input":{"type":"string","description":"The free-text input of the tool."}},"required":["input"],"additionalProperties":false}
	// write_file false
}

// ToolCall translates a model's tool call into the call a Driver runs; a
// custom tool's free text becomes the root's {"input": "<text>"}, which
// reflection.InputText reads back.
func ExampleToolCall() {
	call, _ := reflectionopenai.ToolCall(exampleMessage().ToolCalls[1])
	fmt.Println(call.Name, string(call.Input))
	query, err := reflection.InputText(call.Input)
	fmt.Println(query, err)
	// Output:
	// run_sql {"input":"SELEC count(*) FROM notes"}
	// SELEC count(*) FROM notes <nil>
}

// NewClient lets the llm Reflector use the agent's openai-go client: one key,
// one base URL, one HTTP client for both. The server here stands in for the
// API.
func ExampleNewClient() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		answer, _ := json.Marshal(`{"is_recoverable":true,"root_cause":"the file is under docs/","severity":"low",` +
			`"correction":{"correction_type":"input_fix","description":"fix the path","modified_input":"{\"path\":\"docs/notes.md\"}",` +
			`"alternative_tool":null,"guidance":null},"context":""}`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,`+
			`"finish_reason":"stop","message":{"role":"assistant","content":`+string(answer)+`}}]}`)
	}))
	defer srv.Close()

	client := openai.NewClient(option.WithAPIKey("sk-example"), option.WithBaseURL(srv.URL+"/v1/"), option.WithHTTPClient(srv.Client()))
	reflector := llm.New(reflectionopenai.NewClient(&client))
	a, err := reflector.Analyze(context.Background(), reflection.Failure{
		Tool:        "read_file",
		Input:       json.RawMessage(`{"path":"doc/notes.md"}`),
		Error:       "open doc/notes.md: no such file or directory",
		MaxAttempts: 6,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.RootCause)
	fmt.Println(a.Correction.Type, string(a.Correction.ModifiedInput))
	// Output:
	// the file is under docs/
	// input_fix {"path":"docs/notes.md"}
}

// An API error keeps its openai-go type through the Client and the llm
// Reflector, which wraps it in reflection.ErrInternal.
func ExampleClient_CreateChatCompletion_errors() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`)
	}))
	defer srv.Close()

	client := openai.NewClient(option.WithAPIKey("sk-example"), option.WithBaseURL(srv.URL+"/v1/"),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	_, err := llm.New(reflectionopenai.NewClient(&client)).Analyze(context.Background(), reflection.Failure{Tool: "t", Error: "boom"})
	var apiErr *openai.Error
	fmt.Println(errors.Is(err, reflection.ErrInternal), errors.As(err, &apiErr))
	fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message)
	// Output:
	// true true
	// 429 rate_limit_exceeded slow down
}
