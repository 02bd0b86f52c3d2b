// Command llm shows the llm Reflector at work: a read_file tool is called
// with a wrong path, the model is asked why it failed, and the Driver retries
// with the corrected input it proposes.
//
// It talks to any OpenAI-compatible chat-completions server:
//
//	OPENAI_API_KEY=sk-...  go run ./examples/llm                       # api.openai.com
//	OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.2 \
//	    go run ./examples/llm -format json_object                     # Ollama
//
// OPENAI_MODEL picks the model (default gpt-4o-mini). A base URL without a key
// is fine for local servers. The -format flag chooses json_schema (default),
// json_object or none, for servers without json_schema support.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

const usage = `examples/llm needs a chat-completions server. Set one of:
  OPENAI_API_KEY=sk-...                        to use api.openai.com
  OPENAI_BASE_URL=http://localhost:11434/v1    to use an OpenAI-compatible server (Ollama, vLLM, LM Studio)
Optionally set OPENAI_MODEL (default gpt-4o-mini); a base URL may be given with or without a key.
`

// localKey is sent when a base URL is given without a key: local servers
// ignore it, but the client wants one.
const localKey = "no-key"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program, with its environment passed in so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("llm", flag.ContinueOnError)
	flags.SetOutput(stderr)
	format := flags.String("format", "json_schema", "response format: json_schema, json_object or none")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	formats := map[string]llm.ResponseFormat{
		"json_schema": llm.ResponseFormatJSONSchema,
		"json_object": llm.ResponseFormatJSONObject,
		"none":        llm.ResponseFormatNone,
	}
	rf, ok := formats[*format]
	if !ok {
		fmt.Fprintf(stderr, "unknown -format %q: use json_schema, json_object or none\n", *format)
		return 2
	}

	key, baseURL, model := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"), getenv("OPENAI_MODEL")
	if key == "" && baseURL == "" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if key == "" {
		key = localKey
	}
	cfg := openai.DefaultConfig(key)
	if baseURL != "" {
		cfg.BaseURL = baseURL
	}

	reflector := llm.New(openai.NewClientWithConfig(cfg),
		llm.WithModel(model), // "" keeps the default, gpt-4o-mini
		llm.WithResponseFormat(rf),
		llm.WithRequestTimeout(2*time.Minute),
	)
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithSchemas(schemas),
		reflection.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))),
	)

	call := reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path": "doc/release-notes.md"}`)}
	ctx = reflection.ContextWithTask(ctx, "summarise the release notes")
	attempt := 0
	dispatch := func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
		attempt++
		res := readFile(c)
		fmt.Fprintf(stdout, "call %d: %s %s -> %s\n", attempt, c.Name, c.Input, summary(res))
		return res, nil
	}

	res, err := driver.Run(ctx, call, dispatch)
	if err != nil {
		fmt.Fprintln(stderr, "run:", err)
		return 1
	}
	if res.IsError {
		fmt.Fprintf(stdout, "gave up after %d call(s): %s\n", attempt, res.Content)
		return 1
	}
	fmt.Fprintf(stdout, "recovered after %d call(s):\n%s\n", attempt, res.Content)
	return 0
}

// files is the example's whole file system.
var files = map[string]string{
	"docs/release-notes.md": "v1.2: the Driver retries with corrections proposed by a model.",
}

const readFileSchema = `{
  "type": "object",
  "properties": {"path": {"type": "string", "description": "a file path relative to the project root"}},
  "required": ["path"],
  "additionalProperties": false
}`

// schemas is the tool registry the Driver and the Reflector consult.
func schemas(tool string) (reflection.ToolSchema, bool) {
	if tool != "read_file" {
		return reflection.ToolSchema{}, false
	}
	return reflection.ToolSchema{Name: tool, Description: "Read a file", InputSchema: json.RawMessage(readFileSchema)}, true
}

// readFile is the tool: it fails, with a helpful error, on a path that does
// not exist.
func readFile(c reflection.ToolCall) reflection.ToolResult {
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return reflection.ToolResult{ID: c.ID, Content: "invalid input: " + err.Error(), IsError: true}
	}
	body, ok := files[in.Path]
	if !ok {
		existing := make([]string, 0, len(files))
		for name := range files {
			existing = append(existing, name)
		}
		return reflection.ToolResult{ID: c.ID, IsError: true,
			Content: fmt.Sprintf("open %s: no such file or directory (files that exist: %v)", in.Path, existing)}
	}
	return reflection.ToolResult{ID: c.ID, Content: body}
}

func summary(res reflection.ToolResult) string {
	if res.IsError {
		return "error: " + res.Content
	}
	return "ok"
}
