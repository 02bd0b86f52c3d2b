package reflection_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// fakeTool is a DispatchFunc that fails its first `fails` calls and then
// succeeds. Failure number n (1-based) has the text "<errText> n", so a test
// can tell which call's text reached the model. It records every call.
type fakeTool struct {
	fails   int
	errText string // default "boom"
	output  string // default "ok"

	mu    sync.Mutex
	calls []reflection.ToolCall
}

func (f *fakeTool) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	n := len(f.calls)
	if n <= f.fails {
		text := f.errText
		if text == "" {
			text = "boom"
		}
		return reflection.ToolResult{ID: "tool-set-id", Content: fmt.Sprintf("%s %d", text, n), IsError: true}, nil
	}
	out := f.output
	if out == "" {
		out = "ok"
	}
	return reflection.ToolResult{ID: "tool-set-id", Content: out}, nil
}

func (f *fakeTool) Calls() []reflection.ToolCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reflection.ToolCall(nil), f.calls...)
}

// alwaysFails is a fakeTool that never succeeds.
func alwaysFails() *fakeTool { return &fakeTool{fails: 1 << 30} }

// fakeReflector answers every failure with analysis(f) (or err), and records
// what it was asked.
type fakeReflector struct {
	analysis func(f reflection.Failure) reflection.FailureAnalysis
	err      error

	mu   sync.Mutex
	seen []reflection.Failure
}

func (r *fakeReflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	r.mu.Lock()
	r.seen = append(r.seen, f)
	r.mu.Unlock()
	if r.err != nil {
		return reflection.FailureAnalysis{}, r.err
	}
	if r.analysis == nil {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow}, nil
	}
	return r.analysis(f), nil
}

func (r *fakeReflector) Seen() []reflection.Failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reflection.Failure(nil), r.seen...)
}

// recoverable is a fakeReflector that calls every failure recoverable, at
// SeverityLow, with no correction.
func recoverable() *fakeReflector { return &fakeReflector{} }

// decision is one call of a fakeStrategy.
type decision struct {
	analysis    reflection.FailureAnalysis
	attempt     int
	maxAttempts int
}

// fakeStrategy returns decide(attempt) and records each call.
type fakeStrategy struct {
	decide func(attempt int) reflection.RecoveryAction

	mu   sync.Mutex
	seen []decision
}

func (s *fakeStrategy) Decide(_ context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
	s.mu.Lock()
	s.seen = append(s.seen, decision{a, attempt, maxAttempts})
	s.mu.Unlock()
	return s.decide(attempt)
}

func (s *fakeStrategy) Seen() []decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]decision(nil), s.seen...)
}

// retryAfter is a fakeStrategy that always says Retry{Delay: d}.
func retryAfter(d time.Duration) *fakeStrategy {
	return &fakeStrategy{decide: func(int) reflection.RecoveryAction { return reflection.Retry{Delay: d} }}
}

// logRecord is one line of a JSON slog handler.
type logRecord struct {
	Level     string `json:"level"`
	Msg       string `json:"msg"`
	Tool      string `json:"tool"`
	Reason    string `json:"reason"`
	Error     string `json:"error"`
	Action    string `json:"action"`
	Prompt    string `json:"prompt"`
	Detail    string `json:"detail"`
	AltTool   string `json:"alternative_tool"`
	ErrorType string `json:"error_type"`
	Failure   string `json:"failure"`
}

// logBuffer is a debug-level slog.Logger writing JSON lines to a buffer.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func newLogBuffer() (*logBuffer, *slog.Logger) {
	b := &logBuffer{}
	return b, slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (b *logBuffer) Records(t *testing.T) []logRecord {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []logRecord
	for line := range strings.SplitSeq(strings.TrimSpace(b.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r logRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), "log line %s", line)
		out = append(out, r)
	}
	return out
}

// Find returns the records with the given level and message.
func (b *logBuffer) Find(t *testing.T, level, msg string) []logRecord {
	t.Helper()
	var out []logRecord
	for _, r := range b.Records(t) {
		if r.Level == level && r.Msg == msg {
			out = append(out, r)
		}
	}
	return out
}

func (b *logBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

var testCall = reflection.ToolCall{ID: "call-1", Name: "read_file", Input: json.RawMessage(`{"path":"/tmp/x"}`)}

func TestRunSuccess(t *testing.T) {
	tests := []struct {
		name   string
		driver *reflection.Driver
	}{
		{"NewDriver", reflection.NewDriver()},
		{"with observer", reflection.NewDriver(reflection.WithObserver(reflection.Observer{
			Finished: func(context.Context, int, reflection.ToolResult, error) {},
		}))},
		{"zero Driver", &reflection.Driver{}},
		{"nil Driver", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{output: "file contents"}
			got, err := tt.driver.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "file contents"}, got)
			assert.Equal(t, []reflection.ToolCall{testCall}, tool.Calls())
		})
	}
}

