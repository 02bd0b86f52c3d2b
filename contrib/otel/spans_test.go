package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// TestSpanTree runs calls that recover, by InputFix and by ToolChange, and
// checks the tree: the run span under the caller's span, one attempt span per
// dispatch under it, and the tool's own span under the attempt that ran it.
func TestSpanTree(t *testing.T) {
	tests := []struct {
		name     string
		call     reflection.ToolCall
		script   []func(reflection.ToolCall) (reflection.ToolResult, error)
		analysis reflection.FailureAnalysis
		want     string
		calls    []string
	}{
		{
			name:     "input fix",
			call:     reflection.ToolCall{ID: "call_1", Name: "weather", Input: []byte(`{"city":"Lisbn"}`)},
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){okWhen(`{"city":"Lisbon"}`, "19°C")},
			analysis: analysis("the city is misspelled", inputFix(`{"city":"Lisbon"}`)),
			want: "agent\n" +
				"  reflection.run weather\n" +
				"    execute_tool weather\n" +
				"      weather.work\n" +
				"    execute_tool weather\n" +
				"      weather.work\n",
			calls: []string{"weather", "weather"},
		},
		{
			name:     "tool change",
			call:     reflection.ToolCall{ID: "call_2", Name: "search", Input: []byte(`{"q":"go"}`)},
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){bad("search is retired"), ok("3 results")},
			analysis: analysis("the tool is retired", toolChange("search_v2")),
			want: "agent\n" +
				"  reflection.run search\n" +
				"    execute_tool search\n" +
				"      search.work\n" +
				"    execute_tool search_v2\n" +
				"      search_v2.work\n",
			calls: []string{"search", "search_v2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tl := newTool(h.tp, tt.script...)
			d := h.driver(
				reflection.WithReflector(reflectiontest.NewReflector(tt.analysis)),
				reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
				reflection.WithSchemas(schemas("weather", "search", "search_v2")),
			)
			ctx, agent := h.tp.Tracer("agent").Start(context.Background(), "agent")
			res, err := d.Run(ctx, tt.call, tl.dispatch)
			agent.End()

			require.NoError(t, err)
			assert.False(t, res.IsError, "result: %+v", res)
			assert.Equal(t, tt.call.ID, res.ID)
			assert.Equal(t, tt.want, h.tree())
			assert.Equal(t, tt.calls, tl.names())
		})
	}
}

// TestSpanAttributes checks what the run span and the attempt spans say:
// gen_ai.operation.name only on the attempts, the tool and call id on both,
// the attempt's index, the outcome and the attempt count on the run.
func TestSpanAttributes(t *testing.T) {
	h := newHarness(t)
	tl := newTool(h.tp, bad("search is retired"), ok("3 results"))
	d := h.driver(
		reflection.WithReflector(reflectiontest.NewReflector(analysis("retired", toolChange("search_v2")))),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
	)
	call := reflection.ToolCall{ID: "call_7", Name: "search", Input: []byte(`{}`)}
	_, err := d.Run(context.Background(), call, tl.dispatch)
	require.NoError(t, err)

	runSpan := h.one(t, "reflection.run search")
	assert.Equal(t, map[string]any{
		"gen_ai.tool.name":    "search",
		"gen_ai.tool.call.id": "call_7",
		"reflection.outcome":  "succeeded",
		"reflection.attempts": int64(2),
	}, spanAttrs(runSpan))
	assert.Equal(t, codes.Unset, runSpan.Status().Code)
	assert.Equal(t, trace.SpanKindInternal, runSpan.SpanKind())

	first, second := h.one(t, "execute_tool search"), h.one(t, "execute_tool search_v2")
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      "search",
		"gen_ai.tool.call.id":   "call_7",
		"reflection.attempt":    int64(0),
		"error.type":            "tool_error",
	}, spanAttrs(first))
	assert.Equal(t, codes.Error, first.Status().Code)
	assert.Empty(t, first.Status().Description, "no texts without WithTexts")
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      "search_v2",
		"gen_ai.tool.call.id":   "call_7",
		"reflection.attempt":    int64(1),
	}, spanAttrs(second))
	assert.Equal(t, codes.Unset, second.Status().Code)
	for _, s := range []trace.SpanContext{first.Parent(), second.Parent()} {
		assert.Equal(t, runSpan.SpanContext().SpanID(), s.SpanID(), "attempt's parent")
	}
}

