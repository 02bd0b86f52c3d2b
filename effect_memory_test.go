package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The effect guard across calls: a model's re-issue of a call that may
// have acted is not dispatched blindly.

// sfCharge is a charge_card that times out after charging the first time,
// and counts its charges.
type sfCharge struct {
	charges atomic.Int32
	runs    atomic.Int32
	fail    atomic.Int32 // how many more runs time out after charging
}

func newSFCharge(timeouts int) *sfCharge {
	c := &sfCharge{}
	c.fail.Store(int32(timeouts))
	return c
}

func (c *sfCharge) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	c.runs.Add(1)
	c.charges.Add(1)
	if c.fail.Add(-1) >= 0 {
		return reflection.ToolResult{}, fmt.Errorf("charge_card: %w", context.DeadlineExceeded)
	}
	return reflection.ToolResult{ID: call.ID, Content: "charged"}, nil
}

// sfChargeDriver retries every failure, with the effect guard on.
func sfChargeDriver(opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append([]reflection.Option{
		reflection.WithEffects(sfEffects(map[string]reflection.Effect{
			"charge_card": reflection.EffectNonIdempotent, "lookup_charge": reflection.EffectReadOnly,
			"send_keyed": reflection.EffectKeyed,
		})),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetryN(3)),
	}, opts...)...)
}

func sfCallID(id, tool, input string) reflection.ToolCall {
	return reflection.ToolCall{ID: id, Name: tool, Input: json.RawMessage(input)}
}