// TestRunSuccessAfterCancelDuringDispatch: the work happened, so a success is
// returned even though ctx ended while dispatch ran.
func TestRunSuccessAfterCancelDuringDispatch(t *testing.T) {
	for _, withObserver := range []bool{false, true} {
		t.Run(fmt.Sprintf("observer=%v", withObserver), func(t *testing.T) {
			var opts []reflection.Option
			if withObserver {
				opts = append(opts, reflection.WithObserver(reflection.Observer{
					DispatchDone: func(context.Context, int, reflection.ToolResult, error) {},
				}))
			}
			d := reflection.NewDriver(opts...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got, err := d.Run(ctx, testCall, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				cancel()
				return reflection.ToolResult{ID: "other", Content: "written"}, nil
			})
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "written"}, got)
		})
	}
}

// TestRunSuccessAfterRetryKeepsCallID: whatever dispatch sets as ID, and
// whatever corrections changed, the result carries the original call ID.
func TestRunSuccessAfterRetryKeepsCallID(t *testing.T) {
	tool := &fakeTool{fails: 2, output: "done"}
	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
			Type: reflection.ToolChange, AlternativeTool: "read_file_v2",
		}}
	}}
	d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0)))
	got, err := d.Run(context.Background(), testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "done"}, got)
	calls := tool.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, "read_file_v2", calls[2].Name)
	assert.Equal(t, "call-1", calls[2].ID, "dispatch sees the original call ID")
}

// TestRunDispatchFailureText checks the failure text the Reflector sees and
// the soft result the model sees for each way dispatch can fail.
func TestRunDispatchFailureText(t *testing.T) {
	tests := []struct {
		name     string
		call     reflection.ToolCall
		dispatch reflection.DispatchFunc
		want     string   // exact failure text, or "" to check wantHas
		wantHas  []string // substrings of the failure text
	}{
		{
			name: "error result",
			call: testCall,
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{Content: "no such file", IsError: true}, nil
			},
			want: "no such file",
		},
		{
			name: "returned error",
			call: testCall,
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{}, errors.New("connection refused")
			},
			want: "connection refused",
		},
		{
			name: "returned error wins over a successful result",
			call: testCall,
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{Content: "partial output"}, errors.New("stream reset")
			},
			want: "stream reset",
		},
		{
			name: "returned error wins over an error result",
			call: testCall,
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{Content: "result text", IsError: true}, errors.New("error text")
			},
			want: "error text",
		},
		{
			name: "panic with a string",
			call: reflection.ToolCall{ID: "c", Name: "explode"},
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				panic("kaboom")
			},
			wantHas: []string{"explode", "kaboom", "panic"},
		},
		{
			name: "panic with an error",
			call: reflection.ToolCall{ID: "c", Name: "divide"},
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				panic(errors.New("division by zero"))
			},
			wantHas: []string{"divide", "division by zero", "panic"},
		},
		{
			name: "panic with a number",
			call: reflection.ToolCall{ID: "c", Name: "count"},
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				panic(42)
			},
			wantHas: []string{"count", "42", "panic"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
				return reflection.FailureAnalysis{RootCause: f.Error}
			}}
			d := reflection.NewDriver(reflection.WithReflector(refl))
			got, err := d.Run(context.Background(), tt.call, tt.dispatch)
			require.NoError(t, err, "a failure the strategy gives up on is a soft error")
			seen := refl.Seen()
			require.Len(t, seen, 1)
			text := seen[0].Error
			if tt.want != "" {
				assert.Equal(t, tt.want, text)
			}
			for _, s := range tt.wantHas {
				assert.Contains(t, text, s)
			}
			assert.Equal(t, reflection.ToolResult{ID: tt.call.ID, Content: text, IsError: true}, got)
		})
	}
}

// TestRunDispatchPanicText pins the panic text, which names the tool (quoted)
// and the value.
func TestRunDispatchPanicText(t *testing.T) {
	got, err := reflection.NewDriver().Run(context.Background(),
		reflection.ToolCall{ID: "c", Name: "explode"},
		func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) { panic("kaboom") })
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "c", Content: `tool "explode" panicked: kaboom`, IsError: true}, got)
}

// TestRunStockDefaults: NoopReflector plus NewExponentialBackoff(3) make
// exactly one dispatch, whichever way the Driver was made.
func TestRunStockDefaults(t *testing.T) {
	tests := []struct {
		name   string
		driver *reflection.Driver
	}{
		{"NewDriver", reflection.NewDriver()},
		{"zero Driver", &reflection.Driver{}},
		{"nil Driver", nil},
		{"nil options", reflection.NewDriver(nil, nil)},
		{"nil option arguments", reflection.NewDriver(
			reflection.WithReflector(nil), reflection.WithStrategy(nil),
			reflection.WithSchemas(nil), reflection.WithLogger(nil),
		)},
		{"explicit defaults", reflection.NewDriver(
			reflection.WithReflector(reflection.NoopReflector{}),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				tool := alwaysFails()
				got, err := tt.driver.Run(context.Background(), testCall, tool.dispatch)
				require.NoError(t, err)
				assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
				assert.Len(t, tool.Calls(), 1, "dispatch calls")
				assert.Equal(t, time.Duration(0), time.Since(start), "time waited")
			})
		})
	}
}

