package reflection_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/caps"
)

// correctOnce is a fakeReflector that proposes c on the first failure and
// nothing afterwards.
func correctOnce(c *reflection.Correction) *fakeReflector {
	return &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		a := reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error}
		if f.Attempt == 0 {
			a.Correction = c
		}
		return a
	}}
}

// knownTools is a SchemaLookup that knows the given names.
func knownTools(names ...string) reflection.SchemaLookup {
	return func(tool string) (reflection.ToolSchema, bool) {
		for _, n := range names {
			if n == tool {
				return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, true
			}
		}
		return reflection.ToolSchema{}, false
	}
}

// TestRunCorrections runs a call that fails once and checks what the retry
// dispatched and whether the correction was dropped with a warning.
func TestRunCorrections(t *testing.T) {
	orig := testCall // read_file {"path":"/tmp/x"}
	tests := []struct {
		name       string
		correction *reflection.Correction
		opts       []reflection.Option
		wantName   string
		wantInput  string
		wantWarn   string // reason of the one warn log, or "" for none
	}{
		{
			name:       "input fix object applied",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/tmp/y"}`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/y"}`,
		},
		{
			name:       "input fix empty object applied",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{}`)},
			wantName:   "read_file", wantInput: `{}`,
		},
		{
			name:       "input fix object with surrounding space applied",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(" \n{\"a\":1}\t")},
			wantName:   "read_file", wantInput: " \n{\"a\":1}\t",
		},
		{
			name:       "input fix array dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`[{"path":"/tmp/y"}]`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix string dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`"{\"path\":\"/tmp/y\"}"`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix number dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`42`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix null dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`null`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix invalid JSON dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix two objects dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{}{}`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "modified_input is not a JSON object",
		},
		{
			name:       "input fix empty dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage{}},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "input_fix has no modified_input",
		},
		{
			name:       "input fix nil dropped",
			correction: &reflection.Correction{Type: reflection.InputFix},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "input_fix has no modified_input",
		},
		{
			name:       "tool change without lookup applied",
			correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat"},
			wantName:   "cat", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name:       "tool change to known tool applied",
			correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat"},
			opts:       []reflection.Option{reflection.WithSchemas(knownTools("read_file", "cat"))},
			wantName:   "cat", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name:       "tool change to unknown tool dropped",
			correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "rm_rf"},
			opts:       []reflection.Option{reflection.WithSchemas(knownTools("read_file", "cat"))},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "the alternative tool is not registered",
		},
		{
			name:       "tool change empty dropped",
			correction: &reflection.Correction{Type: reflection.ToolChange},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
			wantWarn: "tool_change has no alternative_tool",
		},
		{
			name:       "tool change ignores modified input",
			correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName:   "cat", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name:       "input fix ignores alternative tool",
			correction: &reflection.Correction{Type: reflection.InputFix, AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName:   "read_file", wantInput: `{"a":1}`,
		},
		{
			name: "prerequisite fix changes nothing",
			correction: &reflection.Correction{Type: reflection.PrerequisiteFix, Guidance: "mkdir first",
				AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName: "read_file", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name: "approach change changes nothing",
			correction: &reflection.Correction{Type: reflection.ApproachChange, Guidance: "search instead",
				AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName: "read_file", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name: "escalate changes nothing",
			correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask",
				AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName: "read_file", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name:       "unknown type changes nothing",
			correction: &reflection.Correction{Type: "rewrite", AlternativeTool: "cat", ModifiedInput: json.RawMessage(`{"a":1}`)},
			wantName:   "read_file", wantInput: `{"path":"/tmp/x"}`,
		},
		{
			name:     "no correction changes nothing",
			wantName: "read_file", wantInput: `{"path":"/tmp/x"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, logger := newLogBuffer()
			tool := &fakeTool{fails: 1}
			opts := append([]reflection.Option{
				reflection.WithReflector(correctOnce(tt.correction)),
				reflection.WithStrategy(retryAfter(0)),
				reflection.WithLogger(logger),
			}, tt.opts...)
			got, err := reflection.NewDriver(opts...).Run(context.Background(), orig, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "ok"}, got)

			calls := tool.Calls()
			require.Len(t, calls, 2, "the retry runs whether or not the correction applied")
			assert.Equal(t, orig, calls[0])
			assert.Equal(t, reflection.ToolCall{ID: "call-1", Name: tt.wantName, Input: json.RawMessage(tt.wantInput)}, calls[1])

			warns := logs.Find(t, "WARN", "reflection: correction dropped")
			if tt.wantWarn == "" {
				assert.Empty(t, warns)
				return
			}
			require.Len(t, warns, 1, "logs: %+v", logs.Records(t))
			assert.Equal(t, tt.wantWarn, warns[0].Reason)
		})
	}
}

// TestRunCorrectionsAccumulate: each retry starts from the call the previous
// corrections produced.
func TestRunCorrectionsAccumulate(t *testing.T) {
	plan := map[int]*reflection.Correction{
		0: {Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/a"}`)},
		1: {Type: reflection.ToolChange, AlternativeTool: "cat"},
		2: {Type: reflection.PrerequisiteFix, Guidance: "create /a"},
		3: {Type: reflection.InputFix, ModifiedInput: json.RawMessage(`"not an object"`)},
		4: {Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/b"}`)},
	}
	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, Correction: plan[f.Attempt]}
	}}
	tool := &fakeTool{fails: 5}
	got, err := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0))).
		Run(context.Background(), testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "ok"}, got)
	want := []reflection.ToolCall{
		testCall,
		{ID: "call-1", Name: "read_file", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call-1", Name: "cat", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call-1", Name: "cat", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call-1", Name: "cat", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call-1", Name: "cat", Input: json.RawMessage(`{"path":"/b"}`)},
	}
	assert.Equal(t, want, tool.Calls())
}