// TestEffectMemoryReissue is the attack's reproduction: the model reads the
// soft error of a charge_card that timed out and issues it again.
func TestEffectMemoryReissue(t *testing.T) {
	c := newSFCharge(1)
	d := sfChargeDriver()
	first, err := d.RunWithReport(context.Background(), sfCallID("call-1", "charge_card", `{"amount":5,"card":"x"}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ReasonAmbiguousEffect, first.Reason)
	assert.Contains(t, first.Result.Content, "may already have taken effect")
	assert.Contains(t, first.Result.Content, "1 of its 1 dispatches", "the count is told")

	// The same business call, a new ID, its keys in another order.
	again, err := d.RunWithReport(context.Background(), sfCallID("call-2", "charge_card", `{ "card":"x", "amount":5 }`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, int32(1), c.charges.Load(), "the re-issue is not dispatched")
	assert.Equal(t, reflection.ReasonAmbiguousEffect, again.Reason)
	assert.Equal(t, reflection.OutcomeAskedUser, again.Outcome)
	assert.Equal(t, "call-2", again.Result.ID)
	assert.Contains(t, again.Result.Content, `"call-1"`, "the earlier call is named")
	assert.Contains(t, again.Result.Content, "may already have taken effect")
	assert.Contains(t, again.Result.Content, "context deadline exceeded", "the earlier failure is shown")

	// Another input is another call.
	other, err := d.Run(context.Background(), sfCallID("call-3", "charge_card", `{"amount":6,"card":"x"}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", other.Content)
}

// TestEffectMemoryApprovalDispatches: a human approves the re-issue; its
// success forgets the earlier call.
func TestEffectMemoryApprovalDispatches(t *testing.T) {
	c := newSFCharge(1)
	asker := &sfAsker{ans: reflection.Answer{Approve: true}}
	d := sfChargeDriver()
	_, err := d.Run(context.Background(), sfCallID("call-1", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)

	withHuman := d.With(reflection.WithAsker(asker))
	res, err := withHuman.Run(context.Background(), sfCallID("call-2", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "call-2", Content: "charged"}, res)
	if qs := asker.asked(); assert.Len(t, qs, 1) {
		assert.Contains(t, qs[0].Prompt, `"call-1"`)
		assert.Contains(t, qs[0].Failure.Error, "context deadline exceeded", "the earlier call's failure")
		assert.Zero(t, qs[0].Dispatches, "the re-issue has not run")
	}

	res, err = d.Run(context.Background(), sfCallID("call-3", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content, "the success forgot the earlier call")
	assert.Equal(t, int32(3), c.charges.Load())
}

// TestEffectMemoryScopes: a memory in ctx keeps one user's calls from
// another's; WithEffectMemory(nil) turns the Driver's off.
func TestEffectMemoryScopes(t *testing.T) {
	c := newSFCharge(1)
	d := sfChargeDriver()
	alice := reflection.ContextWithEffectMemory(context.Background(), reflection.NewEffectMemory(0))
	bob := reflection.ContextWithEffectMemory(context.Background(), reflection.NewEffectMemory(0))
	_, err := d.Run(alice, sfCallID("a-1", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	res, err := d.Run(bob, sfCallID("b-1", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content, "bob's identical call runs")
	res, err = d.Run(context.Background(), sfCallID("x-1", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content, "the Driver's own memory holds nothing of alice's")
	res, err = d.Run(alice, sfCallID("a-2", "charge_card", `{"amount":5}`), c.dispatch)
	require.NoError(t, err)
	assert.True(t, res.IsError, "alice's re-issue is held back")

	off := sfChargeDriver(reflection.WithEffectMemory(nil))
	c2 := newSFCharge(1)
	_, _ = off.Run(context.Background(), sfCallID("1", "charge_card", `{}`), c2.dispatch)
	res, err = off.Run(context.Background(), sfCallID("2", "charge_card", `{}`), c2.dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content, "no memory: the re-issue runs")
	scoped := reflection.ContextWithEffectMemory(context.Background(), reflection.NewEffectMemory(0))
	_, _ = off.Run(scoped, sfCallID("3", "charge_card", `{"n":1}`), newSFCharge(1).dispatch)
	res, err = off.Run(scoped, sfCallID("4", "charge_card", `{"n":1}`), c2.dispatch)
	require.NoError(t, err)
	assert.True(t, res.IsError, "a ctx memory applies even with the Driver's off")
}

// TestEffectMemoryWindow: past the window, a re-issue runs.
func TestEffectMemoryWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := reflection.NewEffectMemory(time.Minute)
		assert.Equal(t, time.Minute, m.Window())
		d := sfChargeDriver(reflection.WithEffectMemory(m))
		c := newSFCharge(1)
		_, _ = d.Run(context.Background(), sfCallID("1", "charge_card", `{}`), c.dispatch)
		assert.Equal(t, 1, m.Len())
		time.Sleep(time.Minute + time.Second)
		res, err := d.Run(context.Background(), sfCallID("2", "charge_card", `{}`), c.dispatch)
		require.NoError(t, err)
		assert.Equal(t, "charged", res.Content)
		assert.Zero(t, m.Len())
		assert.Equal(t, reflection.DefaultEffectWindow, reflection.NewEffectMemory(0).Window())
		assert.Equal(t, reflection.DefaultEffectWindow, reflection.NewEffectMemory(-time.Second).Window())
	})
}

// TestEffectMemoryBounded: a million distinct calls leave at most 10,000,
// the newest; a JSON input that is not an object is remembered by its bytes.
func TestEffectMemoryBounded(t *testing.T) {
	m := reflection.NewEffectMemory(0)
	now := time.Now()
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 50_000
	}
	for i := range n {
		call := reflection.ToolCall{Name: "send", Input: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}
		m.Remember(call, reflection.RememberedCall{ID: fmt.Sprint(i), At: now})
	}
	assert.Equal(t, 10_000, m.Len())
	_, ok := m.Recall(reflection.ToolCall{Name: "send", Input: json.RawMessage(`{"i":0}`)}, now)
	assert.False(t, ok, "the oldest is forgotten first")
	rc, ok := m.Recall(reflection.ToolCall{Name: "send", Input: json.RawMessage(fmt.Sprintf(`{"i":%d}`, n-1))}, now)
	assert.True(t, ok)
	assert.Equal(t, fmt.Sprint(n-1), rc.ID)

	for _, in := range []string{`"a string"`, `[1, 2]`, `not json`, ``} {
		call := reflection.ToolCall{Name: "odd", Input: json.RawMessage(in)}
		m.Remember(call, reflection.RememberedCall{ID: in, At: now})
		rc, ok := m.Recall(call, now)
		assert.True(t, ok, "input %q", in)
		assert.Equal(t, in, rc.ID)
		m.Forget(call)
		_, ok = m.Recall(call, now)
		assert.False(t, ok, "input %q forgotten", in)
	}
	var nilMemory *reflection.EffectMemory
	_, ok = nilMemory.Recall(reflection.ToolCall{}, now)
	assert.False(t, ok)
	nilMemory.Remember(reflection.ToolCall{}, reflection.RememberedCall{})
	nilMemory.Forget(reflection.ToolCall{})
}

// TestEffectGuardWholeCall is the attack's reproduction inside one call: an
// approved switch to a read-only tool and back asks again before the
// non-idempotent tool runs a second time.
func TestEffectGuardWholeCall(t *testing.T) {
	var runs []string
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		runs = append(runs, call.Name)
		if call.Name == "lookup_charge" {
			return reflection.ToolResult{Content: "lookup: 502", IsError: true}, nil
		}
		if len(runs) < 4 {
			return reflection.ToolResult{}, context.DeadlineExceeded
		}
		return reflection.ToolResult{Content: "charged"}, nil
	}
	answers := []reflection.FailureAnalysis{
		sfRecoverable(sfToolChange("lookup_charge")), // after charge_card fails: look it up
		sfRecoverable(sfToolChange("charge_card")),   // after the lookup fails: charge again
		sfRecoverable(nil),
	}
	var n int
	refl := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		a := answers[min(n, len(answers)-1)]
		n++
		return a, nil
	})
	asker := &sfAsker{ans: reflection.Answer{Approve: true}}
	d := sfChargeDriver(reflection.WithReflector(refl), reflection.WithAsker(asker), reflection.WithStrategy(sfRetryN(5)))
	res, err := d.Run(context.Background(), sfCallID("c", "charge_card", `{}`), dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content)
	qs := asker.asked()
	require.Len(t, qs, 3, "asked before the lookup, before charge_card ran again, and before its third run")
	assert.Equal(t, []string{"charge_card", "lookup_charge", "charge_card", "charge_card"}, runs)
	for i, q := range qs {
		assert.Contains(t, q.Prompt, "may already have taken effect", "question %d", i)
	}
	assert.Equal(t, []int{1, 2, 3}, []int{qs[0].Dispatches, qs[1].Dispatches, qs[2].Dispatches})
	assert.Equal(t, []int{1, 1, 2}, []int{qs[0].MayHaveActed, qs[1].MayHaveActed, qs[2].MayHaveActed})
}

// TestEffectGuardCountsApprovals: three approvals, four charges, and both
// the human and the model are told.
func TestEffectGuardCountsApprovals(t *testing.T) {
	c := newSFCharge(10)
	asker := &sfAsker{ans: reflection.Answer{Approve: true}}
	d := sfChargeDriver(reflection.WithAsker(asker), reflection.WithEffectMemory(nil))
	res, err := d.Run(context.Background(), sfCallID("c", "charge_card", `{}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, int32(4), c.charges.Load())
	qs := asker.asked()
	require.Len(t, qs, 3)
	for i, q := range qs {
		assert.Equal(t, i+1, q.Dispatches)
		assert.Equal(t, i+1, q.MayHaveActed)
	}
	assert.Contains(t, res.Content, "may already have taken effect: 4 of its 4 dispatches")
}

// TestEffectGuardWarnsStrategyQuestions: a question the strategy asks
// itself, after a dispatch that may have acted, begins with the guard's
// warning.
func TestEffectGuardWarnsStrategyQuestions(t *testing.T) {
	high := reflection.FailureAnalysis{IsRecoverable: true, RootCause: "card declined?", Severity: reflection.SeverityHigh,
		Correction: &reflection.Correction{Type: reflection.Escalate, Description: "ask"}}
	asker := &sfAsker{ans: reflection.Answer{}}
	d := sfChargeDriver(reflection.WithReflector(sfAlways(high)), reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithAsker(asker))
	res, err := d.RunWithReport(context.Background(), sfCallID("c", "charge_card", `{}`), newSFCharge(1).dispatch)
	require.NoError(t, err)
	qs := asker.asked()
	require.Len(t, qs, 1)
	guardQuestion := guardPrompt(t)
	assert.True(t, strings.HasPrefix(qs[0].Prompt, guardQuestion), "prompt %q", qs[0].Prompt)
	assert.True(t, strings.HasSuffix(qs[0].Prompt, "high-severity failure with correction available: card declined?"), "prompt %q", qs[0].Prompt)
	assert.Equal(t, reflection.ReasonDeclined, res.Reason)
	assert.Contains(t, res.Result.Content, "1 of its 1 dispatches")
}

// guardPrompt is the prompt of the effect guard's own question.
func guardPrompt(t *testing.T) string {
	asker := &sfAsker{ans: reflection.Answer{}}
	d := sfChargeDriver(reflection.WithAsker(asker), reflection.WithEffectMemory(nil))
	_, err := d.Run(context.Background(), sfCallID("g", "charge_card", `{}`), newSFCharge(1).dispatch)
	require.NoError(t, err)
	require.Len(t, asker.asked(), 1)
	return asker.asked()[0].Prompt
}

// TestEffectGuardJoinedErrors: an ErrNoEffect joined to another failure
// does not make the failure harmless.
func TestEffectGuardJoinedErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		harmless bool
	}{
		{"no effect", reflection.ErrNoEffect, true},
		{"joined with a timeout", errors.Join(reflection.ErrNoEffect, context.DeadlineExceeded), false},
		{"every one harmless", errors.Join(reflection.ErrNoEffect, reflection.ErrInputRejected, reflection.ErrCircuitOpen), true},
		{"wrapped join", fmt.Errorf("send: %w", errors.Join(reflection.ErrNoEffect, errors.New("reset"))), false},
		{"a join that drops a nil", errors.Join(nil, reflection.ErrNoEffect), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Error(tt.err), reflectiontest.Succeed("sent"))
			d := sfChargeDriver(reflection.WithEffectMemory(nil))
			res, err := d.Run(context.Background(), sfCallID("c", "charge_card", `{}`), tool.Dispatch)
			require.NoError(t, err)
			if tt.harmless {
				assert.Equal(t, "sent", res.Content)
				assert.Len(t, tool.Calls(), 2)
			} else {
				assert.True(t, res.IsError)
				assert.Len(t, tool.Calls(), 1)
			}
		})
	}
}

// TestEffectGuardEffectFuncPanics: an effect func that panics counts as
// undeclared, so the call is guarded.
func TestEffectGuardEffectFuncPanics(t *testing.T) {
	d := reflection.NewDriver(
		reflection.WithEffects(func(string) reflection.Effect { panic("no table") }),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetryN(3)),
	)
	c := newSFCharge(1)
	res, err := d.Run(context.Background(), sfCallID("1", "charge_card", `{}`), c.dispatch)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	_, err = d.Run(context.Background(), sfCallID("2", "charge_card", `{}`), c.dispatch)
	require.NoError(t, err)
	assert.Equal(t, int32(1), c.charges.Load(), "guarded, within the call and across calls")
}
