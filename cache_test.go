package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// countingReflector answers with a fresh correction each time and counts
// its calls.
type countingReflector struct {
	calls atomic.Int32
	err   error
	block chan struct{} // when set, each call waits for it to close
}

func (c *countingReflector) Analyze(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	n := c.calls.Add(1)
	if c.block != nil {
		select {
		case <-c.block:
		case <-ctx.Done():
			return reflection.FailureAnalysis{}, ctx.Err()
		}
	}
	return reflection.FailureAnalysis{RootCause: fmt.Sprintf("analysis %d of %s", n, f.Error),
		Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"a":1}`)}}, c.err
}

func failureOf(tool, input, text string) reflection.Failure {
	return reflection.Failure{Tool: tool, Input: json.RawMessage(input), Error: text, Attempt: 3}
}

func TestCacheHitsAndKeys(t *testing.T) {
	inner := &countingReflector{}
	c := reflection.NewCache(inner, 10, 0)
	ctx := context.Background()
	first, err := c.Analyze(ctx, failureOf("t", `{}`, "boom"))
	require.NoError(t, err)
	again, err := c.Analyze(ctx, reflection.Failure{Tool: "t", Input: json.RawMessage(`{}`), Error: "boom", Attempt: 5})
	require.NoError(t, err)
	assert.Equal(t, first, again, "same tool, input and text: a hit, whatever the attempt")
	assert.EqualValues(t, 1, inner.calls.Load())

	// Each answer is a copy of its own.
	again.Correction.ModifiedInput[2] = 'X'
	third, _ := c.Analyze(ctx, failureOf("t", `{}`, "boom"))
	assert.JSONEq(t, `{"a":1}`, string(third.Correction.ModifiedInput))

	for _, f := range []reflection.Failure{failureOf("u", `{}`, "boom"), failureOf("t", `{"x":1}`, "boom"),
		failureOf("t", `{}`, "boom!"), failureOf("t{}", ``, "boom"), failureOf("t", `{}boom`, "")} {
		_, err := c.Analyze(ctx, f)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 6, inner.calls.Load(), "tool, input and text each make a key of their own")
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	inner := &countingReflector{}
	c := reflection.NewCache(inner, 2, 0)
	ctx := context.Background()
	a, b, d := failureOf("a", "", "x"), failureOf("b", "", "x"), failureOf("d", "", "x")
	c.Analyze(ctx, a)
	c.Analyze(ctx, b)
	c.Analyze(ctx, a) // a is now the most recent
	c.Analyze(ctx, d) // evicts b
	assert.EqualValues(t, 3, inner.calls.Load())
	c.Analyze(ctx, a)
	assert.EqualValues(t, 3, inner.calls.Load(), "a stayed")
	c.Analyze(ctx, b)
	assert.EqualValues(t, 4, inner.calls.Load(), "b was evicted")
}

func TestCacheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingReflector{}
		c := reflection.NewCache(inner, 0, time.Minute)
		f := failureOf("t", "", "x")
		c.Analyze(context.Background(), f)
		time.Sleep(59 * time.Second)
		c.Analyze(context.Background(), f)
		assert.EqualValues(t, 1, inner.calls.Load(), "still fresh")
		time.Sleep(time.Second)
		c.Analyze(context.Background(), f)
		assert.EqualValues(t, 2, inner.calls.Load(), "expired a minute after it was stored")
	})
}

func TestCacheNeverKeepsErrors(t *testing.T) {
	inner := &countingReflector{err: fmt.Errorf("model down: %w", reflection.ErrInternal)}
	c := reflection.NewCache(inner, 0, 0)
	for range 3 {
		_, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
		assert.ErrorIs(t, err, reflection.ErrInternal)
	}
	assert.EqualValues(t, 3, inner.calls.Load())
}

func TestCacheSharesConcurrentMisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingReflector{block: make(chan struct{})}
		c := reflection.NewCache(inner, 0, 0)
		var wg sync.WaitGroup
		results := make([]reflection.FailureAnalysis, 8)
		for i := range results {
			wg.Go(func() {
				a, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
				assert.NoError(t, err)
				results[i] = a
			})
		}
		synctest.Wait()
		assert.EqualValues(t, 1, inner.calls.Load(), "one call for all identical misses")
		close(inner.block)
		wg.Wait()
		for _, a := range results {
			assert.Equal(t, "analysis 1 of x", a.RootCause)
		}
	})
}

func TestCacheSharedErrorsAndCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingReflector{block: make(chan struct{}), err: errors.New("flaky model")}
		c := reflection.NewCache(inner, 0, 0)
		leaderDone := make(chan error, 1)
		go func() {
			_, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
			leaderDone <- err
		}()
		synctest.Wait()
		// A waiter whose ctx ends leaves at once.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := c.Analyze(ctx, failureOf("t", "", "x"))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		// A waiter that stays gets the leader's error.
		waiterDone := make(chan error, 1)
		go func() {
			_, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
			waiterDone <- err
		}()
		synctest.Wait()
		close(inner.block)
		assert.EqualError(t, <-leaderDone, "flaky model")
		assert.EqualError(t, <-waiterDone, "flaky model")
		assert.EqualValues(t, 1, inner.calls.Load())
	})
}

func TestCachePanicAndNil(t *testing.T) {
	c := reflection.NewCache(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		panic("model client bug")
	}), 0, 0)
	_, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
	assert.ErrorIs(t, err, reflection.ErrPanicked)

	_, err = reflection.NewCache(nil, 0, 0).Analyze(context.Background(), failureOf("t", "", "x"))
	assert.ErrorIs(t, err, reflection.ErrInternal)
}

// identityReflector answers from Failure.Err, as rules do: a timeout is
// recoverable, anything else is not. It counts its calls.
type identityReflector struct{ calls atomic.Int32 }

func (r *identityReflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	r.calls.Add(1)
	if _, broken := f.Err.(panickyErr); broken {
		return reflection.FailureAnalysis{}, nil
	}
	return reflection.FailureAnalysis{IsRecoverable: errors.Is(f.Err, context.DeadlineExceeded)}, nil
}

// panickyErr is an error whose Unwrap panics.
type panickyErr struct{}

func (panickyErr) Error() string { return "broken" }
func (panickyErr) Unwrap() error { panic("unwrap broke") }

// TestCacheKeyTellsApartWhatAnAnswerDependsOn: the same tool, input and
// text with another error identity, schema or task is another failure; the
// same identity through other error values is the same one.
func TestCacheKeyTellsApartWhatAnAnswerDependsOn(t *testing.T) {
	const text = "read tcp 10.0.0.7:5432: operation failed"
	timeout := func() error { return fmt.Errorf("query: %w", context.DeadlineExceeded) }
	denied := &fs.PathError{Op: "open", Path: "/var/db", Err: fs.ErrPermission}
	schema := func(s string) *reflection.ToolSchema {
		return &reflection.ToolSchema{Name: "query", InputSchema: json.RawMessage(s)}
	}
	with := func(err error, s *reflection.ToolSchema, task string) reflection.Failure {
		return reflection.Failure{Tool: "query", Input: json.RawMessage(`{"sql":"select 1"}`), Error: text, Err: err, Schema: s, Task: task}
	}
	tests := []struct {
		name        string
		first, then reflection.Failure
		wantCalls   int32
	}{
		{"a timeout, then a permission failure of the same text",
			with(timeout(), nil, ""), with(denied, nil, ""), 2},
		{"one errno, then another",
			with(syscall.ECONNREFUSED, nil, ""), with(syscall.ECONNRESET, nil, ""), 2},
		{"an error, then none",
			with(timeout(), nil, ""), with(nil, nil, ""), 2},
		{"one schema, then a changed one",
			with(nil, schema(`{"type":"object"}`), ""), with(nil, schema(`{"type":"object","required":["sql"]}`), ""), 2},
		{"no schema, then one",
			with(nil, nil, ""), with(nil, schema(`{}`), ""), 2},
		{"one task, then another",
			with(nil, nil, "count users"), with(nil, nil, "drop users"), 2},
		{"the same identity through other error values",
			with(timeout(), schema(`{}`), "t"), with(timeout(), schema(`{}`), "t"), 1},
		{"the same errno",
			with(&fs.PathError{Op: "open", Path: "/a", Err: syscall.EACCES}, nil, ""),
			with(&fs.PathError{Op: "open", Path: "/b", Err: syscall.EACCES}, nil, ""), 1},
		{"an error that panics when read is never cached",
			with(panickyErr{}, nil, ""), with(panickyErr{}, nil, ""), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &identityReflector{}
			c := reflection.NewCache(inner, 0, 0)
			first, err := c.Analyze(context.Background(), tt.first)
			require.NoError(t, err)
			then, err := c.Analyze(context.Background(), tt.then)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCalls, inner.calls.Load())
			if _, broken := tt.then.Err.(panickyErr); !broken && tt.wantCalls == 2 {
				assert.Equal(t, errors.Is(tt.then.Err, context.DeadlineExceeded), then.IsRecoverable,
					"the second answer is the second failure's own")
			} else if tt.wantCalls == 1 {
				assert.Equal(t, first, then)
			}
		})
	}
}

// TestCacheBoundsBytes: a cache keeps a digest of each failure, not its
// text, so 64 failures of 1 MiB each leave next to nothing behind.
func TestCacheBoundsBytes(t *testing.T) {
	c := reflection.NewCache(&countingReflector{}, 0, 0)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range 64 {
		text := strconv.Itoa(i) + strings.Repeat("x", 1<<20)
		_, err := c.Analyze(context.Background(), failureOf("t", `{}`, text))
		require.NoError(t, err)
	}
	retained := int64(heap()) - int64(before)
	runtime.KeepAlive(c)
	t.Logf("retained after 64 failures of 1 MiB: %d bytes", retained)
	assert.Less(t, retained, int64(4<<20), "64 MiB of failure texts went through; %d bytes stayed", retained)
}

// TestCacheWaiterTakesOverACancelledCall: a caller waiting on another's
// call, whose own ctx is alive, does not receive that caller's
// cancellation: it makes the call itself.
func TestCacheWaiterTakesOverACancelledCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingReflector{block: make(chan struct{})}
		c := reflection.NewCache(inner, 0, 0)
		leaderCtx, cancelLeader := context.WithCancel(context.Background())
		leaderDone := make(chan error, 1)
		go func() {
			_, err := c.Analyze(leaderCtx, failureOf("t", "", "x"))
			leaderDone <- err
		}()
		synctest.Wait()
		type result struct {
			a   reflection.FailureAnalysis
			err error
		}
		waiters := make(chan result, 2)
		for range 2 {
			go func() {
				a, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
				waiters <- result{a, err}
			}()
		}
		synctest.Wait()
		assert.EqualValues(t, 1, inner.calls.Load())

		cancelLeader()
		assert.ErrorIs(t, <-leaderDone, context.Canceled, "the leader gets its own cancellation")
		synctest.Wait()
		assert.EqualValues(t, 2, inner.calls.Load(), "one waiter took the call over; the other waits on it")
		close(inner.block)
		for range 2 {
			r := <-waiters
			require.NoError(t, r.err)
			assert.Equal(t, "analysis 2 of x", r.a.RootCause)
		}
		_, err := c.Analyze(context.Background(), failureOf("t", "", "x"))
		require.NoError(t, err)
		assert.EqualValues(t, 2, inner.calls.Load(), "the answer was kept")
	})
}

// TestCacheHitAllocations: a hit allocates nothing for an answer without a
// correction, whatever the input's size, and the correction's copy for one
// with it.
func TestCacheHitAllocations(t *testing.T) {
	ctx := context.Background()
	big := failureOf("write_file", `{"body":"`+strings.Repeat("a", 4<<10)+`"}`, "open /etc/x: permission denied")
	big.Err = &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}
	big.Schema = &reflection.ToolSchema{Name: "write_file", InputSchema: json.RawMessage(`{"type":"object"}`)}
	answer := func(a reflection.FailureAnalysis) reflection.Reflector {
		return reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) { return a, nil })
	}
	tests := []struct {
		name string
		a    reflection.FailureAnalysis
		want float64
	}{
		{"no correction", reflection.FailureAnalysis{RootCause: "denied"}, 0},
		{"advice", reflection.FailureAnalysis{Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask"}}, 1},
		{"an input fix", reflection.FailureAnalysis{Correction: &reflection.Correction{Type: reflection.InputFix,
			ModifiedInput: json.RawMessage(`{"path":"/tmp/x"}`)}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := reflection.NewCache(answer(tt.a), 0, 0)
			_, err := c.Analyze(ctx, big)
			require.NoError(t, err)
			got := testing.AllocsPerRun(100, func() { _, _ = c.Analyze(ctx, big) })
			assert.Equal(t, tt.want, got)
		})
	}
}

// BenchmarkCache: a hit (a plain answer; an InputFix answer for a 1 KiB
// input) and a miss that evicts.
func BenchmarkCache(b *testing.B) {
	ctx := context.Background()
	plain := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "busy"}, nil
	})
	fix := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "bad path",
			Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/tmp/x"}`)}}, nil
	})
	small := reflection.Failure{Tool: "search", Input: json.RawMessage(`{"q":"go"}`), Error: "503 Service Unavailable", Attempt: 1, MaxAttempts: 6}
	large := reflection.Failure{Tool: "write_file", Input: json.RawMessage(`{"path":"/etc/x","body":"` + strings.Repeat("a", 1024) + `"}`),
		Error: "open /etc/x: permission denied", Attempt: 1, MaxAttempts: 6}
	var sink reflection.FailureAnalysis
	var sinkErr error
	hit := func(b *testing.B, r reflection.Reflector, f reflection.Failure) {
		c := reflection.NewCache(r, 0, 0)
		c.Analyze(ctx, f)
		b.ReportAllocs()
		for b.Loop() {
			sink, sinkErr = c.Analyze(ctx, f)
		}
	}
	b.Run("case=hit", func(b *testing.B) { hit(b, plain, small) })
	b.Run("case=hit-inputfix-1KiB-input", func(b *testing.B) { hit(b, fix, large) })
	b.Run("case=miss", func(b *testing.B) {
		fs := make([]reflection.Failure, 4096)
		for i := range fs {
			fs[i] = small
			fs[i].Error = "503 Service Unavailable " + strconv.Itoa(i)
		}
		c := reflection.NewCache(plain, 1024, 0)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sink, sinkErr = c.Analyze(ctx, fs[i%len(fs)])
			i++
		}
	})
	_, _ = sink, sinkErr
}
