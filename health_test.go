package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/caps"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The circuit breaker per tool (Health), through Driver.Run. Every test
// that depends on time runs in a synctest bubble: the Health is made inside
// it, so its clock is the bubble's.

const sfBreakerWords = "tool temporarily unavailable: circuit breaker open"

// sfIsBudgetRefusal reports whether content is a retry budget's refusal,
// after the failure text of the call whose retry it refused.
func sfIsBudgetRefusal(content string) bool {
	i := strings.LastIndex(content, "\n\n")
	return i > 0 && strings.Contains(content[i:], "retry budget")
}

// sfIsRefusal reports whether content is a breaker's refusal: its words
// (with the time it stays open, or without), alone or after the failure
// text of the call whose retry was refused.
func sfIsRefusal(content string) bool {
	if i := strings.LastIndex(content, "\n\n"); i >= 0 {
		content = content[i+2:]
	}
	return content == sfBreakerWords || strings.HasPrefix(content, sfBreakerWords+"; retry in about ")
}

// sfRunN runs call n times through d with dispatch, and fails the test on a
// hard error.
func sfRunN(t *testing.T, d *reflection.Driver, n int, call reflection.ToolCall, dispatch reflection.DispatchFunc) {
	t.Helper()
	for i := 0; i < n; i++ {
		_, err := d.Run(context.Background(), call, dispatch)
		require.NoError(t, err)
	}
}

func TestBreakerStateString(t *testing.T) {
	for s, want := range map[reflection.BreakerState]string{
		reflection.BreakerClosed:   "closed",
		reflection.BreakerOpen:     "open",
		reflection.BreakerHalfOpen: "half_open",
	} {
		assert.Equal(t, want, s.String())
	}
}

func TestErrCircuitOpenMatchesErrNoEffect(t *testing.T) {
	require.NotNil(t, reflection.ErrCircuitOpen)
	assert.ErrorIs(t, reflection.ErrCircuitOpen, reflection.ErrNoEffect)
	assert.ErrorIs(t, fmt.Errorf("dispatch: %w", reflection.ErrCircuitOpen), reflection.ErrNoEffect)
	assert.NotErrorIs(t, reflection.ErrCircuitOpen, reflection.ErrRetryBudget)
	assert.NotErrorIs(t, reflection.ErrNoEffect, reflection.ErrCircuitOpen, "ErrNoEffect is wider than ErrCircuitOpen")
}

func TestHealthUntrackedToolIsClosed(t *testing.T) {
	h := reflection.NewHealth(1, time.Second)
	assert.Equal(t, reflection.BreakerClosed, h.State("never_seen"))
}

// TestHealthThresholdAndOpenFor checks NewHealth's numbers and defaults: the
// threshold-th consecutive failure opens the breaker for openFor, then it is
// half-open.
func TestHealthThresholdAndOpenFor(t *testing.T) {
	tests := []struct {
		name          string
		threshold     int
		openFor       time.Duration
		wantThreshold int
		wantOpenFor   time.Duration
	}{
		{"defaults", 0, 0, reflection.DefaultBreakerThreshold, reflection.DefaultBreakerOpenFor},
		{"negative means the defaults", -1, -time.Second, reflection.DefaultBreakerThreshold, reflection.DefaultBreakerOpenFor},
		{"one failure, five seconds", 1, 5 * time.Second, 1, 5 * time.Second},
		{"four failures, two minutes", 4, 2 * time.Minute, 4, 2 * time.Minute},
		{"default threshold only", 0, 5 * time.Second, reflection.DefaultBreakerThreshold, 5 * time.Second},
		{"default openFor only", 2, 0, 2, reflection.DefaultBreakerOpenFor},
	}
	require.Equal(t, 3, reflection.DefaultBreakerThreshold)
	require.Equal(t, 60*time.Second, reflection.DefaultBreakerOpenFor)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(tt.threshold, tt.openFor)
				d := reflection.NewDriver(reflection.WithHealth(h))
				tool := reflectiontest.NewTool(reflectiontest.Fail("503 Service Unavailable"))
				call := sfCall("search", `{"q":"x"}`)
				for i := 1; i < tt.wantThreshold; i++ {
					sfRunN(t, d, 1, call, tool.Dispatch)
					require.Equal(t, reflection.BreakerClosed, h.State("search"), "after %d failures", i)
				}
				sfRunN(t, d, 1, call, tool.Dispatch)
				require.Equal(t, reflection.BreakerOpen, h.State("search"), "after %d failures", tt.wantThreshold)

				res, err := d.Run(context.Background(), call, tool.Dispatch)
				require.NoError(t, err)
				assert.True(t, sfIsRefusal(res.Content), "a call while open")
				assert.Len(t, tool.Calls(), tt.wantThreshold, "a refused call was dispatched")

				time.Sleep(tt.wantOpenFor - time.Nanosecond)
				assert.Equal(t, reflection.BreakerOpen, h.State("search"), "just before openFor")
				time.Sleep(time.Nanosecond)
				assert.Equal(t, reflection.BreakerHalfOpen, h.State("search"), "at openFor")
			})
		})
	}
}

