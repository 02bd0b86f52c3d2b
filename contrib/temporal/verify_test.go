package reflectiontemporal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// answerOf is what a verifier answers.
type answerOf struct {
	verdict reflection.Verdict
	err     error
	panics  bool
}

// verifier answers a verification as told, and records the calls and keys
// it is asked about.
type verifier struct {
	answerOf

	mu    sync.Mutex
	calls []reflection.ToolCall
	keys  []string
}

func (v *verifier) verify(ctx context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	v.mu.Lock()
	v.calls = append(v.calls, call)
	v.keys = append(v.keys, reflection.IdempotencyKey(ctx))
	v.mu.Unlock()
	if v.panics {
		panic("the ledger is unreachable")
	}
	return v.verdict, reflection.ToolResult{Content: "charged once: found under its key"}, v.err
}

// TestVerifierRunsAsAnActivity runs a call of a tool that may have acted
// when it failed, with a Driver that has WithEffects and WithVerifier,
// through Driver.Run and through Run, whose worker has the verifier
// (WithWorkerVerifier): the effect guard asks the verifier instead of a
// human, and each verdict ends the call as under Driver.Run. The Driver's
// own verifier is not called in workflow code; the worker's gets the
// call's idempotency key.
func TestVerifierRunsAsAnActivity(t *testing.T) {
	charge := reflection.ToolCall{ID: "call_pay", Name: "charge_card", Input: []byte(`{"cents":1200}`)}
	outcomes := []reflectiontest.Outcome{reflectiontest.Fail("the payment gateway timed out"), reflectiontest.Succeed("charged")}
	tests := []struct {
		name    string
		v       answerOf
		outcome reflection.Outcome
		reason  reflection.Reason
		calls   int
	}{
		{"applied: the call ends with the verifier's result", answerOf{verdict: reflection.VerdictApplied}, reflection.OutcomeSucceeded, "", 1},
		{"not applied: the retry runs", answerOf{verdict: reflection.VerdictNotApplied}, reflection.OutcomeSucceeded, "", 2},
		{"unknown: the guard asks", answerOf{verdict: reflection.VerdictUnknown}, reflection.OutcomeAskedUser, reflection.ReasonAmbiguousEffect, 1},
		{"an error: the guard asks", answerOf{verdict: reflection.VerdictApplied, err: errors.New("ledger down")}, reflection.OutcomeAskedUser, reflection.ReasonAmbiguousEffect, 1},
		{"a panic: the guard asks", answerOf{panics: true}, reflection.OutcomeAskedUser, reflection.ReasonAmbiguousEffect, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			driver := func(v func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error)) *reflection.Driver {
				return reflection.NewDriver(effectIs(reflection.EffectNonIdempotent), reflection.WithVerifier(v))
			}
			var want reflection.Report
			synctest.Test(t, func(t *testing.T) {
				v := &verifier{answerOf: tt.v}
				var err error
				want, err = driver(v.verify).With(reflection.WithReflector(reflectiontest.NewReflector(recoverable("a timeout")))).
					RunWithReport(context.Background(), charge, reflectiontest.NewTool(outcomes...).Dispatch)
				require.NoError(t, err)
			})

			v := &verifier{answerOf: tt.v}
			tool := reflectiontest.NewTool(outcomes...)
			h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(recoverable("a timeout")), rt.WithWorkerVerifier(v.verify))
			h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-7"})
			notHere := func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				t.Error("workflow code called the Driver's verifier")
				return reflection.VerdictUnknown, reflection.ToolResult{}, nil
			}
			got := h.run(driver(notHere), charge)
			require.NoError(t, got.err)
			assert.Equal(t, withoutTimes(want), withoutTimes(got.rep))
			assert.Equal(t, tt.outcome, got.rep.Outcome)
			assert.Equal(t, tt.reason, got.rep.Reason)
			assert.Len(t, tool.Calls(), tt.calls)
			require.Len(t, v.calls, 1)
			assert.Equal(t, charge.Input, v.calls[0].Input)
			assert.Equal(t, []string{"order-7/call_pay"}, v.keys, "the verifier reads the call's key")
		})
	}

	t.Run("a worker without a verifier: the guard asks", func(t *testing.T) {
		tool := reflectiontest.NewTool(outcomes...)
		h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(recoverable("a timeout")))
		v := &verifier{answerOf: answerOf{verdict: reflection.VerdictApplied}}
		got := h.run(reflection.NewDriver(effectIs(reflection.EffectNonIdempotent), reflection.WithVerifier(v.verify)), charge)
		require.NoError(t, got.err)
		assert.Equal(t, reflection.OutcomeAskedUser, got.rep.Outcome)
		assert.Equal(t, reflection.ReasonAmbiguousEffect, got.rep.Reason)
		assert.Empty(t, v.calls)
	})
}
