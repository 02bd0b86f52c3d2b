// Command llm shows the llm Reflector at work: a read_file tool is called
// with a wrong path, the model is asked why it failed, and the Driver retries
// with the corrected input it proposes. The model is last in a chain: the
// stock rules of package rules answer what needs no model, and a cache keeps
// the model's answers. The model also sees the other tools
// (the catalog), and for every failure the program prints what its analysis
// cost: the requests made (a repair round when an answer was unusable), the
// tokens the server reported and the time it took.
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
	"slices"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/loopctl-go/reflection/rules"
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
	cfg.HTTPClient = llm.NewHTTPClient(0, nil) // responses cut at llm.DefaultMaxResponseBytes

	var costs analysisCosts
	reflector := llm.New(openai.NewClientWithConfig(cfg),
		llm.WithModel(model), // "" keeps the default, gpt-4o-mini
		llm.WithResponseFormat(rf),
		llm.WithRequestTimeout(2*time.Minute),
		llm.WithToolCatalog(catalog),
		llm.WithExchangeHook(costs.record),
		llm.WithRedactor(reflection.RedactSecrets), // scrubs what is sent and the errors' quotes
	)
	analyze := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		costs = analysisCosts{}
		a, err := reflector.Analyze(ctx, f)
		fmt.Fprintf(stdout, "analysis of call %d (%s): %s\n", f.Attempt+1, f.Tool, costs)
		return a, err
	})
	// Rules first, the model last, behind a cache: the stock rules answer
	// timeouts, rate limits and auth failures at no cost and without a model's
	// guesswork (and keep recovery working when the model's own API is the one
	// rate-limiting); the cache saves a second request for a failure already
	// analysed, the same wrong path asked again in another call, say.
	driver := reflection.NewDriver(
		reflection.WithReflector(reflection.Chain(
			rules.New(rules.Defaults()...),
			reflection.NewCache(analyze, 256, time.Hour),
		)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithSchemas(schemas),
		reflection.WithInputCheck(reflector.InputCheck(schemas)), // a corrected call must fit its tool's schema
		reflection.WithRedactor(reflection.RedactSecrets),
		reflection.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))),
	)

	call := reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path": "doc/release-notes.md"}`)}
	ctx = reflection.ContextWithTask(ctx, "summarise the release notes")
	attempt := 0
	dispatch := func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
		attempt++
		res := runTool(c)
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

// analysisCosts adds up the exchanges of one Analyze: the requests made,
// the tokens the server reported and the time they took.
type analysisCosts struct {
	requests int
	tokens   int
	latency  time.Duration
}

// record is the exchange hook. It runs on the goroutine of Analyze, so the
// Driver's sequential calls need no lock.
func (c *analysisCosts) record(_ context.Context, e llm.Exchange) {
	c.requests++
	c.tokens += e.Usage.TotalTokens
	c.latency += e.Latency
}

func (c analysisCosts) String() string {
	return fmt.Sprintf("%d request(s), %d tokens, %s", c.requests, c.tokens, c.latency.Round(time.Millisecond))
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

// tools is the registry the Driver and the Reflector consult.
var tools = []reflection.ToolSchema{
	{Name: "read_file", Description: "Read a file of the project.", InputSchema: json.RawMessage(readFileSchema)},
	{Name: "list_dir", Description: "List the files of a directory of the project.", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"dir":{"type":"string"}},"required":["dir"],"additionalProperties":false}`)},
}

// schemas looks a tool up in the registry.
func schemas(tool string) (reflection.ToolSchema, bool) {
	for _, t := range tools {
		if t.Name == tool {
			return t, true
		}
	}
	return reflection.ToolSchema{}, false
}

// catalog lists the registry for the model, so a tool_change names a tool
// that exists.
func catalog(context.Context) []reflection.ToolSchema { return tools }

// runTool dispatches a call to the example's tools.
func runTool(c reflection.ToolCall) reflection.ToolResult {
	if c.Name == "list_dir" {
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		slices.Sort(names)
		return reflection.ToolResult{ID: c.ID, Content: strings.Join(names, "\n")}
	}
	return readFile(c)
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
