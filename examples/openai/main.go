// Command openai runs an agent loop on the official OpenAI Go SDK
// (github.com/openai/openai-go/v3) with every tool call recovered by a
// reflection.Driver, offline: a chat-completions server in the same process
// plays the model, for the agent and for the llm Reflector alike.
//
//	go run ./examples/openai
//
// The model asks for three tools at once. Each fails, and the llm Reflector,
// talking through the agent's own openai-go client, proposes the fix: a
// corrected path for a function tool, a corrected query for a custom
// (free-text) tool, and another tool for one that was removed. The model then
// gets the three recovered results as tool messages and answers.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/loopctl-go/reflection/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

func main() {
	// The real program waits between attempts (100ms, then 200ms, ...); its
	// test retries at once.
	if err := run(context.Background(), os.Stdout, reflection.NewExponentialBackoff(3)); err != nil {
		fmt.Fprintln(os.Stderr, "openai example:", err)
		os.Exit(1)
	}
}

// tools are the tools the agent declares to the model.
var tools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "read_file",
		Description: openai.String("Read a file of the project"),
		Parameters: shared.FunctionParameters{
			"type":                 "object",
			"properties":           map[string]any{"path": map[string]any{"type": "string"}},
			"required":             []string{"path"},
			"additionalProperties": false,
		},
	}),
	openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
		Name:        "run_sql",
		Description: openai.String("Run one read-only SQL query on the notes database"),
	}),
	openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "search",
		Description: openai.String("Search the docs"),
		Parameters: shared.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}},
			"required":   []string{"query"},
		},
	}),
}

// run is the program: the agent loop, printing what happens to out, with
// strategy deciding what follows a failure.
func run(ctx context.Context, out io.Writer, strategy reflection.RecoveryStrategy) error {
	model := httptest.NewServer(http.HandlerFunc(fakeModel))
	defer model.Close()
	client := openai.NewClient(
		option.WithAPIKey("sk-offline"),
		option.WithBaseURL(model.URL+"/v1/"),
		option.WithHTTPClient(model.Client()),
	)

	schemas, err := reflectionopenai.Schemas(tools)
	if err != nil {
		return err
	}
	driver := reflection.NewDriver(
		reflection.WithReflector(llm.New(reflectionopenai.NewClient(&client))), // the agent's client serves the Reflector too
		reflection.WithStrategy(strategy),
		reflection.WithSchemas(schemas),
		reflection.WithObserver(reflection.Observer{
			DispatchDone: func(_ context.Context, attempt int, res reflection.ToolResult, err error) {
				if res.IsError || err != nil {
					fmt.Fprintf(out, "    failed: %s\n", failureText(res, err))
				}
			},
			Corrected: func(_ context.Context, _ int, c reflection.Correction, applied bool, why string) {
				if applied {
					fmt.Fprintf(out, "    reflector: %s (%s)\n", c.Description, c.Type)
				} else {
					fmt.Fprintf(out, "    reflector's %s dropped: %s\n", c.Type, why)
				}
			},
		}),
	)
	runner := reflectionopenai.NewRunner(driver, func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		fmt.Fprintf(out, "  %s %s\n", call.Name, call.Input)
		return dispatch(ctx, call)
	})

	ctx = reflection.ContextWithTask(ctx, "report on the release")
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4oMini,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What ships in the release, how many notes are there, and what do the docs say about it?")},
		Tools:    tools,
	}
	for turn := 1; turn <= 5; turn++ {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return err
		}
		if len(completion.Choices) == 0 {
			return fmt.Errorf("turn %d: the model sent no choices", turn)
		}
		msg := completion.Choices[0].Message
		params.Messages = append(params.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			fmt.Fprintf(out, "model: %s\n", msg.Content)
			return nil
		}
		fmt.Fprintf(out, "model asks for %d tool calls\n", len(msg.ToolCalls))
		results, err := runner.Run(ctx, msg)
		if err != nil {
			return err
		}
		for _, r := range results {
			fmt.Fprintf(out, "tool message %s: %s\n", r.OfTool.ToolCallID, r.OfTool.Content.OfString.Value)
		}
		params.Messages = append(params.Messages, results...)
	}
	return fmt.Errorf("no answer after 5 turns")
}

// failureText is what the Reflector reads of a failed attempt: the error's
// text, or the failure result's content.
func failureText(res reflection.ToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	return res.Content
}

// dispatch is the host's own tools.
func dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	fail := func(format string, args ...any) (reflection.ToolResult, error) {
		return reflection.ToolResult{ID: call.ID, Content: fmt.Sprintf(format, args...), IsError: true}, nil
	}
	switch call.Name {
	case "read_file":
		var in struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return fail("read_file: %v", err)
		}
		if in.Path != "docs/release-notes.md" {
			return fail("open %s: no such file or directory (docs/ holds release-notes.md)", in.Path)
		}
		return reflection.ToolResult{ID: call.ID, Content: "v1.2 ships tool-call recovery for openai-go"}, nil
	case "run_sql":
		query, err := reflection.InputText(call.Input)
		if err != nil {
			return fail("%v", err)
		}
		if !strings.HasPrefix(query, "SELECT ") {
			return fail("syntax error at or near %q", strings.Fields(query)[0])
		}
		return reflection.ToolResult{ID: call.ID, Content: "count = 42"}, nil
	case "search_v1":
		return fail("search_v1 was removed; use search")
	case "search":
		return reflection.ToolResult{ID: call.ID, Content: "3 pages mention the release"}, nil
	}
	return fail("unknown tool %q", call.Name)
}