// TestRunNilOptionMeansDefault checks each nil option argument separately
// against the default it stands for.
func TestRunNilOptionMeansDefault(t *testing.T) {
	t.Run("WithReflector(nil) is NoopReflector", func(t *testing.T) {
		strat := &fakeStrategy{decide: func(int) reflection.RecoveryAction { return reflection.Fail{} }}
		d := reflection.NewDriver(reflection.WithReflector(nil), reflection.WithStrategy(strat))
		_, err := d.Run(context.Background(), testCall, alwaysFails().dispatch)
		require.NoError(t, err)
		seen := strat.Seen()
		require.Len(t, seen, 1)
		assert.Equal(t, reflection.FailureAnalysis{RootCause: "boom 1", Severity: reflection.SeverityMedium}, seen[0].analysis)
	})
	t.Run("WithStrategy(nil) is NewExponentialBackoff(3)", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			tool := alwaysFails()
			d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(nil))
			got, err := d.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 4", IsError: true}, got)
			assert.Len(t, tool.Calls(), 4, "the original call and 3 retries")
			assert.Equal(t, 700*time.Millisecond, time.Since(start), "100ms + 200ms + 400ms")
		})
	})
	t.Run("WithSchemas(nil) gives no schema", func(t *testing.T) {
		refl := &fakeReflector{analysis: func(reflection.Failure) reflection.FailureAnalysis { return reflection.FailureAnalysis{} }}
		d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithSchemas(nil))
		_, err := d.Run(context.Background(), testCall, alwaysFails().dispatch)
		require.NoError(t, err)
		require.Len(t, refl.Seen(), 1)
		assert.Nil(t, refl.Seen()[0].Schema)
	})
}

// TestRunDefaultBackoffUnderDriver: with a recoverable reflector, the stock
// strategy's limit is min(maxRetries, 5).
func TestRunDefaultBackoffUnderDriver(t *testing.T) {
	tests := []struct {
		name       string
		strategy   reflection.RecoveryStrategy
		wantCalls  int
		wantWaited time.Duration
		wantReason string
	}{
		{"3 retries", reflection.NewExponentialBackoff(3), 4, 700 * time.Millisecond, "max retries (3) exceeded"},
		{"0 retries", reflection.NewExponentialBackoff(0), 1, 0, "max retries (0) exceeded"},
		{"10 retries capped at 5", reflection.NewExponentialBackoff(10), 6, 3100 * time.Millisecond, "max retries (5) exceeded"},
		{"30s delays", reflection.NewExponentialBackoff(5).WithBaseDelay(30 * time.Second), 6, 150 * time.Second, "max retries (5) exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs, logger := newLogBuffer()
				start := time.Now()
				tool := alwaysFails()
				d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(tt.strategy),
					reflection.WithLogger(logger), reflection.WithLogTexts())
				got, err := d.Run(context.Background(), testCall, tool.dispatch)
				require.NoError(t, err)
				want := reflection.ToolResult{ID: "call-1", Content: fmt.Sprintf("boom %d", tt.wantCalls), IsError: true}
				assert.Equal(t, want, got)
				assert.Len(t, tool.Calls(), tt.wantCalls)
				assert.Equal(t, tt.wantWaited, time.Since(start))
				decisions := logs.Find(t, "INFO", "reflection: recovery decision")
				require.Len(t, decisions, 1, "the Fail reason is logged")
				assert.Equal(t, "fail", decisions[0].Action)
				assert.Equal(t, tt.wantReason, decisions[0].Reason)
			})
		})
	}
}

// TestRunCeiling: a strategy that always retries is stopped after the sixth
// call, which fails with *ToolRecoveryExhaustedError naming the original tool,
// without a wait after the last call.
func TestRunCeiling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tool := alwaysFails()
		refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
			return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
				Type: reflection.ToolChange, AlternativeTool: "renamed",
			}}
		}}
		strat := retryAfter(time.Second)
		d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(strat))
		got, err := d.Run(context.Background(), testCall, tool.dispatch)

		require.Error(t, err)
		assert.True(t, errors.Is(err, reflection.ErrToolRecoveryExhausted), "errors.Is(%v, ErrToolRecoveryExhausted)", err)
		var exhausted *reflection.ToolRecoveryExhaustedError
		require.True(t, errors.As(err, &exhausted), "errors.As(%T)", err)
		assert.Equal(t, reflection.ToolRecoveryExhaustedError{Tool: "read_file", Attempts: 6}, *exhausted)
		assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 6", IsError: true}, got)

		assert.Len(t, tool.Calls(), reflection.MaxRecoveryAttempts+1)
		assert.Equal(t, 5*time.Second, time.Since(start), "five waits, none after the sixth call")
		seen := strat.Seen()
		require.Len(t, seen, 6)
		for i, s := range seen {
			assert.Equal(t, i, s.attempt, "strategy call %d attempt", i)
			assert.Equal(t, 6, s.maxAttempts, "strategy call %d maxAttempts", i)
		}
	})
}

