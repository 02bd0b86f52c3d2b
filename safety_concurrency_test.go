package reflection_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// What calls share (a Health, a RetryBudget), under many goroutines at once.
// Run with -race; TestMain's goleak check makes sure every call's goroutine
// and timer is gone.

// TestSharedSafetyUnderLoad runs 2,000 calls at once through one Driver that
// shares one Health and one RetryBudget, over tools that fail, succeed, time
// out and flap, and checks the invariants: the budget stays within [0,
// capacity] at every dispatch and at the end, every call ends with a result
// the rules allow, and the breakers end where they must.
func TestSharedSafetyUnderLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			goroutines = 2000
			capacity   = 300
		)
		budget := reflection.NewRetryBudget(capacity)
		health := reflection.NewHealth(5, 2*time.Second)
		var ends sfEnds
		var outOfBounds atomic.Int64
		check := func() {
			if n := budget.Tokens(); n < 0 || n > capacity {
				outOfBounds.Add(1)
			}
		}
		var flaps atomic.Int64
		tools := map[string]reflection.DispatchFunc{
			"ok": func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				check()
				return reflection.ToolResult{Content: "ok"}, nil
			},
			"down": func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				check()
				return reflection.ToolResult{Content: "503 Service Unavailable", IsError: true}, nil
			},
			"slow": func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				check()
				time.Sleep(50 * time.Millisecond)
				return reflection.ToolResult{}, fmt.Errorf("slow: %w", context.DeadlineExceeded)
			},
			"flaky": func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				check()
				if flaps.Add(1)%2 == 0 {
					return reflection.ToolResult{Content: "ok"}, nil
				}
				return reflection.ToolResult{Content: "connection reset", IsError: true}, nil
			},
		}
		names := []string{"ok", "down", "slow", "flaky"}
		failureTexts := map[string]bool{
			"503 Service Unavailable":                   true,
			"slow: " + context.DeadlineExceeded.Error(): true,
			"connection reset":                          true,
			sfBreakerWords:                              true,
		}
		allowed := map[reflection.Reason]bool{
			"": true, reflection.ReasonStrategy: true, reflection.ReasonCircuitOpen: true, reflection.ReasonBudgetExhausted: true,
		}

		d := reflection.NewDriver(
			reflection.WithHealth(health),
			reflection.WithRetryBudget(budget),
			reflection.WithReflector(sfAlways(sfRecoverable(nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(10*time.Millisecond).WithJitter(0.5)),
			reflection.WithObserver(ends.observer()),
		)

		var wg sync.WaitGroup
		for i := 0; i < goroutines; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Spread the calls over a few seconds of virtual time, so
				// breakers open, turn half-open and probe while calls run.
				time.Sleep(time.Duration(i%40) * 100 * time.Millisecond)
				name := names[i%len(names)]
				res, err := d.Run(context.Background(), sfCall(name, fmt.Sprintf(`{"i":%d}`, i)), tools[name])
				if !assert.NoError(t, err, "call %d (%s)", i, name) {
					return
				}
				if res.IsError {
					assert.True(t, failureTexts[res.Content] || sfIsRefusal(res.Content) || sfIsBudgetRefusal(res.Content),
						"call %d (%s): unexpected content %q", i, name, res.Content)
				} else {
					assert.Equal(t, "ok", res.Content, "call %d (%s)", i, name)
					assert.Contains(t, []string{"ok", "flaky"}, name, "call %d succeeded", i)
				}
				check()
			}()
		}
		wg.Wait()

		all := ends.all()
		require.Len(t, all, goroutines, "every call ends once")
		byReason := map[reflection.Reason]int{}
		for _, e := range all {
			byReason[e.Reason]++
			assert.True(t, allowed[e.Reason], "reason %q", e.Reason)
			if e.Reason == reflection.ReasonCircuitOpen {
				assert.True(t, sfIsRefusal(e.Result.Content), "%q", e.Result.Content)
			}
		}
		t.Logf("reasons: %v; tokens left %d of %d", byReason, budget.Tokens(), capacity)
		assert.Zero(t, outOfBounds.Load(), "times the budget was seen out of [0, %d]", capacity)
		assert.GreaterOrEqual(t, budget.Tokens(), 0)
		assert.LessOrEqual(t, budget.Tokens(), capacity)
		assert.Equal(t, reflection.BreakerClosed, health.State("ok"))
		assert.NotEqual(t, reflection.BreakerClosed, health.State("down"), "a tool that always fails ends with its breaker closed")
		assert.Positive(t, byReason[reflection.ReasonCircuitOpen], "no call met an open breaker")
		assert.Positive(t, byReason[""], "no call succeeded")
	})
}

// TestRetryBudgetLosesNoUpdate checks the budget's arithmetic under
// contention: every take and every refill lands.
func TestRetryBudgetLosesNoUpdate(t *testing.T) {
	const goroutines = 400
	b := reflection.NewRetryBudget(4000)
	retryOnce := reflection.StrategyFunc(func(_ context.Context, _ reflection.FailureAnalysis, attempt, _ int) reflection.RecoveryAction {
		if attempt == 0 {
			return reflection.Retry{}
		}
		return reflection.Fail{Reason: "enough"}
	})
	d := sfBudgetDriver(b, retryOnce)
	run := func(dispatch reflection.DispatchFunc) {
		var wg sync.WaitGroup
		for i := 0; i < goroutines; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := d.Run(context.Background(), sfCall("fetch", `{}`), dispatch)
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
	}
	run(reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
	assert.Equal(t, 4000-5*goroutines, b.Tokens(), "after %d calls that each took one retry", goroutines)
	run(reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch)
	assert.Equal(t, 4000-4*goroutines, b.Tokens(), "after %d first-dispatch successes", goroutines)
}

// TestHealthLosesNoFailure checks the breaker's count under contention:
// threshold-1 concurrent failures leave it closed, one more opens it.
func TestHealthLosesNoFailure(t *testing.T) {
	const threshold = 500
	h := reflection.NewHealth(threshold, time.Hour)
	d := reflection.NewDriver(reflection.WithHealth(h))
	fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
	var wg sync.WaitGroup
	for i := 0; i < threshold-1; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := d.Run(context.Background(), sfCall("search", `{}`), fail)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Equal(t, reflection.BreakerClosed, h.State("search"), "after %d failures", threshold-1)
	sfRunN(t, d, 1, sfCall("search", `{}`), fail)
	assert.Equal(t, reflection.BreakerOpen, h.State("search"), "after %d failures", threshold)
}
