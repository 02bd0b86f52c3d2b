package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cancelRig is one Run with scripted parts, each of which may end ctx. The
// tool fails with "boom N" unless succeedAt says otherwise.
type cancelRig struct {
	ctx    context.Context
	cancel context.CancelFunc

	// hooks, called with the attempt; any may cancel, block on ctx, etc.
	inDispatch  func(ctx context.Context, attempt int) (reflection.ToolResult, error)
	inReflector func(ctx context.Context, attempt int) (reflection.FailureAnalysis, error)
	inStrategy  func(ctx context.Context, attempt int) reflection.RecoveryAction
	strategy    reflection.RecoveryStrategy // used instead of inStrategy when set

	dispatches, analyses, decisions int
	stops                           []context.CancelFunc
}

// timeout gives the rig's ctx a deadline d from now.
func (r *cancelRig) timeout(d time.Duration) {
	ctx, stop := context.WithTimeout(r.ctx, d)
	r.ctx = ctx
	r.stops = append(r.stops, stop)
}

func (r *cancelRig) run(t *testing.T) (reflection.ToolResult, error) {
	t.Helper()
	refl := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		r.analyses++
		if r.inReflector != nil {
			return r.inReflector(ctx, f.Attempt)
		}
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error}, nil
	})
	strat := r.strategy
	if strat == nil {
		strat = reflection.StrategyFunc(func(ctx context.Context, _ reflection.FailureAnalysis, attempt, _ int) reflection.RecoveryAction {
			r.decisions++
			if r.inStrategy != nil {
				return r.inStrategy(ctx, attempt)
			}
			return reflection.Retry{Delay: time.Second}
		})
	}
	d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(strat))
	call := reflection.ToolCall{ID: "call_cancel", Name: "flaky", Input: []byte(`{}`)}
	return d.Run(r.ctx, call, func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
		attempt := r.dispatches
		r.dispatches++
		if r.inDispatch != nil {
			return r.inDispatch(ctx, attempt)
		}
		return reflection.ToolResult{Content: fmt.Sprintf("boom %d", attempt), IsError: true}, nil
	})
}

func failWith(attempt int) (reflection.ToolResult, error) {
	return reflection.ToolResult{Content: fmt.Sprintf("boom %d", attempt), IsError: true}, nil
}

var errHostGone = errors.New("host shut down")