// TestHealthRefusedCall checks the call a breaker refuses: the exact words,
// a soft error, OutcomeFailed, ReasonCircuitOpen, no Reflector asked, and no
// attempt counted.
func TestHealthRefusedCall(t *testing.T) {
	h := reflection.NewHealth(1, time.Hour)
	call := sfCall("search", `{"q":"x"}`)
	sfRunN(t, reflection.NewDriver(reflection.WithHealth(h)), 1, call, reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
	require.Equal(t, reflection.BreakerOpen, h.State("search"))

	refl := reflectiontest.NewReflector(sfRecoverable(nil))
	var ends sfEnds
	d := reflection.NewDriver(
		reflection.WithHealth(h),
		reflection.WithReflector(refl),
		reflection.WithStrategy(sfRetry(0)),
		reflection.WithObserver(ends.observer()),
	)
	tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	want := reflection.ToolResult{ID: call.ID, Content: sfBreakerWords + "; retry in about 3600s", IsError: true}

	res, err := d.Run(context.Background(), call, tool.Dispatch)
	require.NoError(t, err, "a refused call is a soft end")
	assert.Equal(t, want, res)

	rep, err := d.RunWithReport(context.Background(), call, tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, want, rep.Result)
	assert.Equal(t, reflection.OutcomeFailed, rep.Outcome, "outcome")
	assert.Equal(t, reflection.ReasonCircuitOpen, rep.Reason, "reason")
	assert.Empty(t, rep.Attempts, "a refused dispatch is not an attempt")
	assert.Empty(t, rep.Error)

	assert.Empty(t, tool.Calls(), "dispatched")
	assert.Empty(t, refl.Failures(), "the Reflector was asked")
	for _, end := range ends.all() {
		assert.Equal(t, 0, end.Calls, "CallEnd.Calls")
		assert.Equal(t, reflection.ReasonCircuitOpen, end.Reason, "CallEnd.Reason")
		assert.Equal(t, reflection.OutcomeFailed, end.Outcome, "CallEnd.Outcome")
	}
	assert.Len(t, ends.all(), 2)
}

// TestHealthConsultedBeforeEveryRetry checks that a breaker that opens
// during a call refuses its next retry, with the breaker's words after the
// failure text. A call counts once, so the threshold is 1 here.
func TestHealthConsultedBeforeEveryRetry(t *testing.T) {
	h := reflection.NewHealth(1, time.Hour)
	var asked sfCounter
	var ends sfEnds
	d := reflection.NewDriver(
		reflection.WithHealth(h),
		reflection.WithReflector(sfCountingReflector(sfAlways(sfRecoverable(nil)), &asked)),
		reflection.WithStrategy(sfRetry(0)),
		reflection.WithObserver(ends.observer()),
	)
	tool := reflectiontest.NewTool(reflectiontest.Fail("503 Service Unavailable"))
	call := sfCall("search", `{"q":"x"}`)
	rep, err := d.RunWithReport(context.Background(), call, tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: call.ID, Content: "503 Service Unavailable\n\n" + sfBreakerWords + "; retry in about 3600s",
		IsError: true}, rep.Result)
	assert.Equal(t, reflection.ReasonCircuitOpen, rep.Reason)
	assert.Equal(t, reflection.OutcomeFailed, rep.Outcome)
	assert.Len(t, tool.Calls(), 1, "dispatches")
	assert.Len(t, rep.Attempts, 1, "attempts in the report")
	assert.Equal(t, 1, asked.get(), "the Reflector is asked about the one failure only")
	if e := ends.all(); assert.Len(t, e, 1) {
		assert.Equal(t, 1, e[0].Calls, "CallEnd.Calls")
	}
}

