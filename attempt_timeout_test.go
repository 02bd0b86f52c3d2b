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

// WithAttemptTimeout: each dispatch runs under a context
// that ends d after it starts. The tests run in synctest bubbles: a tool
// that "hangs" for a minute costs no real time.

const timeoutText = `tool "write_file" timed out after 5s`

// timedTool runs first on its first call and succeeds on every later one,
// recording each call's ctx deadline, as an offset from when the call began.
type timedTool struct {
	first func(ctx context.Context) (reflection.ToolResult, error)

	mu        sync.Mutex
	calls     int
	deadlines []time.Duration // -1: no deadline
}

func (tt *timedTool) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	tt.mu.Lock()
	tt.calls++
	n := tt.calls
	if dl, ok := ctx.Deadline(); ok {
		tt.deadlines = append(tt.deadlines, time.Until(dl))
	} else {
		tt.deadlines = append(tt.deadlines, -1)
	}
	tt.mu.Unlock()
	if n == 1 && tt.first != nil {
		return tt.first(ctx)
	}
	return reflection.ToolResult{ID: call.ID, Content: "wrote 4 bytes"}, nil
}

// hangs is a tool that honours its ctx: it returns ctx's error when ctx ends.
func hangs(ctx context.Context) (reflection.ToolResult, error) {
	<-ctx.Done()
	return reflection.ToolResult{}, ctx.Err()
}

// TestAttemptTimeoutRetries: a call cut short by the attempt timeout is a
// failure with the timeout's text and a Failure.Err matching
// context.DeadlineExceeded, analysed and retried like any other.
func TestAttemptTimeoutRetries(t *testing.T) {
	errBackend := errors.New("backend: connection reset")
	tests := []struct {
		name       string
		first      func(ctx context.Context) (reflection.ToolResult, error)
		wantTook   time.Duration // fake time the first call took
		wantIs     []error       // what Failure.Err matches besides DeadlineExceeded
		wantNotErr bool          // Failure.Err unwraps to nothing (the tool gave no error)
	}{
		{
			name:     "a tool that returns its ctx's error",
			first:    hangs,
			wantTook: 5 * time.Second,
		},
		{
			name: "a tool that returns an error result",
			first: func(ctx context.Context) (reflection.ToolResult, error) {
				<-ctx.Done()
				return reflection.ToolResult{Content: "aborted", IsError: true}, nil
			},
			wantTook:   5 * time.Second,
			wantNotErr: true,
		},
		{
			name: "a tool that returns an error of its own",
			first: func(ctx context.Context) (reflection.ToolResult, error) {
				<-ctx.Done()
				return reflection.ToolResult{}, errBackend
			},
			wantTook: 5 * time.Second,
			wantIs:   []error{errBackend},
		},
		{
			name: "a tool that ignores its ctx and fails late",
			first: func(context.Context) (reflection.ToolResult, error) {
				time.Sleep(time.Minute)
				return reflection.ToolResult{}, errBackend
			},
			wantTook: time.Minute, // the Driver does not abandon it
			wantIs:   []error{errBackend},
		},
		{
			name: "a tool that panics after the timeout",
			first: func(ctx context.Context) (reflection.ToolResult, error) {
				<-ctx.Done()
				panic("lost the connection")
			},
			wantTook: 5 * time.Second,
			wantIs:   []error{reflection.ErrPanicked},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := &timedTool{first: tt.first}
				refl := reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true, RootCause: "slow backend"})
				d := reflection.NewDriver(
					reflection.WithReflector(refl),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: time.Second})),
					reflection.WithAttemptTimeout(5*time.Second),
				)
				start := time.Now()

				rep, err := d.RunWithReport(context.Background(), askCall, tool.dispatch)

				require.NoError(t, err)
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded)
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"}, rep.Result)
				assert.Equal(t, 2, tool.calls)
				assert.Equal(t, tt.wantTook+time.Second, time.Since(start), "the hung call, then the delay")

				failures := refl.Failures()
				require.Len(t, failures, 1)
				f := failures[0]
				assert.Equal(t, timeoutText, f.Error)
				assert.ErrorIs(t, f.Err, context.DeadlineExceeded)
				assert.EqualError(t, f.Err, timeoutText)
				for _, want := range tt.wantIs {
					assert.ErrorIs(t, f.Err, want)
				}
				if tt.wantNotErr {
					assert.NoError(t, errors.Unwrap(f.Err), "no error of the tool's to unwrap to")
				}
				assert.Equal(t, timeoutText, rep.Attempts[0].Failure)
				assert.Equal(t, timeoutText, rep.Attempts[0].DispatchError)
				assert.Equal(t, tt.wantTook, rep.Attempts[0].End.Sub(rep.Attempts[0].Start), "the report's times")
			})
		})
	}
}