// TestCancelEveryPoint ends ctx at every point of the loop, inside a
// synctest bubble: fake time shows how long Run took (zero or exactly the
// waits that ran before the cancel), and the bubble fails on any goroutine
// left behind.
func TestCancelEveryPoint(t *testing.T) {
	type want struct {
		err        error         // errors.Is target besides ctx.Err()
		elapsed    time.Duration // fake time Run took
		dispatches int
		analyses   int
		content    string // "" means: the error's text
	}
	tests := []struct {
		name  string
		setup func(r *cancelRig)
		want  want
	}{
		{
			name:  "cancelled before the first dispatch",
			setup: func(r *cancelRig) { r.cancel() },
			want:  want{err: context.Canceled},
		},
		{
			name: "cancelled with a cause before the first dispatch",
			setup: func(r *cancelRig) {
				ctx, cancel := context.WithCancelCause(r.ctx)
				r.ctx = ctx
				cancel(errHostGone)
			},
			want: want{err: errHostGone},
		},
		{
			name: "deadline already passed before the first dispatch",
			setup: func(r *cancelRig) {
				r.timeout(-time.Second)
			},
			want: want{err: context.DeadlineExceeded},
		},
		{
			name: "cancelled inside dispatch, which then fails",
			setup: func(r *cancelRig) {
				r.inDispatch = func(_ context.Context, attempt int) (reflection.ToolResult, error) {
					r.cancel()
					return failWith(attempt)
				}
			},
			want: want{err: context.Canceled, dispatches: 1, content: "boom 0"},
		},
		{
			name: "dispatch honours ctx and returns its error at the deadline",
			setup: func(r *cancelRig) {
				r.timeout(2 * time.Second)
				r.inDispatch = func(ctx context.Context, _ int) (reflection.ToolResult, error) {
					<-ctx.Done()
					return reflection.ToolResult{}, ctx.Err()
				}
			},
			want: want{err: context.DeadlineExceeded, elapsed: 2 * time.Second, dispatches: 1, content: context.DeadlineExceeded.Error()},
		},
		{
			name: "cancelled inside the third dispatch",
			setup: func(r *cancelRig) {
				r.inDispatch = func(_ context.Context, attempt int) (reflection.ToolResult, error) {
					if attempt == 2 {
						r.cancel()
					}
					return failWith(attempt)
				}
			},
			want: want{err: context.Canceled, elapsed: 2 * time.Second, dispatches: 3, analyses: 2, content: "boom 2"},
		},
		{
			name: "cancelled inside the reflector, which still answers; strategy retries",
			setup: func(r *cancelRig) {
				r.inReflector = func(context.Context, int) (reflection.FailureAnalysis, error) {
					r.cancel()
					return reflection.FailureAnalysis{IsRecoverable: true}, nil
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "reflector honours ctx: blocks until the deadline and returns an error",
			setup: func(r *cancelRig) {
				r.timeout(3 * time.Second)
				r.inReflector = func(ctx context.Context, _ int) (reflection.FailureAnalysis, error) {
					<-ctx.Done()
					return reflection.FailureAnalysis{}, fmt.Errorf("%w: %w", reflection.ErrInternal, ctx.Err())
				}
			},
			want: want{err: context.DeadlineExceeded, elapsed: 3 * time.Second, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the reflector, which panics",
			setup: func(r *cancelRig) {
				r.inReflector = func(context.Context, int) (reflection.FailureAnalysis, error) {
					r.cancel()
					panic("reflector gone")
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the strategy, which retries at once",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					r.cancel()
					return reflection.Retry{}
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the strategy, which retries after an hour",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					r.cancel()
					return reflection.Retry{Delay: time.Hour}
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the strategy, which fails",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					r.cancel()
					return reflection.Fail{Reason: "give up"}
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the strategy, which asks the user",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					r.cancel()
					return reflection.AskUser{Prompt: "delete?"}
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the strategy, which panics",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					r.cancel()
					panic("strategy gone")
				}
			},
			want: want{err: context.Canceled, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "cancelled during an hour-long wait, five seconds in",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction {
					go func() { time.Sleep(5 * time.Second); r.cancel() }()
					return reflection.Retry{Delay: time.Hour}
				}
			},
			want: want{err: context.Canceled, elapsed: 5 * time.Second, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "deadline shorter than the delay: refused at once",
			setup: func(r *cancelRig) {
				r.timeout(10 * time.Second)
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction { return reflection.Retry{Delay: time.Hour} }
			},
			want: want{err: context.DeadlineExceeded, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "deadline exactly at the end of the wait: refused at once",
			setup: func(r *cancelRig) {
				r.timeout(time.Second)
			},
			want: want{err: context.DeadlineExceeded, dispatches: 1, analyses: 1, content: "boom 0"},
		},
		{
			name: "deadline one nanosecond after the wait: the retry runs, the next wait is refused",
			setup: func(r *cancelRig) {
				r.timeout(time.Second + time.Nanosecond)
			},
			want: want{err: context.DeadlineExceeded, elapsed: time.Second, dispatches: 2, analyses: 2, content: "boom 1"},
		},
		{
			name: "deadline between backoff waits (1s, 2s, then 4s would pass 5s)",
			setup: func(r *cancelRig) {
				r.timeout(5 * time.Second)
				r.strategy = reflection.NewExponentialBackoff(5).WithBaseDelay(time.Second)
			},
			want: want{err: context.DeadlineExceeded, elapsed: 3 * time.Second, dispatches: 3, analyses: 3, content: "boom 2"},
		},
		{
			name: "deadline passes while the tool runs",
			setup: func(r *cancelRig) {
				r.timeout(time.Nanosecond)
				r.inDispatch = func(_ context.Context, attempt int) (reflection.ToolResult, error) {
					time.Sleep(time.Millisecond) // the tool outlives the deadline
					return failWith(attempt)
				}
			},
			want: want{err: context.DeadlineExceeded, elapsed: time.Millisecond, dispatches: 1, content: "boom 0"},
		},
		{
			name: "cancelled inside the sixth and last dispatch",
			setup: func(r *cancelRig) {
				r.inStrategy = func(context.Context, int) reflection.RecoveryAction { return reflection.Retry{} }
				r.inDispatch = func(_ context.Context, attempt int) (reflection.ToolResult, error) {
					if attempt == reflection.MaxRecoveryAttempts {
						r.cancel()
					}
					return failWith(attempt)
				}
			},
			want: want{err: context.Canceled, dispatches: 6, analyses: 5, content: "boom 5"},
		},
		{
			name: "cancelled after the last attempt, in the strategy that would retry: the cancel wins over exhaustion",
			setup: func(r *cancelRig) {
				r.inStrategy = func(_ context.Context, attempt int) reflection.RecoveryAction {
					if attempt == reflection.MaxRecoveryAttempts {
						r.cancel()
					}
					return reflection.Retry{}
				}
			},
			want: want{err: context.Canceled, dispatches: 6, analyses: 6, content: "boom 5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				r := &cancelRig{ctx: ctx, cancel: cancel}
				tt.setup(r)
				defer func() {
					for _, stop := range r.stops {
						stop()
					}
				}()
				start := time.Now()
				res, err := r.run(t)
				elapsed := time.Since(start)

				require.Error(t, err)
				assert.ErrorIs(t, err, tt.want.err)
				if r.ctx.Err() != nil { // nil only for a wait refused before the deadline came
					assert.ErrorIs(t, err, r.ctx.Err(), "the error must match ctx.Err()")
				}
				assert.NotErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
				assert.Equal(t, tt.want.elapsed, elapsed, "fake time Run took")
				assert.Equal(t, tt.want.dispatches, r.dispatches, "dispatch calls")
				assert.Equal(t, tt.want.analyses, r.analyses, "reflector calls")
				wantContent := tt.want.content
				if wantContent == "" {
					wantContent = err.Error()
				}
				assert.Equal(t, reflection.ToolResult{ID: "call_cancel", Content: wantContent, IsError: true}, res)
			})
		})
	}
}

// TestCancelSuccessIsKept: a call that succeeds is returned even when ctx
// ended while it ran (step 2 of Run's rules in the package doc: the work happened).
func TestCancelSuccessIsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r := &cancelRig{ctx: ctx, cancel: cancel}
		r.inDispatch = func(_ context.Context, attempt int) (reflection.ToolResult, error) {
			if attempt == 0 {
				return failWith(attempt)
			}
			cancel()
			return reflection.ToolResult{ID: "other", Content: "done"}, nil
		}
		res, err := r.run(t)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "call_cancel", Content: "done"}, res)
		assert.Equal(t, 2, r.dispatches)
	})
}