// TestHealthToolChangeOntoOpenTool checks that the breaker is asked about the
// tool as it will run: a ToolChange onto an open tool is refused.
func TestHealthToolChangeOntoOpenTool(t *testing.T) {
	h := reflection.NewHealth(2, time.Hour)
	broken := reflectiontest.NewTool(reflectiontest.Fail("503"))
	sfRunN(t, reflection.NewDriver(reflection.WithHealth(h)), 2, sfCall("search_v2", `{}`), broken.Dispatch)
	require.Equal(t, reflection.BreakerOpen, h.State("search_v2"))

	refl := reflectiontest.NewReflector(sfRecoverable(sfToolChange("search_v2")))
	d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithReflector(refl), reflection.WithStrategy(sfRetry(0)))
	tool := reflectiontest.NewTool(reflectiontest.Fail("search is deprecated"), reflectiontest.Succeed("ok"))
	rep, err := d.RunWithReport(context.Background(), sfCall("search", `{}`), tool.Dispatch)
	require.NoError(t, err)
	reflectiontest.AssertCallNames(t, tool, "search")
	assert.True(t, sfIsRefusal(rep.Result.Content), "%q", rep.Result.Content)
	assert.Equal(t, reflection.ReasonCircuitOpen, rep.Reason)
	assert.Len(t, refl.Failures(), 1)
	assert.Equal(t, reflection.BreakerClosed, h.State("search"), "one failure of search, threshold two")
}

// TestHealthRecordsTheToolThatRan checks that a dispatch is recorded for the
// tool that ran, after a ToolChange.
func TestHealthRecordsTheToolThatRan(t *testing.T) {
	for _, bSucceeds := range []bool{true, false} {
		t.Run(fmt.Sprintf("b succeeds %v", bSucceeds), func(t *testing.T) {
			h := reflection.NewHealth(1, time.Hour)
			second := reflectiontest.Succeed("ok")
			want := reflection.BreakerClosed
			if !bSucceeds {
				second, want = reflectiontest.Fail("b failed"), reflection.BreakerOpen
			}
			tool := reflectiontest.NewTool(reflectiontest.Fail("a failed"), second)
			d := reflection.NewDriver(
				reflection.WithHealth(h),
				reflection.WithReflector(reflectiontest.NewReflector(sfRecoverable(sfToolChange("b")), reflection.FailureAnalysis{})),
				reflection.WithStrategy(sfRetry(0)),
			)
			_, err := d.Run(context.Background(), sfCall("a", `{}`), tool.Dispatch)
			require.NoError(t, err)
			reflectiontest.AssertCallNames(t, tool, "a", "b")
			assert.Equal(t, reflection.BreakerOpen, h.State("a"), "a failed once, threshold one")
			assert.Equal(t, want, h.State("b"))
		})
	}
}

