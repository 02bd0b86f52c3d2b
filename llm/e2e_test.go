package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFiles is a read_file tool over an in-memory file system that records
// the inputs it was called with.
type fakeFiles struct {
	files map[string]string
	mu    sync.Mutex
	calls []string
}

func (fs *fakeFiles) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	fs.mu.Lock()
	fs.calls = append(fs.calls, string(call.Input))
	fs.mu.Unlock()
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return reflection.ToolResult{ID: call.ID, Content: "bad input: " + err.Error(), IsError: true}, nil
	}
	body, ok := fs.files[in.Path]
	if !ok {
		return reflection.ToolResult{ID: call.ID, Content: "open " + in.Path + ": no such file or directory (existing: docs/notes.md)", IsError: true}, nil
	}
	return reflection.ToolResult{ID: call.ID, Content: body}, nil
}

func TestDriverWithLLMReflectorFixesAWrongPath(t *testing.T) {
	srv, client := newChatServer(t, func(int) (int, string) {
		return http.StatusOK, completion(answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil)))
	})
	fs := &fakeFiles{files: map[string]string{"docs/notes.md": "ship on friday"}}
	lookup := func(tool string) (reflection.ToolSchema, bool) {
		if tool != "read_file" {
			return reflection.ToolSchema{}, false
		}
		return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(readFileSchema)}, true
	}
	d := reflection.NewDriver(
		reflection.WithReflector(llm.New(client)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
		reflection.WithSchemas(lookup),
	)

	ctx := reflection.ContextWithTask(context.Background(), "summarise the release notes")
	res, err := d.Run(ctx, reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"doc/notes.md"}`)}, fs.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call_1", Content: "ship on friday"}, res)
	assert.Equal(t, []string{`{"path":"doc/notes.md"}`, `{"path":"docs/notes.md"}`}, fs.calls)
	require.Equal(t, 1, srv.requests(), "one analysis")

	user := userContent(t, srv)
	assert.Equal(t, strings.Join([]string{
		"Tool: read_file",
		`Input: {"path":"doc/notes.md"}`,
		`Schema: {"type":"object","properties":{"path":{"type":"string","minLength":1}},"required":["path"],"additionalProperties":false}`,
		"Error: open doc/notes.md: no such file or directory (existing: docs/notes.md)",
		"Task: summarise the release notes",
		"Attempt: 1 of 6",
	}, "\n"), user)
}

func TestDriverFailsSoftlyWhenTheModelBreaks(t *testing.T) {
	_, client := newChatServer(t, func(int) (int, string) { return http.StatusInternalServerError, apiError("boom", "server_error") })
	fs := &fakeFiles{files: map[string]string{}}
	d := reflection.NewDriver(reflection.WithReflector(llm.New(client)))
	res, err := d.Run(context.Background(), reflection.ToolCall{ID: "c", Name: "read_file", Input: json.RawMessage(`{"path":"x"}`)}, fs.dispatch)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Len(t, fs.calls, 1, "a broken reflector means no retry")
}

// TestDriverWithInputCheckStopsFindingFive: issue 9, finding 5, end to end.
// (a) An InputFix that passes search's permissive schema, then a ToolChange
// to run_sql: the Driver asks the llm input check about run_sql with that
// input, which refuses it, so the switch is dropped and DROP TABLE never
// reaches run_sql. (b) An InputFix whose keys differ only in case never
// reaches the tool either.
func TestDriverWithInputCheckStopsFindingFive(t *testing.T) {
	schemas := map[string]string{
		"search":    `{"type":"object","properties":{"query":{"type":"string"}}}`,
		"run_sql":   `{"type":"object","properties":{"query":{"type":"string","pattern":"^SELECT "}},"required":["query"]}`,
		"read_file": `{"type":"object","properties":{"path":{"type":"string","pattern":"^/safe/"}},"required":["path"]}`,
	}
	lookup := registry(schemas)
	tests := []struct {
		name    string
		call    reflection.ToolCall
		answers []string // the model's answer to each failure, in order
		noCheck bool     // the control: the same run without the input check
		want    []string // every call dispatched, as "tool input"
	}{
		{
			name: "a: an input checked against search does not run on run_sql",
			call: reflection.ToolCall{ID: "c1", Name: "search", Input: json.RawMessage(`{"query":"users"}`)},
			answers: []string{
				answer(true, "low", corr("input_fix", `{"query":"DROP TABLE users"}`, nil, nil)),
				answer(true, "low", corr("tool_change", nil, "run_sql", nil)),
			},
			want: []string{`search {"query":"users"}`, `search {"query":"DROP TABLE users"}`, `search {"query":"DROP TABLE users"}`},
		},
		{
			name: "a, control: without the input check DROP TABLE runs on run_sql",
			call: reflection.ToolCall{ID: "c1", Name: "search", Input: json.RawMessage(`{"query":"users"}`)},
			answers: []string{
				answer(true, "low", corr("input_fix", `{"query":"DROP TABLE users"}`, nil, nil)),
				answer(true, "low", corr("tool_change", nil, "run_sql", nil)),
			},
			noCheck: true,
			want:    []string{`search {"query":"users"}`, `search {"query":"DROP TABLE users"}`, `run_sql {"query":"DROP TABLE users"}`},
		},
		{
			name: "b: keys that differ only in case",
			call: reflection.ToolCall{ID: "c2", Name: "read_file", Input: json.RawMessage(`{"path":"/safe/a"}`)},
			answers: []string{
				answer(true, "low", corr("input_fix", `{"path":"/safe/ok","PATH":"/etc/passwd"}`, nil, nil)),
				answer(false, "low", nil),
			},
			want: []string{`read_file {"path":"/safe/a"}`, `read_file {"path":"/safe/a"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := newChatServer(t, func(n int) (int, string) {
				return http.StatusOK, completion(tt.answers[min(n, len(tt.answers)-1)])
			})
			// Validation off in the Reflector: the Driver's input check alone
			// must stop the attack.
			reflector := llm.New(client, llm.WithSchemaValidation(false), llm.WithRepairRounds(0))
			opts := []reflection.Option{
				reflection.WithReflector(reflector),
				reflection.WithStrategy(reflection.NewExponentialBackoff(2).WithBaseDelay(0)),
				reflection.WithSchemas(lookup),
			}
			if !tt.noCheck {
				opts = append(opts, reflection.WithInputCheck(llm.NewInputCheck(lookup)))
			}
			d := reflection.NewDriver(opts...)
			var ran []string
			_, err := d.Run(context.Background(), tt.call, func(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
				ran = append(ran, c.Name+" "+string(c.Input))
				return reflection.ToolResult{Content: "no luck", IsError: true}, nil
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, ran)
		})
	}
}

