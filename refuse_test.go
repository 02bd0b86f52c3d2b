package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// Recovery.Refuse: how a runtime ends a call it will not go on with (a
// breaker before a dispatch, a budget at a wait), driven by hand.

var sfRefuseCall = sfCall("search", `{"q":"x"}`)

// sfMachine returns a Recovery that retries every failure after a second.
func sfMachine(opts ...reflection.Option) *reflection.Recovery {
	d := reflection.NewDriver(append([]reflection.Option{
		reflection.WithStrategy(sfRetry(time.Second)),
	}, opts...)...)
	return d.NewRecovery(context.Background(), sfRefuseCall)
}

// sfStrategyOf is a strategy that always answers a.
func sfStrategyOf(a reflection.RecoveryAction) reflection.RecoveryStrategy {
	return reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction { return a })
}

// sfStep returns r's next step as a T, failing the test otherwise.
func sfStep[T reflection.Step](t *testing.T, r *reflection.Recovery) T {
	t.Helper()
	step := r.Next()
	s, ok := step.(T)
	require.True(t, ok, "step %T %+v, want %T", step, step, *new(T))
	return s
}

// sfFailOnce drives r through one failed dispatch ("boom") and a recoverable
// analysis, up to its WaitStep.
func sfFailOnce(t *testing.T, r *reflection.Recovery) {
	t.Helper()
	sfStep[reflection.DispatchStep](t, r)
	r.Dispatched(reflection.ToolResult{Content: "boom", IsError: true}, nil)
	sfStep[reflection.AnalyzeStep](t, r)
	r.Analyzed(sfRecoverable(nil), nil)
	sfStep[reflection.WaitStep](t, r)
}

// sfBudgetWords is what the model reads when a retry budget refuses a
// retry.
const sfBudgetWords = "This call was not retried: the retry budget, which limits retries across calls, is spent. " +
	"Try again later, or go on without this tool."

func TestRefuse(t *testing.T) {
	custom := errors.New("reflection_test: maintenance window")
	tests := []struct {
		name    string
		before  func(t *testing.T, r *reflection.Recovery) // drive r to the step refused
		err     error
		content string
		reason  reflection.Reason
		calls   int
	}{
		{"first dispatch, breaker", func(t *testing.T, r *reflection.Recovery) { sfStep[reflection.DispatchStep](t, r) },
			reflection.ErrCircuitOpen, sfBreakerWords, reflection.ReasonCircuitOpen, 0},
		{"first dispatch, budget", func(t *testing.T, r *reflection.Recovery) { sfStep[reflection.DispatchStep](t, r) },
			reflection.ErrRetryBudget, sfBudgetWords, reflection.ReasonBudgetExhausted, 0},
		{"first dispatch, the runtime's own", func(t *testing.T, r *reflection.Recovery) { sfStep[reflection.DispatchStep](t, r) },
			custom, custom.Error(), reflection.ReasonRefused, 0},
		{"first dispatch, ErrNoEffect is the runtime's own", func(t *testing.T, r *reflection.Recovery) { sfStep[reflection.DispatchStep](t, r) },
			reflection.ErrNoEffect, reflection.ErrNoEffect.Error(), reflection.ReasonRefused, 0},
		{"wait, budget", sfFailOnce, reflection.ErrRetryBudget, "boom\n\n" + sfBudgetWords, reflection.ReasonBudgetExhausted, 1},
		{"wait, the runtime's own", sfFailOnce, custom, "boom", reflection.ReasonRefused, 1},
		{"wait, breaker", sfFailOnce, reflection.ErrCircuitOpen, "boom\n\n" + sfBreakerWords, reflection.ReasonCircuitOpen, 1},
		{"second dispatch, breaker", func(t *testing.T, r *reflection.Recovery) {
			sfFailOnce(t, r)
			r.Waited()
			sfStep[reflection.DispatchStep](t, r)
		}, reflection.ErrCircuitOpen, "boom\n\n" + sfBreakerWords, reflection.ReasonCircuitOpen, 1},
		{"second dispatch, the runtime's own", func(t *testing.T, r *reflection.Recovery) {
			sfFailOnce(t, r)
			r.Waited()
			sfStep[reflection.DispatchStep](t, r)
		}, custom, "boom", reflection.ReasonRefused, 1},
		{"second dispatch, budget", func(t *testing.T, r *reflection.Recovery) {
			sfFailOnce(t, r)
			r.Waited()
			sfStep[reflection.DispatchStep](t, r)
		}, reflection.ErrRetryBudget, "boom\n\n" + sfBudgetWords, reflection.ReasonBudgetExhausted, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sfMachine()
			tt.before(t, r)
			r.Refuse(tt.err)
			done := sfStep[reflection.DoneStep](t, r)
			assert.NoError(t, done.Err, "a refusal is a soft end")
			assert.Equal(t, reflection.ToolResult{ID: sfRefuseCall.ID, Content: tt.content, IsError: true}, done.Result)
			assert.Equal(t, reflection.OutcomeFailed, r.Outcome())
			assert.Equal(t, tt.reason, r.Reason())
			assert.Equal(t, tt.calls, r.Calls(), "the refused dispatch counted as a call")
			rep := r.Report()
			assert.Len(t, rep.Attempts, tt.calls, "attempts in the report")
			assert.Equal(t, tt.reason, rep.Reason)
			assert.Equal(t, done.Result, rep.Result)
			assert.Equal(t, done, r.Next(), "Next after the DoneStep")
		})
	}
}

