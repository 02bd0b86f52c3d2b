package reflectioneino_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Driver's backoff waits happen inside eino's graph run; synctest's
// clock makes them instant.
func TestBackoffInsideTheGraph(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				failures := 2
				flaky := newTextTool("flaky", func(context.Context, string) (string, error) {
					if failures > 0 {
						failures--
						return "", errors.New("503 service unavailable")
					}
					return "up again", nil
				})
				var mu sync.Mutex
				var waits []time.Duration
				d := reflection.NewDriver(
					reflection.WithReflector(newReflector(retryAgain())),
					reflection.WithStrategy(reflection.NewExponentialBackoff(3)), // 100ms, then 200ms
					reflection.WithObserver(reflection.Observer{Waiting: func(_ context.Context, _ int, delay time.Duration) {
						mu.Lock()
						defer mu.Unlock()
						waits = append(waits, delay)
					}}),
				)
				out, err := m.run(context.Background(), toolsetGraph(t, d, flaky), assistant(call("c1", "flaky", `{}`)))
				require.NoError(t, err)
				assert.Equal(t, []string{"up again"}, contents(out))
				assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, waits)
			})
		})
	}
}

// A deadline that the next wait cannot meet is a hard error from the Driver,
// but ctx has not ended yet: the model gets the failure and the graph goes on.
func TestDeadlineRefusalIsASoftResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		flaky := failingTool("flaky", "503 service unavailable")
		d := reflection.NewDriver(
			reflection.WithReflector(newReflector(retryAgain())),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)), // 100ms: past the deadline
		)
		out, err := toolsetGraph(t, d, flaky).Invoke(ctx, assistant(call("c1", "flaky", `{}`)))
		require.NoError(t, err)
		assert.Equal(t, []string{"503 service unavailable"}, contents(out))
		assert.Len(t, flaky.Calls(), 1)
	})
}