// TestRunOutcomes ends a call in each of the six ways and checks what Run
// returns and what the run span says: every outcome but success is an error
// status, named by error.type.
func TestRunOutcomes(t *testing.T) {
	recoverable := reflectiontest.NewReflector
	tests := []struct {
		name      string
		opts      func() []reflection.Option // fresh scripts on each call
		script    []func(reflection.ToolCall) (reflection.ToolResult, error)
		cancelled bool
		outcome   string
		attempts  int64
		hardErr   error
	}{
		{
			name:     "succeeded",
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){ok("done")},
			outcome:  "succeeded",
			attempts: 1,
		},
		{
			name: "skipped",
			opts: func() []reflection.Option {
				return []reflection.Option{
					reflection.WithReflector(recoverable(analysis("flaky", nil))),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Skip{Reason: "not worth it"})),
				}
			},
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){bad("boom")},
			outcome:  "skipped",
			attempts: 1,
		},
		{
			name: "asked user",
			opts: func() []reflection.Option {
				return []reflection.Option{
					reflection.WithReflector(recoverable(analysis("needs a human", nil))),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: "may I?"})),
				}
			},
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){bad("boom")},
			outcome:  "asked_user",
			attempts: 1,
		},
		{
			name:     "failed by a reflector error",
			opts:     func() []reflection.Option { return []reflection.Option{reflection.WithReflector(recoverable())} },
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){bad("boom")},
			outcome:  "failed",
			attempts: 1,
		},
		{
			name: "exhausted",
			opts: func() []reflection.Option {
				return []reflection.Option{
					reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
						return analysis("flaky", nil), nil
					})),
					reflection.WithStrategy(always),
				}
			},
			script:   []func(reflection.ToolCall) (reflection.ToolResult, error){bad("boom")},
			outcome:  "exhausted",
			attempts: 6,
			hardErr:  reflection.ErrToolRecoveryExhausted,
		},
		{
			name:      "stopped",
			script:    []func(reflection.ToolCall) (reflection.ToolResult, error){ok("never runs")},
			cancelled: true,
			outcome:   "stopped",
			attempts:  0,
			hardErr:   context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tl := newTool(h.tp, tt.script...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			var opts []reflection.Option
			if tt.opts != nil {
				opts = tt.opts()
			}
			d := h.driver(opts...)
			rep, err := d.RunWithReport(ctx, reflection.ToolCall{ID: "c", Name: "job"}, tl.dispatch)
			if tt.hardErr != nil {
				require.ErrorIs(t, err, tt.hardErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.outcome, rep.Outcome.String(), "report outcome")

			// The Driver's own Run, on a fresh copy of the same script,
			// returns the same.
			var plainOpts []reflection.Option
			if tt.opts != nil {
				plainOpts = tt.opts()
			}
			plain := reflection.NewDriver(plainOpts...)
			wantRes, wantErr := plain.Run(ctx, reflection.ToolCall{ID: "c", Name: "job"}, newTool(h.tp, tt.script...).dispatch)
			assert.Equal(t, wantRes, rep.Result, "result")
			assert.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "error")

			runSpan := h.one(t, "reflection.run job")
			got := spanAttrs(runSpan)
			assert.Equal(t, tt.outcome, got["reflection.outcome"])
			assert.Equal(t, tt.attempts, got["reflection.attempts"])
			assert.Len(t, h.named("execute_tool job"), int(tt.attempts))
			if tt.outcome == "succeeded" {
				assert.Equal(t, codes.Unset, runSpan.Status().Code)
				assert.NotContains(t, got, "error.type")
			} else {
				assert.Equal(t, codes.Error, runSpan.Status().Code)
				assert.Equal(t, tt.outcome, got["error.type"])
				assert.Empty(t, runSpan.Status().Description, "no texts without WithTexts")
			}
		})
	}
}

// quotaError is an error type of the test's own, to see error.type name it.
type quotaError struct{}

func (*quotaError) Error() string { return "quota exceeded" }

// TestAttemptErrors checks the attempt span of a dispatch that returns an
// error and of one that panics: both end, with an error status and an
// error.type, and the Driver still sees the panic as a failure.
func TestAttemptErrors(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		h := newHarness(t)
		errQuota := fmt.Errorf("calling the API: %w", &quotaError{})
		tl := newTool(h.tp, failing(errQuota), ok("fine"))
		d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("quota", nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
		_, err := d.Run(context.Background(), reflection.ToolCall{Name: "api"}, tl.dispatch)
		require.NoError(t, err)
		first := h.named("execute_tool api")[0]
		assert.Equal(t, semconv.ErrorType(errQuota).Value.AsString(), spanAttrs(first)["error.type"])
		assert.Equal(t, codes.Error, first.Status().Code)
	})
	t.Run("panic", func(t *testing.T) {
		h := newHarness(t)
		tl := newTool(h.tp, func(reflection.ToolCall) (reflection.ToolResult, error) { panic("nil map") })
		d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("bug", nil))),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Fail{Reason: "a bug"})))
		rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{Name: "api"}, tl.dispatch)
		require.NoError(t, err)
		require.Len(t, rep.Attempts, 1)
		assert.Contains(t, rep.Attempts[0].DispatchError, "nil map", "the Driver saw the panic's own value")
		attempt := h.one(t, "execute_tool api")
		assert.Equal(t, "panic", spanAttrs(attempt)["error.type"])
		assert.Equal(t, codes.Error, attempt.Status().Code)
		assert.Equal(t, "failed", spanAttrs(h.one(t, "reflection.run api"))["reflection.outcome"])
	})
}