// TestAttemptTimeoutKeepsSuccess: a success is kept, however late, and a
// failure before the timeout keeps its own text.
func TestAttemptTimeoutKeepsSuccess(t *testing.T) {
	tests := []struct {
		name     string
		first    func(ctx context.Context) (reflection.ToolResult, error)
		wantRes  reflection.ToolResult
		wantText string // the failure the Reflector saw; "" for none
	}{
		{
			name: "a success after the timeout",
			first: func(context.Context) (reflection.ToolResult, error) {
				time.Sleep(time.Minute)
				return reflection.ToolResult{Content: "late but done"}, nil
			},
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: "late but done"},
		},
		{
			name: "a success from a tool that saw its ctx end",
			first: func(ctx context.Context) (reflection.ToolResult, error) {
				<-ctx.Done()
				return reflection.ToolResult{Content: "finished the write anyway"}, nil
			},
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: "finished the write anyway"},
		},
		{
			name: "a failure before the timeout",
			first: func(context.Context) (reflection.ToolResult, error) {
				time.Sleep(time.Second)
				return reflection.ToolResult{Content: askDenied, IsError: true}, nil
			},
			wantRes:  reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"},
			wantText: askDenied,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := &timedTool{first: tt.first}
				refl := reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true})
				d := reflection.NewDriver(
					reflection.WithReflector(refl),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
					reflection.WithAttemptTimeout(5*time.Second),
				)

				res, err := d.Run(context.Background(), askCall, tool.dispatch)

				require.NoError(t, err)
				assert.Equal(t, tt.wantRes, res)
				if tt.wantText == "" {
					assert.Empty(t, refl.Failures())
					assert.Equal(t, 1, tool.calls)
					return
				}
				require.Len(t, refl.Failures(), 1)
				assert.Equal(t, tt.wantText, refl.Failures()[0].Error)
				assert.NotErrorIs(t, refl.Failures()[0].Err, context.DeadlineExceeded)
			})
		})
	}
}

