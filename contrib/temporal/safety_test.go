package reflectiontemporal_test

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestProcessStateIsRefused gives Run a Driver with a retry budget or loop
// detection: state shared across a process, which workflow code must not
// consult. Run refuses the Driver before any tool runs, with a
// non-retryable error that names what it refused. A Driver's Health is not
// refused: the breaker lives in the worker (TestWorkerHealth).
func TestProcessStateIsRefused(t *testing.T) {
	tests := []struct {
		name string
		opts []reflection.Option
		says string
	}{
		{"a retry budget", []reflection.Option{reflection.WithRetryBudget(reflection.NewRetryBudget(0))}, "WithRetryBudget"},
		{"loop detection", []reflection.Option{reflection.WithLoopDetection()}, "WithLoopDetection"},
		{"both, and a circuit breaker", []reflection.Option{
			reflection.WithHealth(reflection.NewHealth(0, 0)),
			reflection.WithRetryBudget(reflection.NewRetryBudget(0)),
			reflection.WithLoopDetection(),
		}, "WithRetryBudget, WithLoopDetection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
			h := newHarness(t, tool.Dispatch, nil)
			got := h.run(reflection.NewDriver(tt.opts...), readCall)

			require.ErrorIs(t, got.err, rt.ErrProcessState)
			var app *temporal.ApplicationError
			require.ErrorAs(t, got.err, &app)
			assert.Equal(t, rt.ErrorTypeStopped, app.Type())
			assert.True(t, app.NonRetryable())
			assert.ErrorContains(t, got.err, tt.says)
			assert.Empty(t, tool.Calls(), "no tool ran")
			reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
			assert.Equal(t, reflection.ReasonCanceled, got.rep.Reason, "the Reason of a runtime's Stop")
			assert.Empty(t, got.rep.Attempts)
			assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: errors.Unwrap(got.err).Error(), IsError: true}, got.res)
		})
	}
	t.Run("the same Driver without them", func(t *testing.T) {
		d := reflection.NewDriver(reflection.WithHealth(reflection.NewHealth(0, 0)), reflection.WithRetryBudget(reflection.NewRetryBudget(0)))
		tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
		got := newHarness(t, tool.Dispatch, nil).run(d.With(reflection.WithRetryBudget(nil)), readCall)
		require.NoError(t, got.err)
		assert.Len(t, tool.Calls(), 1)
	})
}

// keyTool is a keyed tool that fails ambiguously on its first run and
// records the idempotency key it reads from its ctx on every run.
type keyTool struct {
	mu   sync.Mutex
	keys []string
}

func (k *keyTool) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys = append(k.keys, reflection.IdempotencyKey(ctx))
	if len(k.keys) == 1 {
		return reflection.ToolResult{}, errors.New("the payment gateway timed out")
	}
	return reflection.ToolResult{Content: "charged once under " + reflection.IdempotencyKey(ctx)}, nil
}

// TestIdempotencyKeyMatchesDriver runs a keyed tool that fails ambiguously
// once under Driver.Run and under Run: both retry it (the effect guard lets
// a keyed tool retry unchanged), and the tool reads its key the same way,
// with reflection.IdempotencyKey, the same on both attempts: one Driver.Run
// mints, and the workflow ID and call ID under Run.
func TestIdempotencyKeyMatchesDriver(t *testing.T) {
	call := reflection.ToolCall{ID: "call_pay", Name: "charge_card", Input: []byte(`{"cents":1200}`)}
	d := func() *reflection.Driver { return reflection.NewDriver(effectIs(reflection.EffectKeyed)) }
	refl := func() reflection.Reflector { return reflectiontest.NewReflector(recoverable("a timeout")) }

	var underDriver keyTool
	want, err := d().With(reflection.WithReflector(refl())).RunWithReport(context.Background(), call, underDriver.dispatch)
	require.NoError(t, err)
	require.Len(t, underDriver.keys, 2)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), underDriver.keys[0])
	assert.Equal(t, underDriver.keys[0], underDriver.keys[1], "Driver.Run retried under the same key")

	var underRun keyTool
	h := newHarness(t, underRun.dispatch, refl())
	h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-7"})
	got := h.run(d(), call)
	require.NoError(t, got.err)
	assert.Equal(t, []string{"order-7/call_pay", "order-7/call_pay"}, underRun.keys, "Run retried under the same key")

	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
	assert.Equal(t, want.Outcome, got.rep.Outcome)
	assert.Equal(t, want.Reason, got.rep.Reason)
	require.Len(t, got.rep.Attempts, 2)
	assert.Equal(t, withoutTimes(want).Attempts[0], withoutTimes(got.rep).Attempts[0])
}
