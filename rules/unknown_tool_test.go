package rules_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

func TestUnknownTool(t *testing.T) {
	tools := []string{"web_search", "read_file", "write_file", "list_directory", "get_weather", "fetch"}
	tests := []struct {
		name  string
		tool  string // the failing tool
		text  string
		tools []string
		want  string // "" means the rule declines
	}{
		{"MCP Go SDK wording", "web_serach", `calling "tools/call": unknown tool "web_serach"`, tools, "web_search"},
		{"MCP Python SDK wording", "read_flie", "Unknown tool: read_flie", tools, "read_file"},
		{"MCP TypeScript SDK wording", "readFile", "MCP error -32602: MCP error -32602: Tool readFile not found", tools, "read_file"},
		{"eino wording", "search_web", "tool search_web not found in toolsNode indexes", tools, "web_search"},
		{"langchaingo wording", "get_wether", "get_wether is not a valid tool, try another one", tools, "get_weather"},
		{"no such tool", "write-file", "no such tool: write-file", tools, "write_file"},
		{"unknown function", "fetch_", "unknown function fetch_", tools, "fetch"},
		{"tool not found: name", "list_directry", "tool not found: list_directry", tools, "list_directory"},
		{"the message names no tool: the failing one counts", "wrte_file", "Unknown tool", tools, "write_file"},
		{"nothing close enough", "send_email", `unknown tool "send_email"`, tools, ""},
		{"a short name must match exactly", "cat", `unknown tool "cat"`, []string{"cut", "bat"}, ""},
		{"two equally close names", "read_fil", `unknown tool "read_fil"`, []string{"read_file", "read_fill"}, ""},
		{"the list holds the called name", "fetch", `unknown tool "fetch"`, tools, ""},
		{"the message is about another tool", "run_shell", `tool "jq" not found`, []string{"jq_query", "run_shell"}, ""},
		{"an empty list", "web_serach", `unknown tool "web_serach"`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rules.New(rules.UnknownTool(tt.tools...))
			a, err := r.Analyze(context.Background(), reflection.Failure{Error: tt.text, Tool: tt.tool})
			if tt.want == "" {
				assert.ErrorIs(t, err, reflection.ErrSkipped)
				return
			}
			require.NoError(t, err)
			assert.True(t, a.IsRecoverable)
			assert.Equal(t, reflection.SeverityMedium, a.Severity)
			assert.Equal(t, "rules: unknown-tool", a.Context)
			require.NotNil(t, a.Correction)
			assert.Equal(t, reflection.ToolChange, a.Correction.Type)
			assert.Equal(t, tt.want, a.Correction.AlternativeTool)
			assert.Contains(t, tt.tools, a.Correction.AlternativeTool, "never a tool the list lacks")
		})
	}
}

func TestUnknownToolFunc(t *testing.T) {
	ctx := context.Background()
	calls := 0
	tools := []string{"web_search"}
	r := rules.New(rules.UnknownToolFunc(func() []string { calls++; return tools }))

	_, err := r.Analyze(ctx, reflection.Failure{Error: "connection refused", Tool: "web_search"})
	assert.ErrorIs(t, err, reflection.ErrSkipped)
	assert.Zero(t, calls, "the list is asked for only when a tool is unknown")

	a, err := r.Analyze(ctx, reflection.Failure{Error: `unknown tool "web_serch"`, Tool: "web_serch"})
	require.NoError(t, err)
	assert.Equal(t, "web_search", a.Correction.AlternativeTool)

	tools = []string{"search_the_web"} // the host's tools changed
	_, err = r.Analyze(ctx, reflection.Failure{Error: `unknown tool "web_serch"`, Tool: "web_serch"})
	assert.ErrorIs(t, err, reflection.ErrSkipped)
	assert.Equal(t, 2, calls)

	panicking := rules.New(rules.UnknownToolFunc(func() []string { panic("registry closed") }))
	_, err = panicking.Analyze(ctx, reflection.Failure{Error: `unknown tool "x"`, Tool: "x"})
	assert.ErrorIs(t, err, reflection.ErrInternal)
}