// TestRunCorrectionNotAppliedWithoutRetry: a correction is applied only on
// Retry; Skip, Fail and AskUser return without dispatching again.
func TestRunCorrectionNotAppliedWithoutRetry(t *testing.T) {
	for _, action := range []reflection.RecoveryAction{reflection.Skip{}, reflection.Fail{}, reflection.AskUser{}} {
		t.Run(action.String(), func(t *testing.T) {
			tool := alwaysFails()
			refl := correctOnce(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"a":1}`)})
			strat := &fakeStrategy{decide: func(int) reflection.RecoveryAction { return action }}
			_, err := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(strat)).
				Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, []reflection.ToolCall{testCall}, tool.Calls())
		})
	}
}

func TestWithToolChangeFilter(t *testing.T) {
	type pair struct{ from, to string }
	tests := []struct {
		name      string
		allow     func(from, to string) bool
		lookup    reflection.SchemaLookup
		to        string
		wantName  string
		wantWarn  string
		wantAsked []pair
	}{
		{
			name:      "allowed",
			allow:     func(from, to string) bool { return to == "cat" },
			to:        "cat",
			wantName:  "cat",
			wantAsked: []pair{{"read_file", "cat"}},
		},
		{
			name:      "denied",
			allow:     func(from, to string) bool { return false },
			to:        "rm_rf",
			wantName:  "read_file",
			wantWarn:  "switching to the alternative tool is not allowed",
			wantAsked: []pair{{"read_file", "rm_rf"}},
		},
		{
			name:     "unknown to the lookup: dropped before the filter",
			allow:    func(from, to string) bool { return true },
			lookup:   knownTools("read_file"),
			to:       "cat",
			wantName: "read_file",
			wantWarn: "the alternative tool is not registered",
		},
		{
			name:      "known to the lookup and allowed",
			allow:     func(from, to string) bool { return true },
			lookup:    knownTools("read_file", "cat"),
			to:        "cat",
			wantName:  "cat",
			wantAsked: []pair{{"read_file", "cat"}},
		},
		{
			name:     "nil filter allows any tool",
			to:       "anything",
			wantName: "anything",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []pair
			var allow func(from, to string) bool
			if tt.allow != nil {
				allow = func(from, to string) bool {
					asked = append(asked, pair{from, to})
					return tt.allow(from, to)
				}
			}
			logs, logger := newLogBuffer()
			tool := &fakeTool{fails: 1}
			opts := []reflection.Option{
				reflection.WithReflector(correctOnce(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: tt.to})),
				reflection.WithStrategy(retryAfter(0)),
				reflection.WithLogger(logger),
				reflection.WithToolChangeFilter(allow),
			}
			if tt.lookup != nil {
				opts = append(opts, reflection.WithSchemas(tt.lookup))
			}
			_, err := reflection.NewDriver(opts...).Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			assert.Equal(t, tt.wantName, calls[1].Name)
			assert.Equal(t, tt.wantAsked, asked)
			warns := logs.Find(t, "WARN", "reflection: correction dropped")
			if tt.wantWarn == "" {
				assert.Empty(t, warns)
			} else if assert.Len(t, warns, 1) {
				assert.Equal(t, tt.wantWarn, warns[0].Reason)
			}
		})
	}
}

func TestWithAllowedTools(t *testing.T) {
	tests := []struct {
		name     string
		allowed  []string
		to       string
		wantName string
	}{
		{"listed", []string{"cat", "grep"}, "grep", "grep"},
		{"not listed", []string{"cat", "grep"}, "rm_rf", "read_file"},
		{"empty list allows nothing", nil, "cat", "read_file"},
		{"case matters", []string{"cat"}, "Cat", "read_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{fails: 1}
			_, err := reflection.NewDriver(
				reflection.WithReflector(correctOnce(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: tt.to})),
				reflection.WithStrategy(retryAfter(0)),
				reflection.WithAllowedTools(tt.allowed...),
			).Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			assert.Equal(t, tt.wantName, calls[1].Name)
		})
	}
}

// bigObject returns a JSON object of exactly n bytes (n >= 8).
func bigObject(n int) json.RawMessage {
	b := `{"a":"` + strings.Repeat("x", n-8) + `"}`
	return json.RawMessage(b)
}

func TestWithMaxCorrectedInput(t *testing.T) {
	if got := len(bigObject(100)); got != 100 {
		t.Fatalf("bigObject(100) has %d bytes", got)
	}
	def := caps.MaxCorrectedInput
	tests := []struct {
		name      string
		opts      []reflection.Option
		size      int
		wantApply bool
	}{
		{"at the limit", []reflection.Option{reflection.WithMaxCorrectedInput(100)}, 100, true},
		{"over the limit", []reflection.Option{reflection.WithMaxCorrectedInput(100)}, 101, false},
		{"default at the limit", nil, def, true},
		{"default over the limit", nil, def + 1, false},
		{"0 means the default", []reflection.Option{reflection.WithMaxCorrectedInput(0)}, def + 1, false},
		{"negative means no limit", []reflection.Option{reflection.WithMaxCorrectedInput(-1)}, def + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, logger := newLogBuffer()
			fix := bigObject(tt.size)
			tool := &fakeTool{fails: 1}
			opts := append([]reflection.Option{
				reflection.WithReflector(correctOnce(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: fix})),
				reflection.WithStrategy(retryAfter(0)),
				reflection.WithLogger(logger),
			}, tt.opts...)
			_, err := reflection.NewDriver(opts...).Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			warns := logs.Find(t, "WARN", "reflection: correction dropped")
			if tt.wantApply {
				assert.Equal(t, len(fix), len(calls[1].Input), "input applied")
				assert.Empty(t, warns)
				return
			}
			assert.Equal(t, testCall.Input, calls[1].Input, "input unchanged")
			if assert.Len(t, warns, 1) {
				assert.Contains(t, warns[0].Reason, "over the limit")
			}
		})
	}
}