// TestRefusePanicsAtAnalyzeAndAsk checks that Refuse at a step it is not for
// is a runtime bug.
func TestRefusePanicsAtAnalyzeAndAsk(t *testing.T) {
	t.Run("AnalyzeStep", func(t *testing.T) {
		r := sfMachine()
		sfStep[reflection.DispatchStep](t, r)
		r.Dispatched(reflection.ToolResult{}, errors.New("boom"))
		sfStep[reflection.AnalyzeStep](t, r)
		assert.Panics(t, func() { r.Refuse(reflection.ErrCircuitOpen) })
	})
	t.Run("AskStep", func(t *testing.T) {
		d := reflection.NewDriver(
			reflection.WithStrategy(sfStrategyOf(reflection.AskUser{Prompt: "retry?"})),
			reflection.WithAsker(&sfAsker{}),
		)
		r := d.NewRecovery(context.Background(), sfRefuseCall)
		sfStep[reflection.DispatchStep](t, r)
		r.Dispatched(reflection.ToolResult{}, errors.New("boom"))
		sfStep[reflection.AnalyzeStep](t, r)
		r.Analyzed(sfRecoverable(nil), nil)
		sfStep[reflection.AskStep](t, r)
		assert.Panics(t, func() { r.Refuse(reflection.ErrRetryBudget) })
	})
}

// TestRefuseAfterDoneChangesNothing checks that once Next has returned the
// DoneStep, Refuse is a no-op, whatever the ending.
func TestRefuseAfterDoneChangesNothing(t *testing.T) {
	tests := []struct {
		name  string
		drive func(t *testing.T, r *reflection.Recovery)
	}{
		{"success", func(t *testing.T, r *reflection.Recovery) {
			sfStep[reflection.DispatchStep](t, r)
			r.Dispatched(reflection.ToolResult{Content: "ok"}, nil)
		}},
		{"strategy's Fail", func(t *testing.T, r *reflection.Recovery) {
			sfStep[reflection.DispatchStep](t, r)
			r.Dispatched(reflection.ToolResult{Content: "boom", IsError: true}, nil)
			sfStep[reflection.AnalyzeStep](t, r)
			r.Analyzed(reflection.FailureAnalysis{RootCause: "no"}, nil)
		}},
		{"stopped", func(t *testing.T, r *reflection.Recovery) {
			sfStep[reflection.DispatchStep](t, r)
			r.Stop(context.Canceled)
		}},
		{"refused", func(t *testing.T, r *reflection.Recovery) {
			sfStep[reflection.DispatchStep](t, r)
			r.Refuse(errors.New("maintenance"))
		}},
	}
	for _, tt := range tests {
		for _, err := range []error{reflection.ErrCircuitOpen, reflection.ErrRetryBudget, errors.New("other")} {
			t.Run(fmt.Sprintf("%s/%v", tt.name, err), func(t *testing.T) {
				r := sfMachine(reflection.WithStrategy(sfStrategyOf(reflection.Fail{Reason: "no"})))
				tt.drive(t, r)
				done := sfStep[reflection.DoneStep](t, r)
				outcome, reason, report := r.Outcome(), r.Reason(), r.Report()
				assert.NotPanics(t, func() { r.Refuse(err) })
				assert.Equal(t, done, r.Next(), "the DoneStep changed")
				assert.Equal(t, outcome, r.Outcome())
				assert.Equal(t, reason, r.Reason())
				assert.Equal(t, report.Reason, r.Report().Reason)
				assert.Equal(t, report.Result, r.Report().Result)
			})
		}
	}
}