// TestNotFooled holds the stock table to words out of context: each text
// below contains a word a careless rule would read as transient, and none
// may come back recoverable.
func TestNotFooled(t *testing.T) {
	texts := []string{
		"timeout must be positive",
		"invalid timeout: -5s",
		"time: invalid duration \"10x\" for flag -timeout",
		"request timeout must be greater than zero",
		"ValueError: Timeout value connect was -1, but it must be an int, float or None.",
		"fatal error: all goroutines are asleep - deadlock!",
		"resource deadlock avoided",
		"deadlock_timeout must be at least 1ms",
		"invalid deadline",
		"invalid rate limit configuration: burst must be greater than zero",
		"rate limit settings saved",
		"call of overloaded 'max(int, long)' is ambiguous",
		"panic: test timed out after 10m0s",
		"Error 1045: Access denied for user 'root'@'localhost' (using password: NO)",
		"line 503: unexpected token",
		"order #4290 was not found",
		"rpc error: code = ResourceExhausted desc = grpc: received message larger than max (4194305 vs. 4194304)",
		"Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 31538.",
		"You exceeded your current quota, please check your plan and billing details.",
		"dial tcp: lookup api.exmaple.com: no such host",
		"x509: certificate signed by unknown authority",
		"invalid connection string: missing host",
		"Get \"https://example.com\": unsupported protocol scheme \"\"",
		"json: cannot unmarshal string into Go value of type int",
		"unexpected EOF",
	}
	r := rules.New(rules.Defaults()...)
	for _, text := range texts {
		t.Run(text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Error: text})
			assert.False(t, err == nil && a.IsRecoverable, "called recoverable by %q", a.Context)
		})
	}
}

// TestUnknownToolLongNameIsBounded: the called name is the model's to
// choose and nothing else bounds it, so the rule must not work in proportion
// to it. Against 200 tools, a 64 KiB name is refused before anything is
// computed from it (before: an edit distance over every tool, 2.7 MB
// allocated and seconds of CPU per Analyze; 42 MB and about a minute for
// 1 MiB), while a name padded with separators within the margin is still
// read.
func TestUnknownToolLongNameIsBounded(t *testing.T) {
	ctx := context.Background()
	r := rules.New(rules.UnknownTool(hostTools(200)...))

	long := reflection.Failure{Tool: longToolName(64 << 10), Error: "Unknown tool"}
	_, err := r.Analyze(ctx, long)
	require.ErrorIs(t, err, reflection.ErrSkipped)
	assert.True(t, strings.Contains(err.Error(), "longer than any of 200 tools can be close to"), "the rule says why it declines")
	allocated := bytesAllocated(func() { r.Analyze(ctx, long) })
	assert.Less(t, allocated, uint64(len(long.Tool)), "bytes allocated by one Analyze of a 64 KiB name: less than the name")

	padded := reflection.Failure{Tool: "github__get__pull_request_", Error: "Unknown tool"}
	a, err := r.Analyze(ctx, padded)
	require.NoError(t, err)
	assert.Equal(t, "github_get_pull_request", a.Correction.AlternativeTool)
}

// bytesAllocated returns the bytes fn allocates, averaged over 10 runs, on
// one P as testing.AllocsPerRun measures.
func bytesAllocated(fn func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	fn() // warm up
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / 10
}

// hostTools returns n tool names as a host with many MCP servers lists them.
func hostTools(n int) []string {
	verbs := []string{"get", "list", "create", "update", "delete", "search"}
	nouns := []string{"issue", "pull_request", "file", "repository", "branch", "comment", "user", "calendar_event", "message", "ticket"}
	servers := []string{"github", "gitlab", "jira", "slack", "google"}
	var out []string
	for _, s := range servers {
		for _, v := range verbs {
			for _, n := range nouns {
				out = append(out, s+"_"+v+"_"+n)
			}
		}
	}
	return out[:n]
}

// longToolName returns a name of size bytes that looks like a tool name.
func longToolName(size int) string {
	return ("github_search_" + strings.Repeat("x", size))[:size]
}
