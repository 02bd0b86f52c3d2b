package reflection_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// sfVerifier answers with a fixed verdict and records what it was asked.
type sfVerifier struct {
	verdict reflection.Verdict
	result  reflection.ToolResult
	err     error
	panics  bool

	mu    sync.Mutex
	calls []reflection.ToolCall
	keys  []string
}

func (v *sfVerifier) verify(ctx context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	v.mu.Lock()
	v.calls = append(v.calls, call)
	v.keys = append(v.keys, reflection.IdempotencyKey(ctx))
	v.mu.Unlock()
	if v.panics {
		panic("ledger down")
	}
	return v.verdict, v.result, v.err
}

func (v *sfVerifier) asked() []reflection.ToolCall {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]reflection.ToolCall(nil), v.calls...)
}

// TestVerifierVerdicts: the verifier answers before the guard asks.
func TestVerifierVerdicts(t *testing.T) {
	tests := []struct {
		name      string
		v         *sfVerifier
		content   string
		outcome   reflection.Outcome
		reason    reflection.Reason
		charges   int32
		questions int
	}{
		{"applied", &sfVerifier{verdict: reflection.VerdictApplied, result: reflection.ToolResult{ID: "another", Content: "charge ch_1 found", IsError: true}},
			"charge ch_1 found", reflection.OutcomeSucceeded, "", 1, 0},
		{"not applied", &sfVerifier{verdict: reflection.VerdictNotApplied}, "charged", reflection.OutcomeSucceeded, "", 2, 0},
		{"unknown", &sfVerifier{verdict: reflection.VerdictUnknown}, "", reflection.OutcomeAskedUser, reflection.ReasonDeclined, 1, 1},
		{"an error", &sfVerifier{verdict: reflection.VerdictApplied, err: errors.New("ledger: 503")}, "", reflection.OutcomeAskedUser, reflection.ReasonDeclined, 1, 1},
		{"a panic", &sfVerifier{panics: true}, "", reflection.OutcomeAskedUser, reflection.ReasonDeclined, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSFCharge(1)
			asker := &sfAsker{}
			var verdicts []reflection.Verdict
			d := sfChargeDriver(reflection.WithVerifier(tt.v.verify), reflection.WithAsker(asker), reflection.WithEffectMemory(nil),
				reflection.WithObserver(reflection.Observer{Verified: func(_ context.Context, _ reflection.ToolCall, v reflection.Verdict, _ error) {
					verdicts = append(verdicts, v)
				}}))
			rep, err := d.RunWithReport(context.Background(), sfCallID("c-1", "charge_card", `{"amount":5}`), c.dispatch)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome)
			assert.Equal(t, tt.reason, rep.Reason)
			assert.Equal(t, "c-1", rep.Result.ID)
			if tt.content != "" {
				assert.Equal(t, reflection.ToolResult{ID: "c-1", Content: tt.content}, rep.Result)
			}
			assert.Equal(t, tt.charges, c.charges.Load())
			assert.Len(t, asker.asked(), tt.questions)
			if asked := tt.v.asked(); assert.Len(t, asked, 1) {
				assert.Equal(t, "charge_card", asked[0].Name)
				assert.JSONEq(t, `{"amount":5}`, string(asked[0].Input))
			}
			assert.Len(t, verdicts, 1)
		})
	}
}

// TestVerifierFindsAReissuedCharge is the quickstart's story: the model
// re-issues a charge whose first run timed out after charging, and the
// verifier finds the charge instead of a second one.
func TestVerifierFindsAReissuedCharge(t *testing.T) {
	c := newSFCharge(1)
	ledger := &sfVerifier{verdict: reflection.VerdictApplied, result: reflection.ToolResult{Content: "charged (found in the ledger)"}}
	noLedger := sfChargeDriver(reflection.WithStrategy(sfRetryN(0)))
	_, err := noLedger.Run(context.Background(), sfCallID("c-1", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)

	d := noLedger.With(reflection.WithVerifier(ledger.verify))
	res, err := d.Run(context.Background(), sfCallID("c-2", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "c-2", Content: "charged (found in the ledger)"}, res)
	assert.Equal(t, int32(1), c.charges.Load())

	res, err = d.Run(context.Background(), sfCallID("c-3", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content, "the verified call forgot the earlier one")
}

// TestVerifierKeyAndCtx: the verifier's ctx carries the call's key, and a
// verifier that returns after ctx ended stops the call.
func TestVerifierKeyAndCtx(t *testing.T) {
	t.Run("keyed", func(t *testing.T) {
		v := &sfVerifier{verdict: reflection.VerdictNotApplied}
		tool := reflectiontest.NewTool(reflectiontest.Error(context.DeadlineExceeded), reflectiontest.Succeed("sent"))
		d := sfChargeDriver(reflection.WithVerifier(v.verify), reflection.WithReflector(sfAlways(sfRecoverable(sfInputFix(`{"to":"b"}`)))))
		res, err := d.Run(reflection.ContextWithIdempotencyKey(context.Background(), "key-1"), sfCallID("k", "send_keyed", `{"to":"a"}`), tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, "sent", res.Content, "a changed keyed call, verified not applied, runs")
		assert.Equal(t, []string{"key-1"}, v.keys)
	})
	t.Run("past ctx", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			slow := func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				cancel()
				time.Sleep(time.Minute) // ignores ctx
				return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
			}
			c := newSFCharge(1)
			d := sfChargeDriver(reflection.WithVerifier(slow))
			res, err := d.Run(ctx, sfCallID("c", "charge_card", `{}`), c.dispatch)
			require.ErrorIs(t, err, context.Canceled)
			assert.True(t, res.IsError)
			assert.Equal(t, int32(1), c.charges.Load(), "nothing dispatched after the cancel")
		})
	})
}

// TestVerifierMachine drives the verification step by hand.
func TestVerifierMachine(t *testing.T) {
	d := sfChargeDriver(reflection.WithVerifier(func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
		return reflection.VerdictUnknown, reflection.ToolResult{}, nil
	}))
	r := d.NewRecovery(context.Background(), sfCallID("m", "charge_card", `{}`))
	sfStep[reflection.DispatchStep](t, r)
	r.Dispatched(reflection.ToolResult{}, context.DeadlineExceeded)
	sfStep[reflection.AnalyzeStep](t, r)
	r.Analyzed(sfRecoverable(nil), nil)
	step := sfStep[reflection.VerifyStep](t, r)
	assert.Equal(t, "charge_card", step.Call.Name)
	assert.Equal(t, 1, r.Calls(), "a verification is not a dispatch")
	assert.Panics(t, func() { r.Refuse(reflection.ErrCircuitOpen) }, "a verification cannot be refused")
	r.Verified(reflection.VerdictNotApplied, reflection.ToolResult{}, nil)
	sfStep[reflection.WaitStep](t, r)
	assert.Equal(t, "not_applied", reflection.VerdictNotApplied.String())
	assert.Equal(t, "verdict(9)", reflection.Verdict(9).String())
}
