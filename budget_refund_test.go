package reflection_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestRetryBudgetPaysOnlyForRetriesSent: the tokens a retry took at its
// wait come back when the retry is never dispatched.
func TestRetryBudgetPaysOnlyForRetriesSent(t *testing.T) {
	t.Run("a deadline refuses the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := reflection.NewRetryBudget(500)
			d := sfBudgetDriver(b, sfRetry(10*time.Second))
			for range 100 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				tool := reflectiontest.NewTool(reflectiontest.Fail("503"))
				_, err := d.Run(ctx, sfCall("fetch", `{}`), tool.Dispatch)
				cancel()
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Len(t, tool.Calls(), 1, "no retry sent")
			}
			assert.Equal(t, 500, b.Tokens(), "no retry was sent, so none was paid for")
		})
	})
	t.Run("a cancel cuts the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := reflection.NewRetryBudget(100)
			d := sfBudgetDriver(b, sfRetry(10*time.Second))
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(time.Second)
				cancel()
			}()
			_, err := d.Run(ctx, sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 100, b.Tokens())
		})
	})
	t.Run("a breaker refuses the retry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := reflection.NewRetryBudget(100)
			h := reflection.NewHealth(1, time.Hour)
			d := sfBudgetDriver(b, sfRetry(0), reflection.WithHealth(h))
			res, err := d.Run(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
			require.NoError(t, err)
			assert.True(t, sfIsRefusal(res.Content), "%q", res.Content)
			assert.Equal(t, 100, b.Tokens())
		})
	})
	t.Run("a retry sent is paid for", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := reflection.NewRetryBudget(100)
			d := sfBudgetDriver(b, sfRetryN(1))
			_, err := d.Run(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
			require.NoError(t, err)
			assert.Equal(t, 95, b.Tokens())
		})
	})
}

// TestRetryBudgetRefusalText: the model reads the failure, then that the
// call was not retried because of the budget.
func TestRetryBudgetRefusalText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := reflection.NewRetryBudget(4) // fewer than a retry's 5
		d := sfBudgetDriver(b, sfRetry(0))
		res, err := d.Run(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503 Service Unavailable")).Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "call-sf", Content: "503 Service Unavailable\n\n" + sfBudgetWords, IsError: true}, res)
	})
}

// TestRetryBudgetWithCosts: AWS's 2026 costs, on request.
func TestRetryBudgetWithCosts(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"a transient failure", errors.New("503"), 14},
		{"a timeout", context.DeadlineExceeded, 14},
		{"a 429", sfHTTPError{429}, 5},
		{"a rate-limit hint", sfHintError{after: time.Second}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				base := reflection.NewRetryBudget(100)
				b := base.WithCosts(14, 14, 5)
				d := sfBudgetDriver(b, sfRetryN(1))
				_, err := d.Run(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Error(tt.err)).Dispatch)
				require.NoError(t, err)
				assert.Equal(t, 100-tt.want, b.Tokens())
				assert.Equal(t, 100, base.Tokens(), "the budget it came from is unchanged")
			})
		})
	}
	b := reflection.NewRetryBudget(100).WithCosts(0, 0, 0)
	d := sfBudgetDriver(b, sfRetryN(1))
	_, _ = d.Run(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Error(sfHTTPError{429})).Dispatch)
	assert.Equal(t, 95, b.Tokens(), "0 keeps the defaults: a throttle costs what a retry does")
}