// TestAttemptTimeoutCallerWins: when the caller's own ctx ends during an
// attempt, Run returns the caller's cancel, and nothing is analysed.
func TestAttemptTimeoutCallerWins(t *testing.T) {
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		first   func(ctx context.Context) (reflection.ToolResult, error)
		wantIs  error
		wantRes reflection.ToolResult
		wantDL  time.Duration // the dispatch ctx's deadline, from the call's start
	}{
		{
			name: "the caller's deadline comes first",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 3*time.Second)
			},
			first:   hangs,
			wantIs:  context.DeadlineExceeded,
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: context.DeadlineExceeded.Error(), IsError: true},
			wantDL:  3 * time.Second,
		},
		{
			name: "the caller cancels",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(2*time.Second, cancel)
				return ctx, cancel
			},
			first:   hangs,
			wantIs:  context.Canceled,
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: context.Canceled.Error(), IsError: true},
			wantDL:  5 * time.Second,
		},
		{
			name: "the caller's deadline passes while a tool that ignores it runs",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 3*time.Second)
			},
			first: func(context.Context) (reflection.ToolResult, error) {
				time.Sleep(time.Minute)
				return reflection.ToolResult{Content: "gave up", IsError: true}, nil
			},
			wantIs:  context.DeadlineExceeded,
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: "gave up", IsError: true},
			wantDL:  3 * time.Second,
		},
		{
			name: "a success after the caller's deadline is kept",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 3*time.Second)
			},
			first: func(context.Context) (reflection.ToolResult, error) {
				time.Sleep(time.Minute)
				return reflection.ToolResult{Content: "done"}, nil
			},
			wantRes: reflection.ToolResult{ID: askCall.ID, Content: "done"},
			wantDL:  3 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := tt.ctx()
				defer cancel()
				tool := &timedTool{first: tt.first}
				refl := reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true})
				d := reflection.NewDriver(
					reflection.WithReflector(refl),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
					reflection.WithAttemptTimeout(5*time.Second),
				)

				res, err := d.Run(ctx, askCall, tool.dispatch)

				if tt.wantIs != nil {
					require.ErrorIs(t, err, tt.wantIs)
					assert.NotContains(t, err.Error(), "timed out after", "the caller's cancel, not the attempt's")
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.wantRes, res)
				assert.Empty(t, refl.Failures(), "nothing analysed once the caller has gone")
				assert.Equal(t, 1, tool.calls)
				assert.Equal(t, []time.Duration{tt.wantDL}, tool.deadlines,
					"the attempt's ctx ends no later than the caller's")
			})
		})
	}
}

// TestAttemptTimeoutPerAttempt: every dispatch gets its own deadline, d
// after it starts; a tool that hangs on every call ends in exhaustion after
// six timeouts, never past the ceiling.
func TestAttemptTimeoutPerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var deadlines []time.Duration
		dispatch := func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
			dl, ok := ctx.Deadline()
			require.True(t, ok, "the dispatch ctx has a deadline")
			deadlines = append(deadlines, time.Until(dl))
			return hangs(ctx)
		}
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(
				reflection.FailureAnalysis{IsRecoverable: true}, reflection.FailureAnalysis{IsRecoverable: true},
				reflection.FailureAnalysis{IsRecoverable: true}, reflection.FailureAnalysis{IsRecoverable: true},
				reflection.FailureAnalysis{IsRecoverable: true}, reflection.FailureAnalysis{IsRecoverable: true})),
			reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
				return reflection.Retry{Delay: 2 * time.Second}
			})),
			reflection.WithAttemptTimeout(1500*time.Millisecond),
		)
		start := time.Now()

		res, err := d.Run(context.Background(), askCall, dispatch)

		require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
		assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: `tool "write_file" timed out after 1.5s`, IsError: true}, res)
		want := make([]time.Duration, 6)
		for i := range want {
			want[i] = 1500 * time.Millisecond
		}
		assert.Equal(t, want, deadlines, "each attempt's own deadline")
		assert.Equal(t, 6*1500*time.Millisecond+5*2*time.Second, time.Since(start))
	})
}

// TestAttemptTimeoutOff: without the option, or with d ≤ 0, dispatch gets
// the caller's ctx and a hung tool blocks until the caller's ctx ends.
func TestAttemptTimeoutOff(t *testing.T) {
	tests := []struct {
		name string
		opts []reflection.Option
	}{
		{"no option", nil},
		{"zero", []reflection.Option{reflection.WithAttemptTimeout(0)}},
		{"negative", []reflection.Option{reflection.WithAttemptTimeout(-time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := &timedTool{}
				_, err := reflection.NewDriver(tt.opts...).Run(context.Background(), askCall, tool.dispatch)
				require.NoError(t, err)
				assert.Equal(t, []time.Duration{-1}, tool.deadlines, "no deadline on the dispatch ctx")

				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				hung := &timedTool{first: hangs}
				_, err = reflection.NewDriver(tt.opts...).Run(ctx, askCall, hung.dispatch)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, time.Hour, time.Since(start), "the hung call used the whole deadline")
			})
		})
	}
}
