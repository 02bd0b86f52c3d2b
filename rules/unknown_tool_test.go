package rules_test

import (
	"context"
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
