package reflection_test

import (
	"context"
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