// TestHealthSuccessClosesAndClears checks that a success clears the count of
// consecutive failures, and that a probe's success closes the breaker and
// clears it too.
func TestHealthSuccessClosesAndClears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := reflection.NewHealth(3, 10*time.Second)
		d := reflection.NewDriver(reflection.WithHealth(h))
		call := sfCall("search", `{}`)
		fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
		ok := reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch

		sfRunN(t, d, 2, call, fail)
		sfRunN(t, d, 1, call, ok)
		sfRunN(t, d, 2, call, fail)
		require.Equal(t, reflection.BreakerClosed, h.State("search"), "F F S F F: the success cleared the count")
		sfRunN(t, d, 1, call, fail)
		require.Equal(t, reflection.BreakerOpen, h.State("search"), "a third consecutive failure")

		time.Sleep(10 * time.Second)
		res, err := d.Run(context.Background(), call, ok)
		require.NoError(t, err)
		require.Equal(t, "ok", res.Content, "the probe runs")
		require.Equal(t, reflection.BreakerClosed, h.State("search"), "the probe's success closes")
		sfRunN(t, d, 2, call, fail)
		assert.Equal(t, reflection.BreakerClosed, h.State("search"), "the probe's success cleared the count")
		sfRunN(t, d, 1, call, fail)
		assert.Equal(t, reflection.BreakerOpen, h.State("search"))
	})
}

// TestHealthCallerCtxEndedCountsAsNeither checks that an attempt whose
// caller's ctx ended (cancelled, or its deadline passed) is neither a
// failure nor a success for the breaker.
func TestHealthCallerCtxEndedCountsAsNeither(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, d *reflection.Driver, call reflection.ToolCall)
	}{
		{
			name: "cancelled during dispatch",
			run: func(t *testing.T, d *reflection.Driver, call reflection.ToolCall) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				_, err := d.Run(ctx, call, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
					cancel()
					return reflection.ToolResult{}, errors.New("aborted")
				})
				require.ErrorIs(t, err, context.Canceled)
			},
		},
		{
			name: "cancelled, failure result",
			run: func(t *testing.T, d *reflection.Driver, call reflection.ToolCall) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				_, err := d.Run(ctx, call, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
					cancel()
					return reflection.ToolResult{Content: "503", IsError: true}, nil
				})
				require.ErrorIs(t, err, context.Canceled)
			},
		},
		{
			name: "deadline passed during dispatch",
			run: func(t *testing.T, d *reflection.Driver, call reflection.ToolCall) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_, err := d.Run(ctx, call, func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
					<-ctx.Done()
					return reflection.ToolResult{}, ctx.Err()
				})
				require.ErrorIs(t, err, context.DeadlineExceeded)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(2, time.Hour)
				d := reflection.NewDriver(reflection.WithHealth(h))
				call := sfCall("search", `{}`)
				fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
				sfRunN(t, d, 1, call, fail)
				tt.run(t, d, call)
				assert.Equal(t, reflection.BreakerClosed, h.State("search"), "the ended attempt was counted as a failure")
				sfRunN(t, d, 1, call, fail)
				assert.Equal(t, reflection.BreakerOpen, h.State("search"), "the ended attempt cleared the count")
			})
		})
	}
}

// TestHealthAttemptTimeoutIsAFailure checks that an attempt cut short by
// WithAttemptTimeout counts as a failure (the tool was too slow).
func TestHealthAttemptTimeoutIsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := reflection.NewHealth(1, time.Hour)
		d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithAttemptTimeout(time.Second))
		res, err := d.Run(context.Background(), sfCall("slow", `{}`), func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
			<-ctx.Done()
			return reflection.ToolResult{}, ctx.Err()
		})
		require.NoError(t, err)
		assert.Equal(t, `tool "slow" timed out after 1s`, res.Content)
		assert.Equal(t, reflection.BreakerOpen, h.State("slow"))
	})
}

