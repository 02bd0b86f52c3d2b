package reflection_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The tests of this file reproduce the findings of an attack on the root
// package (issue 9): each failed on the code before the fix.

// unwrapNilError is an error type with an Unwrap method whose nil pointer
// panics in every method: errors.Is walks into it.
type unwrapNilError struct{ inner error }

func (e *unwrapNilError) Error() string { return e.inner.Error() }
func (e *unwrapNilError) Unwrap() error { return e.inner }

// isPanicsError is an error whose Is method panics.
type isPanicsError struct{}

func (isPanicsError) Error() string     { return "is panics" }
func (isPanicsError) Is(error) bool     { panic("Is exploded") }
func (isPanicsError) As(any) bool       { panic("As exploded") }
func (isPanicsError) Unwrap() error     { panic("Unwrap exploded") }
func (isPanicsError) RetryAfter() int64 { return 0 }

// retryAfterPanics has a RetryAfter method that panics.
type retryAfterPanics struct{}

func (retryAfterPanics) Error() string             { return "rate limited" }
func (retryAfterPanics) RetryAfter() time.Duration { panic("RetryAfter exploded") }

// TestHardeningHostErrorMethodsCannotPanicRun: a Reflector's or a tool's
// broken error value, with a logger set, never makes Run panic.
func TestHardeningHostErrorMethodsCannotPanicRun(t *testing.T) {
	var typedNil *unwrapNilError
	tests := []struct {
		name      string
		toolErr   error
		reflErr   error
		wantCalls int
	}{
		{name: "reflector returns a typed nil with Unwrap", toolErr: errors.New("x"), reflErr: typedNil, wantCalls: 1},
		{name: "reflector error whose Is panics", toolErr: errors.New("x"), reflErr: isPanicsError{}, wantCalls: 1},
		{name: "tool error whose methods panic", toolErr: isPanicsError{}, wantCalls: 2},
		{name: "tool error whose RetryAfter panics", toolErr: retryAfterPanics{}, wantCalls: 2},
		{name: "tool returns a typed nil with Unwrap", toolErr: typedNil, wantCalls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refl := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{IsRecoverable: true}, tt.reflErr
			})
			var logs bytes.Buffer
			d := reflection.NewDriver(reflection.WithReflector(refl),
				reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
				reflection.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
				reflection.WithLogTexts())
			tool := reflectiontest.NewTool(reflectiontest.Error(tt.toolErr))
			var res reflection.ToolResult
			var err error
			require.NotPanics(t, func() { res, err = d.Run(context.Background(), fixCall, tool.Dispatch) })
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Len(t, tool.Calls(), tt.wantCalls)
			rep, err := d.RunWithReport(context.Background(), fixCall, reflectiontest.NewTool(reflectiontest.Error(tt.toolErr)).Dispatch)
			require.NoError(t, err)
			_, err = json.Marshal(rep)
			assert.NoError(t, err)
		})
	}
}

// TestHardeningNoSecretsInLogs: under the stock defaults with a logger, no
// failure text, root cause or model-chosen name reaches a record at Info or
// above; with WithLogTexts they do, scrubbed by the redactor.
func TestHardeningNoSecretsInLogs(t *testing.T) {
	const secret = "sk-live-0123456789abcdefghijklmnop"
	failure := `invalid arguments {"api_key":"` + secret + `"}`
	run := func(t *testing.T, refl reflection.Reflector, opts ...reflection.Option) string {
		var logs bytes.Buffer
		opts = append([]reflection.Option{reflection.WithReflector(refl),
			reflection.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))}, opts...)
		d := reflection.NewDriver(opts...)
		_, err := d.Run(context.Background(), fixCall, reflectiontest.NewTool(reflectiontest.Fail(failure)).Dispatch)
		require.NoError(t, err)
		return logs.String()
	}
	reflectors := map[string]reflection.Reflector{
		"stock defaults":  reflection.NoopReflector{},
		"reflector fails": reflectiontest.NewReflector(),
		"reflector skips": reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{}, fmt.Errorf("%s: %w", f.Error, reflection.ErrSkipped)
		}),
		"model-chosen tool": reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "exfiltrate_" + secret}}, nil
		}),
	}
	for name, refl := range reflectors {
		t.Run(name, func(t *testing.T) {
			opts := []reflection.Option{reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
				reflection.WithAllowedTools("cat")}
			out := run(t, refl, opts...)
			assert.NotEmpty(t, out)
			assert.NotContains(t, out, secret)
			assert.NotContains(t, out, "api_key")

			withTexts := run(t, refl, append(opts, reflection.WithLogTexts(), reflection.WithRedactor(reflection.RedactSecrets))...)
			assert.NotContains(t, withTexts, secret, "the redactor scrubs every logged text")
			assert.Contains(t, withTexts, "api_key", "the rest of the text is logged when asked")
		})
	}
}

