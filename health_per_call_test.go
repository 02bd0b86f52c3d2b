package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The breaker counts failing calls, not failing dispatches, and only the
// failures that speak of the tool's health.

// sfHTTPError is a failure with an HTTP status.
type sfHTTPError struct{ status int }

func (e sfHTTPError) Error() string   { return fmt.Sprintf("%d %s", e.status, http.StatusText(e.status)) }
func (e sfHTTPError) StatusCode() int { return e.status }

// TestHealthRecommendedSetUpRecovers is the recommended set-up's own
// retries: NewHealth(0, 0) opens after three failures and
// NewExponentialBackoff(3) makes a fourth dispatch; a lone call that fails
// three times and then succeeds succeeds, and leaves the breaker closed.
func TestHealthRecommendedSetUpRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := reflection.NewHealth(0, 0)
		d := reflection.NewDriver(
			reflection.WithHealth(h),
			reflection.WithReflector(sfAlways(sfRecoverable(nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		)
		tool := reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Fail("503"), reflectiontest.Fail("503"),
			reflectiontest.Succeed("ok"))
		res, err := d.Run(context.Background(), sfCall("search", `{}`), tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "call-sf", Content: "ok"}, res)
		assert.Len(t, tool.Calls(), 4)
		assert.Equal(t, reflection.BreakerClosed, h.State("search"))
	})
}

// TestHealthThreeCallsOpen: three different calls whose dispatches fail
// open the breaker, and a fourth call is refused with the time to wait.
func TestHealthThreeCallsOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := reflection.NewHealth(0, 0)
		d := reflection.NewDriver(reflection.WithHealth(h))
		fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
		for i := range 2 {
			sfRunN(t, d, 1, sfCall("search", fmt.Sprintf(`{"i":%d}`, i)), fail)
			assert.Equal(t, reflection.BreakerClosed, h.State("search"), "after call %d", i+1)
		}
		sfRunN(t, d, 1, sfCall("search", `{"i":2}`), fail)
		assert.Equal(t, reflection.BreakerOpen, h.State("search"))
		assert.Equal(t, reflection.DefaultBreakerOpenFor, h.RemainingDelay("search"))

		time.Sleep(20*time.Second + time.Millisecond)
		assert.Equal(t, 40*time.Second-time.Millisecond, h.RemainingDelay("search"))
		res, err := d.Run(context.Background(), sfCall("search", `{}`), fail)
		require.NoError(t, err)
		assert.Equal(t, sfBreakerWords+"; retry in about 40s", res.Content)

		time.Sleep(40 * time.Second)
		assert.Zero(t, h.RemainingDelay("search"), "half-open: a probe may go")
		assert.Zero(t, h.RemainingDelay("unknown"))
	})
}

// TestHealthRetryRefusedKeepsTheFailure: a call whose retry a breaker
// refuses tells the model its own failure first.
func TestHealthRetryRefusedKeepsTheFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := reflection.NewHealth(1, 30*time.Second)
		d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithReflector(sfAlways(sfRecoverable(nil))),
			reflection.WithStrategy(sfRetry(0)))
		tool := reflectiontest.NewTool(reflectiontest.Error(sfHTTPError{503}))
		res, err := d.Run(context.Background(), sfCall("search", `{}`), tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, "503 Service Unavailable\n\n"+sfBreakerWords+"; retry in about 30s", res.Content)
	})
}

// TestHealthNeutralFailures: one agent's invalid calls (a 400, a 404, an
// ErrInputRejected, joined rejections) never open the breaker that other
// agents' valid calls go through; 408, 425, 429 and 5xx count.
func TestHealthNeutralFailures(t *testing.T) {
	rejected := fmt.Errorf("mcp: invalid params: %w", reflection.ErrInputRejected)
	tests := []struct {
		name   string
		err    error
		counts bool
	}{
		{"400", sfHTTPError{400}, false},
		{"404 no such file", fmt.Errorf("no such file: %w", sfHTTPError{404}), false},
		{"422", sfHTTPError{422}, false},
		{"ErrInputRejected", rejected, false},
		{"joined rejections", errors.Join(rejected, sfHTTPError{400}), false},
		{"503 beside a rejection", errors.Join(rejected, sfHTTPError{503}), true},
		{"a 503 above a 400", fmt.Errorf("%w", sfWrapStatus{status: 503, err: sfHTTPError{400}}), true},
		{"ErrInputRejected under a 503", sfWrapStatus{status: 503, err: rejected}, false},
		{"408", sfHTTPError{408}, true},
		{"425", sfHTTPError{425}, true},
		{"429", sfHTTPError{429}, true},
		{"500", sfHTTPError{500}, true},
		{"no status", errors.New("connection reset"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := reflection.NewHealth(3, time.Minute)
			d := reflection.NewDriver(reflection.WithHealth(h))
			for i := range 3 {
				sfRunN(t, d, 1, sfCall("files", fmt.Sprintf(`{"i":%d}`, i)), reflectiontest.NewTool(reflectiontest.Error(tt.err)).Dispatch)
			}
			want := reflection.BreakerClosed
			if tt.counts {
				want = reflection.BreakerOpen
			}
			assert.Equal(t, want, h.State("files"))
		})
	}
}

// sfWrapStatus is a status of its own around another error.
type sfWrapStatus struct {
	status int
	err    error
}

func (e sfWrapStatus) Error() string   { return fmt.Sprintf("%d: %v", e.status, e.err) }
func (e sfWrapStatus) StatusCode() int { return e.status }
func (e sfWrapStatus) Unwrap() error   { return e.err }