// TestCancelRealClock checks promptness against the real clock: a cancel
// from another goroutine ends an hour-long wait at once. It runs many Runs
// at the same time; goleak (TestMain) then shows that none left a goroutine
// or a pending timer's goroutine behind.
func TestCancelRealClock(t *testing.T) {
	const runs = 200
	ctx, cancel := context.WithCancel(context.Background())
	var entered sync.WaitGroup
	entered.Add(runs)
	d := reflection.NewDriver(
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true}, nil
		})),
		reflection.WithObserver(reflection.Observer{Waiting: func(context.Context, int, time.Duration) { entered.Done() }}),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{Delay: time.Hour}
		})),
	)
	type result struct{ err error }
	results := make(chan result, runs)
	for i := range runs {
		go func() {
			res, err := d.Run(ctx, reflection.ToolCall{ID: fmt.Sprint(i), Name: "slow"}, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{Content: "nope", IsError: true}, nil
			})
			if res.ID != fmt.Sprint(i) {
				err = fmt.Errorf("result ID %q, want %q", res.ID, fmt.Sprint(i))
			}
			results <- result{err: err}
		}()
	}
	entered.Wait() // every Run is now in (or about to enter) its hour-long wait
	start := time.Now()
	cancel()
	for range runs {
		r := <-results
		require.ErrorIs(t, r.err, context.Canceled)
	}
	// Without a prompt cancel these Runs would wait an hour and the test
	// would time out. How prompt is measured, not asserted here: see
	// BenchmarkCancelLatency in bench/ (p99 in BENCHMARKS.md).
	t.Logf("%d cancelled hour-long waits all returned, %v after cancel", runs, time.Since(start))
}

// TestCancelErrorText: the cancel error says what happened and keeps the
// cause reachable.
func TestCancelErrorText(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errHostGone)
	_, err := reflection.NewDriver().Run(ctx, reflection.ToolCall{Name: "x"}, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		t.Fatal("dispatch must not run on a cancelled ctx")
		return reflection.ToolResult{}, nil
	})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, errHostGone)
	assert.True(t, strings.HasPrefix(err.Error(), "reflection: "), "error %q should carry the package prefix", err)
}

// TestCancelInsideWaitingHook cancels from the Observer's Waiting hook, the
// last moment before a wait: with a delay whose end is past the deadline the
// cancel must still be what Run reports, and with no delay the next dispatch
// must not happen.
func TestCancelInsideWaitingHook(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
	}{
		{"delay past the deadline", time.Hour},
		{"no delay", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				start := time.Now()
				tool := alwaysFails()
				d := reflection.NewDriver(
					reflection.WithReflector(recoverable()),
					reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
						return reflection.Retry{Delay: tt.delay}
					})),
					reflection.WithObserver(reflection.Observer{Waiting: func(context.Context, int, time.Duration) { cancel() }}),
				)
				res, err := d.Run(ctx, testCall, tool.dispatch)
				require.ErrorIs(t, err, context.Canceled)
				assert.NotErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, res)
				assert.Len(t, tool.Calls(), 1, "no dispatch after the cancel")
				assert.Zero(t, time.Since(start), "Run must not wait")
			})
		})
	}
}