// TestHardeningDuplicateKeysDropped: an InputFix whose object repeats a key,
// exactly or in another case, at any depth, is dropped; the retry runs the
// call as it was.
func TestHardeningDuplicateKeysDropped(t *testing.T) {
	many := make([]string, 0, 40)
	for i := range 40 {
		many = append(many, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	tests := []struct {
		name  string
		input string
		drop  bool
	}{
		{"exact duplicate", `{"path":"/safe/a","path":"/etc/passwd"}`, true},
		{"differing in case", `{"path":"/safe/ok","PATH":"/etc/passwd"}`, true},
		{"escaped spelling", `{"path":"/safe/ok","\u0050ath":"/etc/passwd"}`, true},
		{"Kelvin sign folds to k", `{"kind":"a","\u212aind":"b"}`, true},
		{"nested object", `{"opts":{"mode":"r","Mode":"w"}}`, true},
		{"inside an array", `{"list":[{"a":1,"A":2}]}`, true},
		{"many keys, then a duplicate", `{` + strings.Join(many, ",") + `,"K39":0}`, true},
		{"many keys, all distinct", `{` + strings.Join(many, ",") + `}`, false},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}`, false},
		{"a key equal to a value", `{"path":"path","p":"PATH"}`, false},
		{"escaped quote in a key", `{"a\"b":1,"a\"c":2}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(tt.input)}
			rec := reflectiontest.NewRecorder()
			d := reflection.NewDriver(
				reflection.WithReflector(reflectiontest.NewReflector(recoverableWith(fix))),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
				reflection.WithObserver(rec.Observer()))
			tool := reflectiontest.NewTool(reflectiontest.Fail("bad path"), reflectiontest.Succeed("ok"))
			_, err := d.Run(context.Background(), fixCall, tool.Dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			if tt.drop {
				assert.Equal(t, fixCall.Input, calls[1].Input)
				assert.Contains(t, rec.Events(), "corrected 0: input_fix dropped: modified_input has duplicate keys (exact or differing only in case)")
			} else {
				assert.JSONEq(t, tt.input, string(calls[1].Input))
			}
		})
	}
}

