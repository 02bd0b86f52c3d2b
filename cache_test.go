package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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