// TestHealthRateLimitHint checks how long a breaker opened by a failure with
// a rate-limit hint stays open: max(openFor, min(hint, cap)); the analysis'
// own RetryAfter is not consulted.
func TestHealthRateLimitHint(t *testing.T) {
	const openFor = 10 * time.Second
	tests := []struct {
		name     string
		err      error
		opts     []reflection.Option
		wantOpen time.Duration
	}{
		{"no hint", errors.New("503"), nil, openFor},
		{"hint shorter than openFor", sfHintError{after: 5 * time.Second}, nil, openFor},
		{"hint longer than openFor", sfHintError{after: 30 * time.Second}, nil, 30 * time.Second},
		{"hint deep in the chain", fmt.Errorf("search: %w", fmt.Errorf("http: %w", sfHintError{after: 30 * time.Second})), nil, 30 * time.Second},
		{"hint above the cap", sfHintError{after: 30 * time.Second}, []reflection.Option{reflection.WithMaxRetryAfter(20 * time.Second)}, 20 * time.Second},
		{"hint above the default cap", sfHintError{after: 5 * time.Minute}, nil, caps.MaxRetryAfter},
		{"cap below openFor", sfHintError{after: 30 * time.Second}, []reflection.Option{reflection.WithMaxRetryAfter(5 * time.Second)}, openFor},
		{
			"hint only in the analysis", errors.New("503"),
			[]reflection.Option{reflection.WithReflector(sfAlways(reflection.FailureAnalysis{RootCause: "busy", RetryAfter: 30 * time.Second}))},
			openFor,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(1, openFor)
				d := reflection.NewDriver(append(tt.opts, reflection.WithHealth(h))...)
				tool := reflectiontest.NewTool(reflectiontest.Error(tt.err))
				sfRunN(t, d, 1, sfCall("search", `{}`), tool.Dispatch)
				require.Equal(t, reflection.BreakerOpen, h.State("search"))
				time.Sleep(tt.wantOpen - time.Nanosecond)
				assert.Equal(t, reflection.BreakerOpen, h.State("search"), "just before %v", tt.wantOpen)
				time.Sleep(time.Nanosecond)
				assert.Equal(t, reflection.BreakerHalfOpen, h.State("search"), "at %v", tt.wantOpen)
			})
		})
	}
}