// TestHealthInvalidCallsDoNotBlockOthers is the attack's reproduction: three
// invalid calls from one agent, then a hundred valid ones from another.
func TestHealthInvalidCallsDoNotBlockOthers(t *testing.T) {
	h := reflection.NewHealth(0, 0)
	d := reflection.NewDriver(reflection.WithHealth(h))
	tool := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if strings.Contains(string(call.Input), "missing") {
			return reflection.ToolResult{}, sfHTTPError{400}
		}
		return reflection.ToolResult{Content: "contents"}, nil
	}
	for range 3 {
		sfRunN(t, d, 1, sfCall("read_file", `{"path":"missing"}`), tool)
	}
	ok := 0
	for i := range 100 {
		res, err := d.Run(context.Background(), sfCall("read_file", fmt.Sprintf(`{"path":"f%d"}`, i)), tool)
		require.NoError(t, err)
		if !res.IsError {
			ok++
		}
	}
	assert.Equal(t, 100, ok, "valid calls that ran")
}

// TestHealthEveryDispatch is loopctl's counting, on request.
func TestHealthEveryDispatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := reflection.NewHealth(3, time.Minute)
		h := base.EveryDispatch()
		d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithReflector(sfAlways(sfRecoverable(nil))),
			reflection.WithStrategy(sfRetry(0)))
		tool := reflectiontest.NewTool(reflectiontest.Error(sfHTTPError{400}))
		res, err := d.Run(context.Background(), sfCall("search", `{}`), tool.Dispatch)
		require.NoError(t, err)
		assert.Len(t, tool.Calls(), 3, "the call's own third failure opens its breaker")
		assert.True(t, sfIsRefusal(res.Content), "the fourth dispatch is refused: %q", res.Content)
		assert.Equal(t, reflection.BreakerOpen, h.State("search"))
		assert.Equal(t, reflection.BreakerClosed, base.State("search"), "the Health it came from is unchanged")
	})
}

// TestHealthProbeFreedWhenAHookPanics: an Observer hook that panics during
// the half-open probe cannot wedge the breaker.
func TestHealthProbeFreedWhenAHookPanics(t *testing.T) {
	for _, hook := range []string{"DispatchStart", "AttemptStart", "BreakerChanged", "DispatchDone"} {
		t.Run(hook, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(1, time.Second)
				fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
				sfRunN(t, reflection.NewDriver(reflection.WithHealth(h)), 1, sfCall("search", `{}`), fail)
				time.Sleep(time.Second)

				var o reflection.Observer
				boom := func() { panic("observer exploded") }
				switch hook {
				case "DispatchStart":
					o.DispatchStart = func(context.Context, int, reflection.ToolCall) { boom() }
				case "AttemptStart":
					o.AttemptStart = func(context.Context, int, reflection.ToolCall) context.Context { boom(); return nil }
				case "BreakerChanged":
					o.BreakerChanged = func(context.Context, string, reflection.BreakerState, reflection.BreakerState) { boom() }
				case "DispatchDone":
					o.DispatchDone = func(context.Context, int, reflection.ToolResult, error) { boom() }
				}
				panicky := reflection.NewDriver(reflection.WithHealth(h), reflection.WithObserver(o))
				assert.Panics(t, func() {
					_, _ = panicky.Run(context.Background(), sfCall("search", `{}`), fail)
				})

				if hook == "DispatchDone" {
					// The probe ran and failed before the hook: the breaker
					// opened again, for its open time, and no more.
					time.Sleep(time.Second)
				}
				healthy := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
				res, err := reflection.NewDriver(reflection.WithHealth(h)).Run(context.Background(), sfCall("search", `{}`), healthy.Dispatch)
				require.NoError(t, err)
				assert.Equal(t, "ok", res.Content, "the next call is let through as the probe")
				assert.Equal(t, reflection.BreakerClosed, h.State("search"))
			})
		})
	}
}

// TestHealthManyOpenBreakersNewTool: with every one of 10,000 breakers open,
// a new tool's first failure makes room at once.
func TestHealthManyOpenBreakersNewTool(t *testing.T) {
	h := reflection.NewHealth(1, time.Hour)
	d := reflection.NewDriver(reflection.WithHealth(h))
	fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
	for i := range 10_000 {
		sfRunN(t, d, 1, sfCall(fmt.Sprintf("tool-%d", i), `{}`), fail)
	}
	sfRunN(t, d, 1, sfCall("newcomer", `{}`), fail)
	assert.Equal(t, reflection.BreakerOpen, h.State("newcomer"))
}

// TestHealthConcurrentCallsCountOnce: calls that run at once, each failing
// several times, open the breaker by their number, not their dispatches.
func TestHealthConcurrentCallsCountOnce(t *testing.T) {
	h := reflection.NewHealth(5, time.Hour)
	d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetryN(3)))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool := reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Fail("503"), reflectiontest.Fail("503"),
				reflectiontest.Succeed("ok"))
			_, _ = d.Run(context.Background(), sfCall("search", fmt.Sprintf(`{"i":%d}`, i)), tool.Dispatch)
		}()
	}
	wg.Wait()
	assert.Equal(t, reflection.BreakerClosed, h.State("search"))
}

// sfRetryN retries at once, n times.
func sfRetryN(n int) reflection.RecoveryStrategy {
	return reflection.StrategyFunc(func(_ context.Context, _ reflection.FailureAnalysis, attempt, _ int) reflection.RecoveryAction {
		if attempt >= n {
			return reflection.Fail{Reason: "enough"}
		}
		return reflection.Retry{}
	})
}