// TestNilDispatch checks that a nil dispatch stays nil (the Driver refuses
// it) and the run span says so.
func TestNilDispatch(t *testing.T) {
	h := newHarness(t)
	_, err := h.driver().Run(context.Background(), reflection.ToolCall{Name: "x"}, nil)
	require.ErrorIs(t, err, reflection.ErrNilDispatch)
	assert.Equal(t, "reflection.run x\n", h.tree())
	assert.Equal(t, "stopped", spanAttrs(h.one(t, "reflection.run x"))["reflection.outcome"])
}

// TestDriverInsideATool runs, inside a tool, a second call through a
// Driver with the same Observer and a third through a Driver without it:
// the second is a call of its own under the tool's attempt, with its own
// events; the third adds nothing to any call, and its tool's spans nest
// under the attempt that ran them.
func TestDriverInsideATool(t *testing.T) {
	h := newHarness(t)
	inner := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("typo", inputFix(`{"n":2}`)))),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	bare := reflection.NewDriver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return analysis("again", nil), nil
	})), reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.Skip{Reason: "enough"})))
	leaf := newTool(h.tp, okWhen(`{"n":2}`, "two"))
	flaky := newTool(h.tp, bad("no"))
	outer := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		res, err := inner.Run(ctx, reflection.ToolCall{ID: "in", Name: "leaf", Input: []byte(`{"n":1}`)}, leaf.dispatch)
		if err != nil || res.IsError {
			return res, err
		}
		if _, err := bare.Run(ctx, reflection.ToolCall{Name: "flaky"}, flaky.dispatch); err != nil {
			return reflection.ToolResult{}, err
		}
		return reflection.ToolResult{ID: call.ID, Content: "outer: " + res.Content}, nil
	}
	res, err := h.driver().Run(context.Background(), reflection.ToolCall{ID: "out", Name: "outer"}, outer)
	require.NoError(t, err)
	assert.Equal(t, "outer: two", res.Content)
	assert.Equal(t, "reflection.run outer\n"+
		"  execute_tool outer\n"+
		"    reflection.run leaf\n"+
		"      execute_tool leaf\n"+
		"        leaf.work\n"+
		"      execute_tool leaf\n"+
		"        leaf.work\n"+
		"    flaky.work\n"+
		"    flaky.work\n", h.tree())
	assert.Empty(t, eventNames(h.one(t, "reflection.run outer")), "neither inner call's steps are the outer call's")
	assert.Equal(t, []string{"reflection.analysis", "reflection.decision", "reflection.correction"},
		eventNames(h.one(t, "reflection.run leaf")))
}

// TestConcurrentRuns runs many calls at once through one Telemetry and one
// Driver: each run span gets its own two attempts and its own events.
func TestConcurrentRuns(t *testing.T) {
	h := newHarness(t)
	refl := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return analysis("typo", inputFix(`{"ok":true}`)), nil
	})
	d := h.driver(reflection.WithReflector(refl), reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	tl := newTool(h.tp, okWhen(`{"ok":true}`, "fine"))
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			call := reflection.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "job", Input: []byte(`{}`)}
			res, err := d.Run(context.Background(), call, tl.dispatch)
			assert.NoError(t, err)
			assert.Equal(t, "fine", res.Content)
		})
	}
	wg.Wait()
	runs := h.named("reflection.run job")
	require.Len(t, runs, n)
	children := map[trace.SpanID][]string{}
	for _, s := range h.named("execute_tool job") {
		children[s.Parent().SpanID()] = append(children[s.Parent().SpanID()], spanAttrs(s)["gen_ai.tool.call.id"].(string))
	}
	for _, r := range runs {
		id := spanAttrs(r)["gen_ai.tool.call.id"].(string)
		assert.Equal(t, []string{id, id}, children[r.SpanContext().SpanID()], "attempts of %s", id)
		assert.Equal(t, []string{"reflection.analysis", "reflection.decision", "reflection.correction"}, eventNames(r), "events of %s", id)
	}
}