// TestDriverUsesTheReflectorsInputCheck: issue 19, finding 4, end to end.
// The Driver has the llm Reflector, the tools' schemas and a backoff, and no
// input check of its own: the model proposes an InputFix that search's
// schema accepts, then a ToolChange to run_sql, whose schema takes only
// SELECT statements. The Driver checks the corrected call with the
// Reflector's own input check, so DROP TABLE never reaches run_sql (before,
// it reached it on every retry), also when the Reflector sits in a chain
// after the rules, behind a cache.
func TestDriverUsesTheReflectorsInputCheck(t *testing.T) {
	lookup := registry(map[string]string{
		"search":  `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
		"run_sql": `{"type":"object","properties":{"query":{"type":"string","pattern":"^SELECT "}},"required":["query"]}`,
	})
	answers := []string{
		answer(true, "low", corr("input_fix", `{"query":"DROP TABLE users"}`, nil, nil)),
		answer(true, "low", corr("tool_change", nil, "run_sql", nil)),
	}
	tests := []struct {
		name      string
		reflector func(*llm.Reflector) reflection.Reflector
	}{
		{"the llm Reflector", func(r *llm.Reflector) reflection.Reflector { return r }},
		{"in a chain after the rules, behind a cache", func(r *llm.Reflector) reflection.Reflector {
			return reflection.Chain(rules.New(rules.Defaults()...), reflection.NewCache(r, 64, 0))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := newChatServer(t, func(n int) (int, string) {
				return http.StatusOK, completion(answers[min(n, len(answers)-1)])
			})
			d := reflection.NewDriver(
				reflection.WithReflector(tt.reflector(llm.New(client))),
				reflection.WithSchemas(lookup),
				reflection.WithStrategy(reflection.NewExponentialBackoff(5).WithBaseDelay(0)),
			)
			var ran []string
			res, err := d.Run(context.Background(), reflection.ToolCall{ID: "c1", Name: "search", Input: json.RawMessage(`{"query":"users"}`)},
				func(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
					ran = append(ran, c.Name+" "+string(c.Input))
					return reflection.ToolResult{ID: c.ID, Content: "search: the query matched no documents", IsError: true}, nil
				})
			require.NoError(t, err)
			assert.True(t, res.IsError, "the run ends softly")
			require.GreaterOrEqual(t, srv.requests(), 2, "the model was asked for the tool change")
			for _, call := range ran {
				assert.False(t, strings.HasPrefix(call, "run_sql "), "%s reached run_sql; every call: %q", call, ran)
			}
			assert.Equal(t, `search {"query":"DROP TABLE users"}`, ran[len(ran)-1], "the retries stay on search, with the checked input")
		})
	}
}