func TestMaxRecoveryAttempts(t *testing.T) {
	if reflection.MaxRecoveryAttempts != 5 {
		t.Errorf("MaxRecoveryAttempts = %d, want 5", reflection.MaxRecoveryAttempts)
	}
}

// TestRunFailureFields checks every field of the Failure the Reflector sees,
// attempt by attempt, with corrections applied and the task from ctx.
func TestRunFailureFields(t *testing.T) {
	schemas := map[string]reflection.ToolSchema{
		"read_file": {Name: "read_file", Description: "reads", InputSchema: json.RawMessage(`{"type":"object"}`)},
		"cat":       {Name: "cat", Description: "cats", InputSchema: json.RawMessage(`{"type":"object","required":["file"]}`)},
	}
	lookup := func(tool string) (reflection.ToolSchema, bool) {
		s, ok := schemas[tool]
		return s, ok
	}
	// Attempt 0 fixes the input, attempt 1 switches to cat, attempt 2 to an
	// unregistered tool "mystery" (dropped), then advice only.
	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		a := reflection.FailureAnalysis{IsRecoverable: true}
		switch f.Attempt {
		case 0:
			a.Correction = &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"file":"/tmp/y"}`)}
		case 1:
			a.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat"}
		case 2:
			a.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "mystery"}
		default:
			a.Correction = &reflection.Correction{Type: reflection.ApproachChange, Guidance: "think"}
		}
		return a
	}}
	d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0)), reflection.WithSchemas(lookup))
	ctx := reflection.ContextWithTask(context.Background(), "summarise the notes")
	_, err := d.Run(ctx, testCall, alwaysFails().dispatch)
	require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)

	readSchema, catSchema := schemas["read_file"], schemas["cat"]
	fixed := json.RawMessage(`{"file":"/tmp/y"}`)
	want := []reflection.Failure{
		{Error: "boom 1", Tool: "read_file", Input: testCall.Input, Schema: &readSchema, Task: "summarise the notes", Attempt: 0, MaxAttempts: 6},
		{Error: "boom 2", Tool: "read_file", Input: fixed, Schema: &readSchema, Task: "summarise the notes", Attempt: 1, MaxAttempts: 6},
		{Error: "boom 3", Tool: "cat", Input: fixed, Schema: &catSchema, Task: "summarise the notes", Attempt: 2, MaxAttempts: 6},
		{Error: "boom 4", Tool: "cat", Input: fixed, Schema: &catSchema, Task: "summarise the notes", Attempt: 3, MaxAttempts: 6},
		{Error: "boom 5", Tool: "cat", Input: fixed, Schema: &catSchema, Task: "summarise the notes", Attempt: 4, MaxAttempts: 6},
		{Error: "boom 6", Tool: "cat", Input: fixed, Schema: &catSchema, Task: "summarise the notes", Attempt: 5, MaxAttempts: 6},
	}
	assert.Equal(t, want, refl.Seen())
}

func TestRunFailureNoTask(t *testing.T) {
	refl := &fakeReflector{analysis: func(reflection.Failure) reflection.FailureAnalysis { return reflection.FailureAnalysis{} }}
	_, err := reflection.NewDriver(reflection.WithReflector(refl)).Run(context.Background(), testCall, alwaysFails().dispatch)
	require.NoError(t, err)
	require.Len(t, refl.Seen(), 1)
	assert.Equal(t, "", refl.Seen()[0].Task)
	assert.Nil(t, refl.Seen()[0].Schema, "no SchemaLookup configured")
}

// TestRunSchemaUnknownTool: a lookup that does not know the tool gives a nil
// Schema.
func TestRunSchemaUnknownTool(t *testing.T) {
	refl := &fakeReflector{analysis: func(reflection.Failure) reflection.FailureAnalysis { return reflection.FailureAnalysis{} }}
	var asked []string
	d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithSchemas(func(tool string) (reflection.ToolSchema, bool) {
		asked = append(asked, tool)
		return reflection.ToolSchema{Name: "decoy"}, false
	}))
	_, err := d.Run(context.Background(), testCall, alwaysFails().dispatch)
	require.NoError(t, err)
	require.Len(t, refl.Seen(), 1)
	assert.Nil(t, refl.Seen()[0].Schema)
	assert.Equal(t, []string{"read_file"}, asked)
}

// TestRunReflectorFailure: a reflector error or panic means Fail, the
// strategy is not asked, and the error is logged.
func TestRunReflectorFailure(t *testing.T) {
	tests := []struct {
		name      string
		reflector reflection.Reflector
		wantLevel string
		wantError string
	}{
		{
			name:      "internal error",
			reflector: &fakeReflector{err: fmt.Errorf("llm: status 500: %w", reflection.ErrInternal)},
			wantLevel: "ERROR",
			wantError: "llm: status 500: reflection: internal reflector error",
		},
		{
			name:      "skipped",
			reflector: &fakeReflector{err: fmt.Errorf("llm: budget spent: %w", reflection.ErrSkipped)},
			wantLevel: "INFO",
			wantError: "llm: budget spent: reflection: reflector skipped analysis",
		},
		{
			name:      "plain error",
			reflector: &fakeReflector{err: errors.New("oops")},
			wantLevel: "ERROR",
			wantError: "oops",
		},
		{
			name: "panic",
			reflector: reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				panic("reflector bug")
			}),
			wantLevel: "ERROR",
			wantError: "reflector panicked: reflector bug",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, logger := newLogBuffer()
			strat := retryAfter(0)
			var decided []reflection.RecoveryAction
			tool := alwaysFails()
			d := reflection.NewDriver(
				reflection.WithReflector(tt.reflector), reflection.WithStrategy(strat),
				reflection.WithLogger(logger), reflection.WithLogTexts(),
				reflection.WithObserver(reflection.Observer{Decided: func(_ context.Context, _ int, a reflection.RecoveryAction) {
					decided = append(decided, a)
				}}),
			)
			got, err := d.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
			assert.Len(t, tool.Calls(), 1)
			assert.Empty(t, strat.Seen(), "strategy must not be asked")
			assert.Equal(t, []reflection.RecoveryAction{reflection.Fail{Reason: tt.wantError}}, decided)
			msg := "reflection: reflector failed"
			if tt.wantLevel == "INFO" { // a skip is no broken component
				msg = "reflection: reflector skipped the failure"
			}
			failed := logs.Find(t, tt.wantLevel, msg)
			require.Len(t, failed, 1, "logs: %+v", logs.Records(t))
			assert.Equal(t, tt.wantError, failed[0].Error)
		})
	}
}

// badAction is a RecoveryAction from outside the sealed set, made by
// embedding a variant.
type badAction struct{ reflection.Retry }

// TestRunBadStrategy: nil, a panic, a pointer or a foreign action count as
// Fail: one dispatch, soft result.
func TestRunBadStrategy(t *testing.T) {
	tests := []struct {
		name       string
		decide     func(int) reflection.RecoveryAction
		wantReason string
	}{
		{"nil action", func(int) reflection.RecoveryAction { return nil }, "recovery strategy returned no action"},
		{"pointer to Retry", func(int) reflection.RecoveryAction { return &reflection.Retry{} }, "recovery strategy returned unsupported action *reflection.Retry"},
		{"nil *Retry", func(int) reflection.RecoveryAction { return (*reflection.Retry)(nil) }, "recovery strategy returned unsupported action *reflection.Retry"},
		{"pointer to Skip", func(int) reflection.RecoveryAction { return &reflection.Skip{} }, "recovery strategy returned unsupported action *reflection.Skip"},
		{"embedded variant", func(int) reflection.RecoveryAction { return badAction{} }, "recovery strategy returned unsupported action reflection_test.badAction"},
		{"panic", func(int) reflection.RecoveryAction { panic("strategy bug") }, "recovery strategy panicked: strategy bug"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var decided []reflection.RecoveryAction
			tool := alwaysFails()
			d := reflection.NewDriver(
				reflection.WithReflector(recoverable()),
				reflection.WithStrategy(&fakeStrategy{decide: tt.decide}),
				reflection.WithObserver(reflection.Observer{Decided: func(_ context.Context, _ int, a reflection.RecoveryAction) {
					decided = append(decided, a)
				}}),
			)
			got, err := d.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
			assert.Len(t, tool.Calls(), 1)
			assert.Equal(t, []reflection.RecoveryAction{reflection.Fail{Reason: tt.wantReason}}, decided)
		})
	}
}

// TestRunSoftResults: Skip and Fail return the latest failure text, AskUser
// adds a sentence with the prompt; all with a nil error.
func TestRunSoftResults(t *testing.T) {
	tests := []struct {
		name        string
		final       reflection.RecoveryAction
		wantContent string
		wantLevel   string
		wantAction  string
	}{
		{"skip", reflection.Skip{Reason: "not needed"}, "boom 3", "INFO", "skip: not needed"},
		{"fail", reflection.Fail{Reason: "hopeless"}, "boom 3", "INFO", "fail: hopeless"},
		{
			"ask user", reflection.AskUser{Prompt: "may I use sudo?"},
			"boom 3\n\nA human decision is needed before this call can be retried: may I use sudo?",
			"INFO", "ask_user: may I use sudo?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, logger := newLogBuffer()
			tool := alwaysFails()
			strat := &fakeStrategy{decide: func(attempt int) reflection.RecoveryAction {
				if attempt < 2 {
					return reflection.Retry{}
				}
				return tt.final
			}}
			d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(strat),
				reflection.WithLogger(logger), reflection.WithLogTexts())
			got, err := d.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: tt.wantContent, IsError: true}, got)
			assert.Len(t, tool.Calls(), 3)
			var actions []string
			for _, r := range logs.Find(t, tt.wantLevel, "reflection: recovery decision") {
				actions = append(actions, r.Action+": "+r.Reason+r.Prompt)
			}
			assert.Equal(t, []string{tt.wantAction}, actions, "the reason is logged")
		})
	}
}

// TestRunAskUserContent checks the AskUser shape Run's rules fix: the failure
// text, a blank line, then one sentence that contains the prompt.
func TestRunAskUserContent(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
	}{
		{"plain prompt", "delete the branch?"},
		{"backoff prompt", "high-severity failure with correction available: permission denied"},
		{"empty prompt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			strat := &fakeStrategy{decide: func(int) reflection.RecoveryAction { return reflection.AskUser{Prompt: tt.prompt} }}
			d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(strat))
			got, err := d.Run(context.Background(), testCall, alwaysFails().dispatch)
			require.NoError(t, err)
			assert.True(t, got.IsError)
			assert.Equal(t, "call-1", got.ID)
			text, sentence, ok := strings.Cut(got.Content, "\n\n")
			require.True(t, ok, "content %q has no blank line", got.Content)
			assert.Equal(t, "boom 1", text)
			assert.Contains(t, sentence, tt.prompt)
			assert.Contains(t, strings.ToLower(sentence), "human decision is needed")
			assert.NotContains(t, sentence, "\n")
		})
	}
}

// TestRunAskUserFromBackoff: the stock strategy asks the user for a severe
// failure with a correction; the prompt reaches the model.
func TestRunAskUserFromBackoff(t *testing.T) {
	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "permission denied", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask an admin"},
		}
	}}
	tool := alwaysFails()
	got, err := reflection.NewDriver(reflection.WithReflector(refl)).Run(context.Background(), testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{
		ID:      "call-1",
		Content: "boom 1\n\nA human decision is needed before this call can be retried: high-severity failure with correction available: permission denied",
		IsError: true,
	}, got)
	assert.Len(t, tool.Calls(), 1)
}

func TestRunNilDispatch(t *testing.T) {
	for _, d := range []*reflection.Driver{reflection.NewDriver(), nil} {
		got, err := d.Run(context.Background(), testCall, nil)
		require.ErrorIs(t, err, reflection.ErrNilDispatch)
		assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: err.Error(), IsError: true}, got)
	}
}

func TestRunNilContext(t *testing.T) {
	var nilCtx context.Context
	var gotCtx context.Context
	got, err := reflection.NewDriver().Run(nilCtx, testCall, func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
		gotCtx = ctx
		return reflection.ToolResult{Content: "fine"}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "fine"}, got)
	require.NotNil(t, gotCtx, "dispatch must get a usable context")
	assert.NoError(t, gotCtx.Err())

	// And the failure path: the reflector gets a usable context too.
	refl := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		if ctx == nil {
			return reflection.FailureAnalysis{}, errors.New("nil ctx")
		}
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error}, nil
	})
	tool := &fakeTool{fails: 1}
	got, err = reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0))).Run(nilCtx, testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "ok"}, got)
}

// TestRunOddCalls: an empty tool name and input that is not JSON reach
// dispatch exactly as given.
func TestRunOddCalls(t *testing.T) {
	tests := []struct {
		name string
		call reflection.ToolCall
	}{
		{"empty tool name", reflection.ToolCall{ID: "c", Name: "", Input: json.RawMessage(`{}`)}},
		{"input not JSON", reflection.ToolCall{ID: "c", Name: "t", Input: json.RawMessage(`path=/tmp/x`)}},
		{"input a JSON array", reflection.ToolCall{ID: "c", Name: "t", Input: json.RawMessage(`[1,2]`)}},
		{"nil input", reflection.ToolCall{ID: "c", Name: "t"}},
		{"empty ID", reflection.ToolCall{Name: "t", Input: json.RawMessage(`{}`)}},
		{"all empty", reflection.ToolCall{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{fails: 1}
			refl := recoverable()
			d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0)))
			got, err := d.Run(context.Background(), tt.call, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: tt.call.ID, Content: "ok"}, got)
			assert.Equal(t, []reflection.ToolCall{tt.call, tt.call}, tool.Calls())
			require.Len(t, refl.Seen(), 1)
			assert.Equal(t, tt.call.Name, refl.Seen()[0].Tool)
			assert.Equal(t, tt.call.Input, refl.Seen()[0].Input)
		})
	}
}

func TestRunCancelBeforeFirstDispatch(t *testing.T) {
	cause := errors.New("user pressed stop")
	tests := []struct {
		name      string
		ctx       func() context.Context
		wantErrIs []error
	}{
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, []error{context.Canceled}},
		{"cancelled with cause", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(cause)
			return ctx
		}, []error{context.Canceled, cause}},
		{"deadline passed", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
			_ = cancel
			return ctx
		}, []error{context.DeadlineExceeded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx()
			refl := recoverable()
			called := false
			got, err := reflection.NewDriver(reflection.WithReflector(refl)).Run(ctx, testCall,
				func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
					called = true
					return reflection.ToolResult{}, nil
				})
			require.Error(t, err)
			assert.False(t, called, "dispatch must not run")
			assert.Empty(t, refl.Seen(), "reflector must not run")
			assert.ErrorIs(t, err, ctx.Err())
			for _, target := range tt.wantErrIs {
				assert.ErrorIs(t, err, target)
			}
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: err.Error(), IsError: true}, got)
		})
	}
}

// TestRunCancelAfterFailure: when ctx ends during a failing dispatch, Run
// returns the cancel error at once, without asking the reflector.
func TestRunCancelAfterFailure(t *testing.T) {
	for _, withObserver := range []bool{false, true} {
		t.Run(fmt.Sprintf("observer=%v", withObserver), func(t *testing.T) {
			refl := recoverable()
			strat := retryAfter(0)
			opts := []reflection.Option{reflection.WithReflector(refl), reflection.WithStrategy(strat)}
			if withObserver {
				opts = append(opts, reflection.WithObserver(reflection.Observer{
					Waiting: func(context.Context, int, time.Duration) {},
				}))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			got, err := reflection.NewDriver(opts...).Run(ctx, testCall, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				calls++
				cancel()
				return reflection.ToolResult{Content: "interrupted", IsError: true}, nil
			})
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "interrupted", IsError: true}, got)
			assert.Equal(t, 1, calls)
			assert.Empty(t, refl.Seen(), "reflector must not be asked")
			assert.Empty(t, strat.Seen(), "strategy must not be asked")
		})
	}
}

// TestRunCancelAfterRetriedFailure: a cancel during the second call ends Run
// with that call's failure text.
func TestRunCancelAfterRetriedFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	refl := recoverable()
	calls := 0
	got, err := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0))).Run(ctx, testCall,
		func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
			calls++
			if calls == 2 {
				cancel()
			}
			return reflection.ToolResult{}, fmt.Errorf("failure %d", calls)
		})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "failure 2", IsError: true}, got)
	assert.Equal(t, 2, calls)
	assert.Len(t, refl.Seen(), 1)
}

// TestRunEmptyFailureTextOnHardStop: the hard-stop result carries the latest
// failure text even when that text is empty; the error's text stands in only
// when no attempt failed.
func TestRunEmptyFailureTextOnHardStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err := reflection.NewDriver().Run(ctx, testCall, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		cancel()
		return reflection.ToolResult{IsError: true}, nil
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "", IsError: true}, got)
}

func TestWithLoggerNilLogsNothing(t *testing.T) {
	// A nil logger must not fall back to slog.Default.
	defaultLogs, defaultLogger := newLogBuffer()
	old := slog.Default()
	slog.SetDefault(defaultLogger)
	t.Cleanup(func() { slog.SetDefault(old) })

	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		if f.Attempt == 0 {
			return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`[]`)}}
		}
		return reflection.FailureAnalysis{IsRecoverable: true}
	}}
	for _, d := range []*reflection.Driver{
		reflection.NewDriver(reflection.WithLogger(nil), reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0))),
		reflection.NewDriver(reflection.WithLogger(nil), reflection.WithReflector(&fakeReflector{err: reflection.ErrInternal})),
		reflection.NewDriver(reflection.WithLogger(nil)),
	} {
		require.NotPanics(t, func() {
			got, _ := d.Run(context.Background(), testCall, alwaysFails().dispatch)
			require.True(t, got.IsError)
		})
	}
	_, _ = reflection.NewDriver(reflection.WithLogger(nil)).Run(context.Background(), testCall, nil)
	assert.Equal(t, 0, defaultLogs.Len(), "logs: %+v", defaultLogs.Records(t))
}

func TestContextWithTask(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"none", context.Background(), ""},
		{"set", reflection.ContextWithTask(context.Background(), "fix the build"), "fix the build"},
		{"empty", reflection.ContextWithTask(context.Background(), ""), ""},
		{"innermost wins", reflection.ContextWithTask(reflection.ContextWithTask(context.Background(), "outer"), "inner"), "inner"},
		{"survives derivation", func() context.Context {
			ctx, cancel := context.WithCancel(reflection.ContextWithTask(context.Background(), "t"))
			cancel()
			return ctx
		}(), "t"},
		{"other string keys ignored", context.WithValue(context.Background(), struct{}{}, "x"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reflection.TaskFromContext(tt.ctx); got != tt.want {
				t.Errorf("TaskFromContext = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunConcurrent shares one Driver among many goroutines, each with its
// own flaky tool; run with -race.
func TestRunConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu       sync.Mutex
			finished = map[string]int{}
		)
		refl := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Correction: &reflection.Correction{
				Type: reflection.InputFix, ModifiedInput: json.RawMessage(fmt.Sprintf(`{"attempt":%d}`, f.Attempt+1)),
			}}, nil
		})
		_, logger := newLogBuffer()
		d := reflection.NewDriver(
			reflection.WithReflector(refl),
			reflection.WithStrategy(reflection.NewExponentialBackoff(5)),
			reflection.WithLogger(logger),
			reflection.WithObserver(reflection.Observer{Finished: func(_ context.Context, calls int, res reflection.ToolResult, _ error) {
				mu.Lock()
				finished[res.ID] = calls
				mu.Unlock()
			}}),
		)
		const n = 64
		start := time.Now()
		var wg sync.WaitGroup
		results := make([]reflection.ToolResult, n)
		errs := make([]error, n)
		tools := make([]*fakeTool, n)
		for i := range n {
			tools[i] = &fakeTool{fails: i % 4, output: fmt.Sprintf("out %d", i)}
			wg.Go(func() {
				call := reflection.ToolCall{ID: fmt.Sprintf("call-%d", i), Name: "t", Input: json.RawMessage(`{}`)}
				results[i], errs[i] = d.Run(context.Background(), call, tools[i].dispatch)
			})
		}
		wg.Wait()
		// The slowest goroutine fails 3 times: 100ms + 200ms + 400ms.
		assert.Equal(t, 700*time.Millisecond, time.Since(start))
		for i := range n {
			require.NoError(t, errs[i], "goroutine %d", i)
			assert.Equal(t, reflection.ToolResult{ID: fmt.Sprintf("call-%d", i), Content: fmt.Sprintf("out %d", i)}, results[i])
			calls := tools[i].Calls()
			require.Len(t, calls, i%4+1, "goroutine %d", i)
			if i%4 > 0 {
				assert.JSONEq(t, fmt.Sprintf(`{"attempt":%d}`, i%4), string(calls[len(calls)-1].Input), "goroutine %d", i)
			}
			assert.Equal(t, i%4+1, finished[fmt.Sprintf("call-%d", i)], "goroutine %d observed calls", i)
		}
	})
}

// TestRunHardStopLogged: each hard stop is logged once at warn level with
// the error.
func TestRunHardStopLogged(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		strategy  reflection.RecoveryStrategy
		dispatch  reflection.DispatchFunc
		wantError string
	}{
		{"cancelled", cancelled, nil, alwaysFails().dispatch, "reflection: call stopped: context canceled"},
		{"nil dispatch", context.Background(), nil, nil, "reflection: nil dispatch func"},
		{"exhausted", context.Background(), retryAfter(0), alwaysFails().dispatch, `reflection: tool "read_file" still failing after 6 attempts`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, logger := newLogBuffer()
			d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(tt.strategy), reflection.WithLogger(logger))
			_, err := d.Run(tt.ctx, testCall, tt.dispatch)
			require.Error(t, err)
			assert.Equal(t, tt.wantError, err.Error())
			stops := logs.Find(t, "WARN", "reflection: call stopped")
			require.Len(t, stops, 1, "logs: %+v", logs.Records(t))
			assert.Equal(t, tt.wantError, stops[0].Error)
			assert.Equal(t, "read_file", stops[0].Tool)
		})
	}
}

// TestDriverWith: With adds options to a copy and leaves the Driver alone.
func TestDriverWith(t *testing.T) {
	known := func(name string) (reflection.ToolSchema, bool) {
		return reflection.ToolSchema{Name: name}, name == "cat"
	}
	change := &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "rm"}
	base := reflection.NewDriver(reflection.WithReflector(correctOnce(change)), reflection.WithStrategy(retryAfter(0)))
	narrowed := base.With(reflection.WithSchemas(known))

	tool := &fakeTool{fails: 1}
	_, err := narrowed.Run(context.Background(), testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "read_file", tool.Calls()[1].Name, "the copy drops a switch its lookup does not know")

	tool = &fakeTool{fails: 1}
	_, err = base.With().Run(context.Background(), testCall, tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "rm", tool.Calls()[1].Name, "the original keeps its settings")

	var nilDriver *reflection.Driver
	res, err := nilDriver.With(nil).Run(context.Background(), testCall, (&fakeTool{}).dispatch)
	require.NoError(t, err)
	assert.False(t, res.IsError)
}

func TestDriverRuntimeOptions(t *testing.T) {
	assert.Equal(t, reflection.RuntimeOptions{}, (*reflection.Driver)(nil).RuntimeOptions())
	assert.Equal(t, reflection.RuntimeOptions{}, reflection.NewDriver().RuntimeOptions())
	h, b := reflection.NewHealth(0, 0), reflection.NewRetryBudget(0)
	asker := reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) { return reflection.Answer{}, nil })
	logger := slog.New(slog.DiscardHandler)
	var finished int
	o := reflection.NewDriver(
		reflection.WithReflector(reflection.NoopReflector{}), reflection.WithAsker(asker), reflection.WithLogger(logger),
		reflection.WithObserver(reflection.Observer{Finished: func(context.Context, int, reflection.ToolResult, error) { finished++ }}),
		reflection.WithAttemptTimeout(time.Second), reflection.WithHealth(h), reflection.WithRetryBudget(b), reflection.WithLoopDetection(),
	).RuntimeOptions()
	assert.Equal(t, reflection.NoopReflector{}, o.Reflector)
	assert.NotNil(t, o.Asker)
	assert.Same(t, logger, o.Logger)
	require.NotNil(t, o.Observer)
	o.Observer.Finished(context.Background(), 1, reflection.ToolResult{}, nil)
	assert.Equal(t, 1, finished)
	assert.Equal(t, time.Second, o.AttemptTimeout)
	assert.Same(t, h, o.Health)
	assert.Same(t, b, o.RetryBudget)
	assert.True(t, o.LoopDetection)
}