// TestAttemptTimeout checks that the tool receives the attempt span's
// context even under WithAttemptTimeout, which wraps it, and that the
// timeout has one name: error.type "timeout" with the limit on the attempt
// span, and the same limit under the same key on the analysis of it.
func TestAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		calls := 0
		slow := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			_, span := h.tp.Tracer("tool").Start(ctx, "slow.work")
			defer span.End()
			calls++
			if calls == 1 {
				<-ctx.Done()
				return reflection.ToolResult{}, ctx.Err()
			}
			return reflection.ToolResult{Content: "late but fine"}, nil
		}
		d := h.driver(reflection.WithAttemptTimeout(time.Second),
			reflection.WithReflector(reflectiontest.NewReflector(analysis("slow", nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
		res, err := d.Run(context.Background(), reflection.ToolCall{Name: "slow"}, slow)
		require.NoError(t, err)
		assert.Equal(t, "late but fine", res.Content)
		assert.Equal(t, "reflection.run slow\n"+
			"  execute_tool slow\n"+
			"    slow.work\n"+
			"  execute_tool slow\n"+
			"    slow.work\n", h.tree())
		first := h.named("execute_tool slow")[0]
		assert.Equal(t, "timeout", spanAttrs(first)["error.type"])
		assert.Equal(t, 1.0, spanAttrs(first)["reflection.attempt_timeout"])
		assert.Equal(t, codes.Error, first.Status().Code)
		analysis := eventsNamed(h.one(t, "reflection.run slow"), "reflection.analysis")
		require.Len(t, analysis, 1)
		assert.Equal(t, 1.0, analysis[0]["reflection.attempt_timeout"])
		assert.NotContains(t, spanAttrs(h.named("execute_tool slow")[1]), "reflection.attempt_timeout")
	})
}

// TestHookPanic checks that a panic in the host's own observer hook goes on
// up, as the Driver lets it: the call's span cannot end then (no hook is
// called after the panic), and the next call is traced as if nothing had
// happened.
func TestHookPanic(t *testing.T) {
	h := newHarness(t)
	panicking := true
	host := reflection.Observer{Finished: func(context.Context, int, reflection.ToolResult, error) {
		if panicking {
			panic("host bug")
		}
	}}
	d := reflection.NewDriver(reflection.WithObserver(reflection.JoinObservers(host, h.tel.Observer())))
	tl := newTool(h.tp, ok("fine"))
	require.PanicsWithValue(t, "host bug", func() {
		_, _ = d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
	})
	assert.Equal(t, "execute_tool job\n  job.work\n", h.tree(), "the attempt ended; the call's span did not")

	panicking = false
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "succeeded", spanAttrs(h.one(t, "reflection.run job"))["reflection.outcome"])
}

// TestNilTelemetry checks that a nil or zero Telemetry traces nothing and
// runs the call exactly as the Driver does.
func TestNilTelemetry(t *testing.T) {
	for _, tel := range []*reflectionotel.Telemetry{nil, {}} {
		tool := reflectiontest.NewTool(reflectiontest.Fail("boom"), reflectiontest.Succeed("ok"))
		d := reflection.NewDriver(
			reflection.WithObserver(tel.Observer()),
			reflection.WithReflector(reflectiontest.NewReflector(analysis("flaky", nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
		res, err := d.Run(context.Background(), reflection.ToolCall{ID: "1", Name: "job"}, tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "1", Content: "ok"}, res)
		rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{ID: "2", Name: "job"}, tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome)
		tel.RecordModelRequest(context.Background(), reflectionotel.ModelRequest{InputTokens: 1})
	}
}

// TestHardErrorIsKept checks that the error Run returns is the Driver's own,
// so errors.Is and errors.As still reach it.
func TestHardErrorIsKept(t *testing.T) {
	h := newHarness(t)
	d := h.driver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return analysis("flaky", nil), nil
	})), reflection.WithStrategy(always))
	tl := newTool(h.tp, bad("boom"))
	res, err := d.Run(context.Background(), reflection.ToolCall{ID: "x", Name: "job"}, tl.dispatch)
	var exhausted *reflection.ToolRecoveryExhaustedError
	require.True(t, errors.As(err, &exhausted), "err: %v", err)
	assert.Equal(t, 6, exhausted.Attempts)
	assert.Equal(t, reflection.ToolResult{ID: "x", Content: "boom", IsError: true}, res)
}

// TestNilContext checks that a nil ctx counts as context.Background(), as
// for the Driver's own Run.
func TestNilContext(t *testing.T) {
	h := newHarness(t)
	tl := newTool(h.tp, ok("fine"))
	//nolint:staticcheck // a nil context is what is being tested
	res, err := h.driver().Run(nil, reflection.ToolCall{ID: "n", Name: "job"}, tl.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "n", Content: "fine"}, res)
	assert.Equal(t, "reflection.run job\n  execute_tool job\n    job.work\n", h.tree())
}