// sfOpenAndWait opens tool's breaker in h (threshold 1) and waits openFor,
// so the next call is the probe.
func sfOpenAndWait(t *testing.T, d *reflection.Driver, h *reflection.Health, tool string, openFor time.Duration) {
	t.Helper()
	sfRunN(t, d, 1, sfCall(tool, `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
	require.Equal(t, reflection.BreakerOpen, h.State(tool))
	time.Sleep(openFor)
	require.Equal(t, reflection.BreakerHalfOpen, h.State(tool))
}

// TestHealthHalfOpenOneProbe checks that exactly one of many concurrent
// calls goes through a half-open breaker; the others are refused as if it
// were open. Then the probe decides: success closes, failure reopens for
// openFor.
func TestHealthHalfOpenOneProbe(t *testing.T) {
	const openFor = 10 * time.Second
	for _, probeSucceeds := range []bool{true, false} {
		t.Run(fmt.Sprintf("probe succeeds %v", probeSucceeds), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(1, openFor)
				d := reflection.NewDriver(reflection.WithHealth(h))
				sfOpenAndWait(t, d, h, "search", openFor)

				release := make(chan struct{})
				var dispatched atomic.Int32
				probe := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
					dispatched.Add(1)
					<-release
					if probeSucceeds {
						return reflection.ToolResult{Content: "ok"}, nil
					}
					return reflection.ToolResult{Content: "still down", IsError: true}, nil
				}
				const callers = 20
				results := make([]reflection.ToolResult, callers)
				var wg sync.WaitGroup
				for i := 0; i < callers; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := d.Run(context.Background(), sfCall("search", `{}`), probe)
						assert.NoError(t, err)
						results[i] = res
					}()
				}
				synctest.Wait()
				assert.Equal(t, int32(1), dispatched.Load(), "probes let through at once")
				assert.Equal(t, reflection.BreakerHalfOpen, h.State("search"), "while the probe runs")
				close(release)
				wg.Wait()

				refused := 0
				for _, res := range results {
					if sfIsRefusal(res.Content) {
						refused++
					}
				}
				assert.Equal(t, callers-1, refused, "calls refused while the probe ran")
				if probeSucceeds {
					assert.Equal(t, reflection.BreakerClosed, h.State("search"), "after the probe's success")
					return
				}
				assert.Equal(t, reflection.BreakerOpen, h.State("search"), "after the probe's failure")
				time.Sleep(openFor - time.Nanosecond)
				assert.Equal(t, reflection.BreakerOpen, h.State("search"), "reopened for openFor")
				time.Sleep(time.Nanosecond)
				assert.Equal(t, reflection.BreakerHalfOpen, h.State("search"))
			})
		})
	}
}

// TestHealthProbeWhoseCtxEndedFreesTheSlot checks that a probe whose
// caller's ctx ended leaves the breaker half-open and lets the next call be
// the probe.
func TestHealthProbeWhoseCtxEndedFreesTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const openFor = 10 * time.Second
		h := reflection.NewHealth(1, openFor)
		d := reflection.NewDriver(reflection.WithHealth(h))
		sfOpenAndWait(t, d, h, "search", openFor)

		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		done := make(chan error)
		go func() {
			_, err := d.Run(ctx, sfCall("search", `{}`), func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
				close(started)
				<-ctx.Done()
				return reflection.ToolResult{}, ctx.Err()
			})
			done <- err
		}()
		<-started
		res, err := d.Run(context.Background(), sfCall("search", `{}`), reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch)
		require.NoError(t, err)
		assert.True(t, sfIsRefusal(res.Content), "a second call while the probe runs")
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		assert.Equal(t, reflection.BreakerHalfOpen, h.State("search"), "the cancelled probe changed the state")

		next := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
		res, err = d.Run(context.Background(), sfCall("search", `{}`), next.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, "ok", res.Content, "the next call is the probe")
		assert.Len(t, next.Calls(), 1)
		assert.Equal(t, reflection.BreakerClosed, h.State("search"))
	})
}

// TestHealthUnknownToolsNotTracked checks that with WithSchemas a tool the
// lookup does not know never gets a breaker.
func TestHealthUnknownToolsNotTracked(t *testing.T) {
	h := reflection.NewHealth(1, time.Hour)
	d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithSchemas(sfKnown("search")))
	ghost := reflectiontest.NewTool(reflectiontest.Fail("unknown tool: serch"))
	sfRunN(t, d, 3, sfCall("serch", `{}`), ghost.Dispatch)
	assert.Len(t, ghost.Calls(), 3, "an unknown tool's calls were refused")
	assert.Equal(t, reflection.BreakerClosed, h.State("serch"), "an unknown tool was tracked")

	sfRunN(t, d, 1, sfCall("search", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
	assert.Equal(t, reflection.BreakerOpen, h.State("search"), "a known tool is tracked")
}

// TestHealthSharedByDrivers checks that two Drivers sharing a Health see the
// same breakers.
func TestHealthSharedByDrivers(t *testing.T) {
	h := reflection.NewHealth(2, time.Hour)
	one := reflection.NewDriver(reflection.WithHealth(h))
	two := reflection.NewDriver(reflection.WithHealth(h), reflection.WithRecoveryNotes())
	fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
	sfRunN(t, one, 1, sfCall("search", `{}`), fail)
	sfRunN(t, two, 1, sfCall("search", `{}`), fail)
	assert.Equal(t, reflection.BreakerOpen, h.State("search"))
	res, err := one.Run(context.Background(), sfCall("search", `{}`), fail)
	require.NoError(t, err)
	assert.True(t, sfIsRefusal(res.Content), "%q", res.Content)
}

// sfBreakerEvent is one BreakerChanged call.
type sfBreakerEvent struct {
	tool     string
	from, to reflection.BreakerState
}

// TestHealthBreakerChangedHook checks the Observer's BreakerChanged hook: it
// sees each change a dispatch makes, as a chain (each change starts where the
// one before it ended), and no call that changes nothing. Whether letting a
// probe through shows as its own change (open → half_open) is not pinned.
func TestHealthBreakerChangedHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var events []sfBreakerEvent
		h := reflection.NewHealth(2, 10*time.Second)
		d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithObserver(reflection.Observer{
			BreakerChanged: func(_ context.Context, tool string, from, to reflection.BreakerState) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, sfBreakerEvent{tool, from, to})
			},
		}))
		got := func() []sfBreakerEvent {
			mu.Lock()
			defer mu.Unlock()
			return append([]sfBreakerEvent(nil), events...)
		}
		call := sfCall("search", `{}`)
		fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
		ok := reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch

		sfRunN(t, d, 1, call, fail)
		assert.Empty(t, got(), "one failure changes no state")
		sfRunN(t, d, 1, call, fail)
		sfRunN(t, d, 1, call, ok) // refused: no dispatch
		assert.Equal(t, []sfBreakerEvent{{"search", reflection.BreakerClosed, reflection.BreakerOpen}}, got(), "opening")

		time.Sleep(10 * time.Second)
		sfRunN(t, d, 1, call, fail)
		afterFailedProbe := got()
		time.Sleep(10 * time.Second)
		sfRunN(t, d, 1, call, ok)
		afterGoodProbe := got()
		sfRunN(t, d, 3, call, ok)
		all := got()

		assert.Equal(t, reflection.BreakerOpen, afterFailedProbe[len(afterFailedProbe)-1].to, "a failed probe ends open: %v", afterFailedProbe)
		assert.Greater(t, len(afterFailedProbe), 1, "a failed probe showed no change")
		assert.Equal(t, reflection.BreakerClosed, afterGoodProbe[len(afterGoodProbe)-1].to, "a probe that succeeds ends closed: %v", afterGoodProbe)
		assert.Equal(t, afterGoodProbe, all, "successes of a closed breaker change nothing")
		for i, e := range all {
			assert.Equal(t, "search", e.tool)
			assert.NotEqual(t, e.from, e.to, "event %d changes nothing: %v", i, e)
			if i > 0 {
				assert.Equal(t, all[i-1].to, e.from, "event %d does not start where %d ended: %v", i, i-1, all)
			}
			if e.to == reflection.BreakerHalfOpen {
				assert.Equal(t, reflection.BreakerOpen, e.from, "only an open breaker turns half-open: %v", e)
			}
		}
		assert.LessOrEqual(t, len(all), 5, "more changes than the calls could make: %v", all)
	})
}

// TestHealthCap checks that a Health holds at most 10,000 tools, forgetting
// closed ones first: an open breaker survives 10,000 other tools, and the
// forgotten tools read closed.
func TestHealthCap(t *testing.T) {
	const tools = 10_000
	h := reflection.NewHealth(2, time.Hour)
	d := reflection.NewDriver(reflection.WithHealth(h))
	fail := reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch
	sfRunN(t, d, 2, sfCall("hot", `{}`), fail)
	require.Equal(t, reflection.BreakerOpen, h.State("hot"))

	name := func(i int) string { return fmt.Sprintf("tool-%05d", i) }
	for i := 0; i < tools; i++ {
		sfRunN(t, d, 1, sfCall(name(i), `{}`), fail)
	}
	assert.Equal(t, reflection.BreakerOpen, h.State("hot"), "an open breaker was forgotten before closed ones")
	for i := 0; i < tools; i++ {
		if s := h.State(name(i)); s != reflection.BreakerClosed {
			t.Fatalf("State(%s) = %v after one failure, want closed", name(i), s)
		}
	}
	// 10,001 tools have failed: at least one closed one was forgotten, so a
	// second failure of every one opens fewer than all of them.
	for i := 0; i < tools; i++ {
		sfRunN(t, d, 1, sfCall(name(i), `{}`), fail)
	}
	open := 0
	for i := 0; i < tools; i++ {
		if h.State(name(i)) == reflection.BreakerOpen {
			open++
		}
	}
	assert.Less(t, open, tools, "every tool kept its count: nothing was forgotten")
	assert.Positive(t, open, "the second failures opened nothing")
	assert.Equal(t, reflection.BreakerOpen, h.State("hot"))
}

// TestHealthEveryFailureCounts checks that a panic and a failure that had no
// effect are failures for the breaker like any other.
func TestHealthEveryFailureCounts(t *testing.T) {
	for name, o := range map[string]reflectiontest.Outcome{
		"panic":     reflectiontest.Panic("client crashed"),
		"no effect": reflectiontest.Error(fmt.Errorf("connection refused: %w", reflection.ErrNoEffect)),
		"error":     reflectiontest.Error(errors.New("EOF")),
		"result":    reflectiontest.Fail("500"),
	} {
		t.Run(name, func(t *testing.T) {
			h := reflection.NewHealth(1, time.Hour)
			sfRunN(t, reflection.NewDriver(reflection.WithHealth(h)), 1, sfCall("search", `{}`), reflectiontest.NewTool(o).Dispatch)
			assert.Equal(t, reflection.BreakerOpen, h.State("search"))
		})
	}
}

// TestHealthProbeSlotNotLeaked checks that a half-open breaker's probe slot
// goes to a call that is dispatched: a call that ends before its dispatch
// (its ctx ended first, or the loop detector refused it) must not keep the
// slot, or the breaker would refuse every later call for good.
func TestHealthProbeSlotNotLeaked(t *testing.T) {
	const openFor = 10 * time.Second
	tests := []struct {
		name string
		run  func(t *testing.T, h *reflection.Health) // a call that never reaches dispatch
	}{
		{"ctx cancelled before Run", func(t *testing.T, h *reflection.Health) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
			_, err := reflection.NewDriver(reflection.WithHealth(h)).Run(ctx, sfCall("search", `{}`), tool.Dispatch)
			require.ErrorIs(t, err, context.Canceled)
			require.Empty(t, tool.Calls())
		}},
		{"ctx cancelled by the AttemptStart hook", func(t *testing.T, h *reflection.Health) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithObserver(reflection.Observer{
				AttemptStart: func(ctx context.Context, _ int, _ reflection.ToolCall) context.Context {
					cancel()
					return ctx
				},
			}))
			_, _ = d.Run(ctx, sfCall("search", `{}`), func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{}, ctx.Err()
			})
		}},
		{"refused by the loop detector", func(t *testing.T, h *reflection.Health) {
			det := reflection.NewLoopDetector(1, 1)
			ctx := reflection.ContextWithLoopDetector(context.Background(), det)
			same := reflectiontest.NewTool(reflectiontest.Succeed("same"))
			_, err := reflection.NewDriver(reflection.WithLoopDetection()).Run(ctx, sfCall("search", `{}`), same.Dispatch)
			require.NoError(t, err)
			d := reflection.NewDriver(reflection.WithHealth(h), reflection.WithLoopDetection())
			_, err = d.Run(ctx, sfCall("search", `{}`), same.Dispatch)
			require.ErrorIs(t, err, reflection.ErrLoopDetected)
			require.Len(t, same.Calls(), 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(1, openFor)
				d := reflection.NewDriver(reflection.WithHealth(h))
				sfOpenAndWait(t, d, h, "search", openFor)
				tt.run(t, h)
				next := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
				res, err := d.Run(context.Background(), sfCall("search", `{}`), next.Dispatch)
				require.NoError(t, err)
				assert.Equal(t, "ok", res.Content, "the next call should be the probe")
				assert.Len(t, next.Calls(), 1)
				assert.Equal(t, reflection.BreakerClosed, h.State("search"))
			})
		})
	}
}