// TestHardeningInputCheck: the input check runs on the pair a correction
// brings together, whichever correction it is, before the call runs.
func TestHardeningInputCheck(t *testing.T) {
	// search takes anything; run_sql only a query starting with SELECT.
	check := func(tool string, input json.RawMessage) error {
		if tool == "run_sql" && !bytes.Contains(input, []byte(`"SELECT `)) {
			return fmt.Errorf("run_sql: query %s must start with SELECT", input)
		}
		return nil
	}
	known := func(name string) (reflection.ToolSchema, bool) { return reflection.ToolSchema{Name: name}, true }
	drop := json.RawMessage(`{"query":"DROP TABLE users"}`)
	tests := []struct {
		name     string
		start    reflection.ToolCall
		answers  []reflection.FailureAnalysis
		check    func(string, json.RawMessage) error
		wantLast reflection.ToolCall
		wantWhy  string
	}{
		{
			name:  "a ToolChange onto a tool whose schema the input fails",
			start: reflection.ToolCall{ID: "c", Name: "search", Input: drop},
			answers: []reflection.FailureAnalysis{
				recoverableWith(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "run_sql"}),
			},
			check: check, wantLast: reflection.ToolCall{ID: "c", Name: "search", Input: drop},
			wantWhy: "the corrected call fails the input check",
		},
		{
			name:  "an InputFix the current tool rejects",
			start: reflection.ToolCall{ID: "c", Name: "run_sql", Input: json.RawMessage(`{"query":"SELEC 1"}`)},
			answers: []reflection.FailureAnalysis{
				recoverableWith(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: drop}),
			},
			check: check, wantLast: reflection.ToolCall{ID: "c", Name: "run_sql", Input: json.RawMessage(`{"query":"SELEC 1"}`)},
			wantWhy: "the corrected call fails the input check",
		},
		{
			name:  "an InputFix that fits",
			start: reflection.ToolCall{ID: "c", Name: "run_sql", Input: json.RawMessage(`{"query":"SELEC 1"}`)},
			answers: []reflection.FailureAnalysis{
				recoverableWith(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"query":"SELECT 1"}`)}),
			},
			check: check, wantLast: reflection.ToolCall{ID: "c", Name: "run_sql", Input: json.RawMessage(`{"query":"SELECT 1"}`)},
		},
		{
			name:  "a check that panics drops the correction",
			start: reflection.ToolCall{ID: "c", Name: "search", Input: drop},
			answers: []reflection.FailureAnalysis{
				recoverableWith(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "run_sql"}),
			},
			check:    func(string, json.RawMessage) error { panic("check exploded") },
			wantLast: reflection.ToolCall{ID: "c", Name: "search", Input: drop},
			wantWhy:  "the input check panicked",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := reflectiontest.NewRecorder()
			d := reflection.NewDriver(
				reflection.WithReflector(reflectiontest.NewReflector(tt.answers...)),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
				reflection.WithSchemas(known), reflection.WithInputCheck(tt.check),
				reflection.WithObserver(rec.Observer()))
			tool := reflectiontest.NewTool(reflectiontest.Fail("no"), reflectiontest.Succeed("ok"))
			_, err := d.Run(context.Background(), tt.start, tool.Dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			assert.Equal(t, tt.wantLast, calls[1])
			if tt.wantWhy != "" {
				assert.Contains(t, strings.Join(rec.Events(), "\n"), "dropped: "+tt.wantWhy)
			}
		})
	}
}

// TestHardeningCancelInDispatchStartHook: a cancel from the DispatchStart
// hook stops the call before it runs with a dead ctx.
func TestHardeningCancelInDispatchStartHook(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	d := reflection.NewDriver(reflection.WithObserver(reflection.Observer{
		DispatchStart: func(context.Context, int, reflection.ToolCall) { cancel() },
	}))
	res, err := d.Run(ctx, fixCall, tool.Dispatch)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, tool.Calls(), "the call must not run with a dead ctx")
	assert.True(t, res.IsError)
}

// TestHardeningSecondChecks are second tests for checks that one test
// alone caught when the library was attacked with mutations.
func TestHardeningSecondChecks(t *testing.T) {
	t.Run("ctx is checked before a re-dispatch", func(t *testing.T) {
		// The cancel comes from the Corrected hook: after the wait and the
		// correction, just before the next call.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fix := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"b"}`)}
		tool := reflectiontest.NewTool(reflectiontest.Fail("no"), reflectiontest.Succeed("ok"))
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(recoverableWith(fix))),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
			reflection.WithObserver(reflection.Observer{Corrected: func(context.Context, int, reflection.Correction, bool, string) { cancel() }}))
		res, err := d.Run(ctx, fixCall, tool.Dispatch)
		require.ErrorIs(t, err, context.Canceled)
		assert.Len(t, tool.Calls(), 1)
		assert.Equal(t, "no", res.Content)
	})
	t.Run("a negative delay is no wait, not a deadline refusal", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			start := time.Now()
			tool := reflectiontest.NewTool(reflectiontest.Fail("no"), reflectiontest.Succeed("ok"))
			d := reflection.NewDriver(
				reflection.WithReflector(reflectiontest.NewReflector(recoverableWith(nil))),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: -time.Hour})))
			res, err := d.Run(ctx, fixCall, tool.Dispatch)
			require.NoError(t, err)
			assert.Equal(t, "ok", res.Content)
			assert.Zero(t, time.Since(start))
		})
	})
	t.Run("a cancel during a wait is a cancel, not the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			go func() {
				time.Sleep(time.Second)
				cancel()
			}()
			tool := reflectiontest.NewTool(reflectiontest.Fail("no"))
			d := reflection.NewDriver(
				reflection.WithReflector(reflectiontest.NewReflector(recoverableWith(nil))),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: time.Minute})))
			rep, err := d.RunWithReport(ctx, fixCall, tool.Dispatch)
			require.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			reflectiontest.AssertOutcome(t, rep, reflection.OutcomeStopped)
		})
	})
	t.Run("a panicking Error method in a reflector error", func(t *testing.T) {
		var decided []reflection.RecoveryAction
		d := reflection.NewDriver(
			reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, relPanickyError{}
			})),
			reflection.WithObserver(reflection.Observer{Decided: func(_ context.Context, _ int, a reflection.RecoveryAction) {
				decided = append(decided, a)
			}}))
		res, err := d.Run(context.Background(), fixCall, reflectiontest.NewTool(reflectiontest.Fail("no")).Dispatch)
		require.NoError(t, err)
		assert.Equal(t, "no", res.Content)
		require.Len(t, decided, 1)
		assert.Contains(t, decided[0].String(), "Error method panicked")
	})
}

