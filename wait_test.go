package reflection_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loopctl-go/reflection"
)

// Every test here runs in a synctest bubble: time is fake, so a 30 s
// backoff completes at once, and time.Since measures exactly the waits Run
// made.

// delays is a fakeStrategy that answers attempt n with Retry{Delay: ds[n]}
// and gives up (Fail) after the list.
func delays(ds ...time.Duration) *fakeStrategy {
	return &fakeStrategy{decide: func(attempt int) reflection.RecoveryAction {
		if attempt < len(ds) {
			return reflection.Retry{Delay: ds[attempt]}
		}
		return reflection.Fail{Reason: "done"}
	}}
}

func TestRunWaits(t *testing.T) {
	tests := []struct {
		name       string
		strategy   reflection.RecoveryStrategy
		fails      int
		wantCalls  int
		wantWaited time.Duration
		wantErr    error
	}{
		{"one wait", delays(time.Second), 1, 2, time.Second, nil},
		{"waits add up", delays(time.Second, 2*time.Second, 4*time.Second), 3, 4, 7 * time.Second, nil},
		{"30 s backoff", delays(30 * time.Second), 1, 2, 30 * time.Second, nil},
		{"zero delay", delays(0, 0), 2, 3, 0, nil},
		{"negative delay counts as 0", delays(-time.Hour), 1, 2, 0, nil},
		{"most negative delay", delays(time.Duration(-1 << 63)), 1, 2, 0, nil},
		{"mixed", delays(-time.Second, 3*time.Second, 0), 3, 4, 3 * time.Second, nil},
		{"no wait after the last call", retryAfter(10 * time.Second), 100, 6, 50 * time.Second, reflection.ErrToolRecoveryExhausted},
		{"stock backoff", reflection.NewExponentialBackoff(5).WithBaseDelay(30 * time.Second), 100, 6, 150 * time.Second, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				tool := &fakeTool{fails: tt.fails}
				d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(tt.strategy))
				_, err := d.Run(context.Background(), testCall, tool.dispatch)
				if tt.wantErr == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tt.wantErr)
				}
				assert.Len(t, tool.Calls(), tt.wantCalls)
				assert.Equal(t, tt.wantWaited, time.Since(start), "fake time elapsed")
			})
		})
	}
}

// TestRunWaitHappensBeforeRetry: the retry is dispatched when the wait ends,
// not before.
func TestRunWaitHappensBeforeRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		calls := 0
		d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(delays(2*time.Second, 5*time.Second)))
		_, err := d.Run(context.Background(), testCall, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
			at = append(at, time.Since(start))
			calls++
			if calls < 3 {
				return reflection.ToolResult{Content: "again", IsError: true}, nil
			}
			return reflection.ToolResult{Content: "ok"}, nil
		})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{0, 2 * time.Second, 7 * time.Second}, at)
	})
}

// TestRunCancelDuringWait: a cancel ends the wait at the moment it happens,
// with the cancel error and the latest failure text; nothing is left running.
func TestRunCancelDuringWait(t *testing.T) {
	cause := errors.New("user pressed stop")
	tests := []struct {
		name      string
		cancel    func(context.CancelCauseFunc)
		wantErrIs []error
	}{
		{"cancel", func(c context.CancelCauseFunc) { c(nil) }, []error{context.Canceled}},
		{"cancel with cause", func(c context.CancelCauseFunc) { c(cause) }, []error{context.Canceled, cause}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				start := time.Now()
				go func() {
					time.Sleep(5 * time.Second)
					tt.cancel(cancel)
				}()
				tool := alwaysFails()
				refl := recoverable()
				d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(30*time.Second)))
				got, err := d.Run(ctx, testCall, tool.dispatch)

				assert.Equal(t, 5*time.Second, time.Since(start), "Run returns as the cancel happens")
				require.Error(t, err)
				assert.ErrorIs(t, err, ctx.Err())
				for _, target := range tt.wantErrIs {
					assert.ErrorIs(t, err, target)
				}
				assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
				assert.Len(t, tool.Calls(), 1, "no retry after the cancel")
				assert.Len(t, refl.Seen(), 1)
			})
		})
	}
}

// TestRunCancelDuringSecondWait: corrections and earlier waits do not change
// how a cancel is reported.
func TestRunCancelDuringSecondWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := time.Now()
		time.AfterFunc(1500*time.Millisecond, cancel)
		tool := alwaysFails()
		d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(delays(time.Second, time.Minute)))
		got, err := d.Run(ctx, testCall, tool.dispatch)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1500*time.Millisecond, time.Since(start))
		assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 2", IsError: true}, got)
		assert.Len(t, tool.Calls(), 2)
	})
}

// TestRunDeadline: a wait that cannot end before the deadline is refused at
// once; one that can is made.
func TestRunDeadline(t *testing.T) {
	tests := []struct {
		name       string
		timeout    time.Duration
		delay      time.Duration
		wantErr    error
		wantWaited time.Duration
		wantCalls  int
	}{
		{"deadline before the end of the wait", 10 * time.Second, 30 * time.Second, context.DeadlineExceeded, 0, 1},
		{"deadline at the end of the wait", 30 * time.Second, 30 * time.Second, context.DeadlineExceeded, 0, 1},
		{"deadline just after the end of the wait", 30*time.Second + 1, 30 * time.Second, nil, 30 * time.Second, 2},
		{"deadline well after the wait", time.Hour, 30 * time.Second, nil, 30 * time.Second, 2},
		{"no wait, deadline irrelevant", time.Second, 0, nil, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
				defer cancel()
				start := time.Now()
				tool := &fakeTool{fails: 1}
				d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(retryAfter(tt.delay)))
				got, err := d.Run(ctx, testCall, tool.dispatch)
				assert.Equal(t, tt.wantWaited, time.Since(start), "fake time elapsed")
				assert.Len(t, tool.Calls(), tt.wantCalls)
				if tt.wantErr == nil {
					require.NoError(t, err)
					assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "ok"}, got)
					return
				}
				require.ErrorIs(t, err, tt.wantErr)
				assert.NoError(t, ctx.Err(), "Run returned before the deadline passed")
				assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
			})
		})
	}
}

// TestRunDeadlineDuringDispatch: a deadline that passes while a failing call
// runs ends Run without asking the reflector.
func TestRunDeadlineDuringDispatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		refl := recoverable()
		got, err := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0))).Run(ctx, testCall,
			func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
				<-ctx.Done()
				return reflection.ToolResult{}, ctx.Err()
			})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: context.DeadlineExceeded.Error(), IsError: true}, got)
		assert.Empty(t, refl.Seen())
	})
}

// TestRunCancelWithZeroDelay: a cancel seen after an immediate retry's
// correction still stops Run before the next dispatch.
func TestRunCancelWithZeroDelay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	strat := &fakeStrategy{decide: func(int) reflection.RecoveryAction {
		cancel()
		return reflection.Retry{}
	}}
	tool := alwaysFails()
	got, err := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(strat)).Run(ctx, testCall, tool.dispatch)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "boom 1", IsError: true}, got)
	assert.Len(t, tool.Calls(), 1)
}