// TestHardeningPanickingLookupAndFilter: a schema lookup or tool-change
// filter that panics cannot crash Run; the tool counts as unknown, the
// switch as not allowed.
func TestHardeningPanickingLookupAndFilter(t *testing.T) {
	change := recoverableWith(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat"})
	for name, opt := range map[string]reflection.Option{
		"lookup": reflection.WithSchemas(func(string) (reflection.ToolSchema, bool) { panic("lookup exploded") }),
		"filter": reflection.WithToolChangeFilter(func(string, string) bool { panic("filter exploded") }),
	} {
		t.Run(name, func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Fail("no"), reflectiontest.Succeed("ok"))
			d := reflection.NewDriver(opt,
				reflection.WithReflector(reflectiontest.NewReflector(change)),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})))
			var res reflection.ToolResult
			require.NotPanics(t, func() { res, _ = d.Run(context.Background(), fixCall, tool.Dispatch) })
			assert.Equal(t, "ok", res.Content)
			reflectiontest.AssertCallNames(t, tool, "read_file", "read_file")
		})
	}
}

// panickingHandler is a slog.Handler whose Handle panics.
type panickingHandler struct{}

func (panickingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panickingHandler) Handle(context.Context, slog.Record) error { panic("handler exploded") }
func (h panickingHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h panickingHandler) WithGroup(string) slog.Handler           { return h }

// TestHardeningPanickingLogHandler: a logger is the host's code too; a
// handler that panics loses its record, never the call (it crashed Run
// before).
func TestHardeningPanickingLogHandler(t *testing.T) {
	d := reflection.NewDriver(
		reflection.WithLogger(slog.New(panickingHandler{})),
		reflection.WithReflector(reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true})),
		reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
	)
	tool := reflectiontest.NewTool(reflectiontest.Fail("boom"), reflectiontest.Succeed("ok"))
	res, err := d.Run(context.Background(), reflection.ToolCall{ID: "1", Name: "t"}, tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "1", Content: "ok"}, res)
	assert.Len(t, tool.Calls(), 2)
}
