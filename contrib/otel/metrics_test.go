package reflectionotel_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestMetricsByOutcome runs one call ending in each way through one
// Telemetry and reads the calls counter (by outcome) and the attempts
// histogram.
func TestMetricsByOutcome(t *testing.T) {
	h := newHarness(t)
	flaky := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return analysis("flaky", nil), nil
	})
	run := func(ctx context.Context, strategy reflection.RecoveryStrategy, script ...func(reflection.ToolCall) (reflection.ToolResult, error)) {
		t.Helper()
		d := h.driver(reflection.WithReflector(flaky), reflection.WithStrategy(strategy))
		_, _ = d.Run(ctx, reflection.ToolCall{Name: "job"}, newTool(h.tp, script...).dispatch)
	}
	retry := reflection.NewExponentialBackoff(3).WithBaseDelay(0)
	run(context.Background(), retry, ok("fine"))                                             // succeeded, 1 attempt
	run(context.Background(), retry, bad("boom"), ok("fine"))                                // succeeded, 2 attempts
	run(context.Background(), reflectiontest.NewStrategy(reflection.Skip{}), bad("boom"))    // skipped, 1
	run(context.Background(), reflectiontest.NewStrategy(reflection.AskUser{}), bad("boom")) // asked_user, 1
	run(context.Background(), retry, bad("boom"))                                            // failed after 3 retries: 4
	run(context.Background(), always, bad("boom"))                                           // exhausted, 6
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	run(cancelled, retry, ok("never")) // stopped, 0

	m := h.collect(t)
	assert.Equal(t, map[string]int64{
		"succeeded": 2, "skipped": 1, "asked_user": 1, "failed": 1, "exhausted": 1, "stopped": 1,
	}, sums(t, m["reflection.calls"], "reflection.outcome"))

	hist, isHist := m["reflection.call.attempts"].(metricdata.Histogram[int64])
	require.True(t, isHist, "reflection.call.attempts is %T", m["reflection.call.attempts"])
	byOutcome := map[string][2]int64{} // count, sum
	for _, dp := range hist.DataPoints {
		v, _ := dp.Attributes.Value("reflection.outcome")
		tool, _ := dp.Attributes.Value("gen_ai.tool.name")
		assert.Equal(t, "job", tool.AsString())
		assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, dp.Bounds)
		byOutcome[v.AsString()] = [2]int64{int64(dp.Count), dp.Sum}
	}
	assert.Equal(t, map[string][2]int64{
		"succeeded": {2, 3}, "skipped": {1, 1}, "asked_user": {1, 1}, "failed": {1, 4}, "exhausted": {1, 6}, "stopped": {1, 0},
	}, byOutcome)
}

// TestWaitMetric checks that each wait between attempts is measured: two
// backoff waits in full, and a wait that a cancel cuts short for what it
// lasted. The clock is synctest's, so the waits are exact.
func TestWaitMetric(t *testing.T) {
	t.Run("backoff", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t)
			d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("a", nil), analysis("b", nil))),
				reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(100*time.Millisecond)))
			tl := newTool(h.tp, bad("boom"), bad("boom"), ok("fine"))
			_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
			require.NoError(t, err)
			dp := histogram[float64](t, h.collect(t)["reflection.wait.duration"])
			assert.Equal(t, uint64(2), dp.Count)
			assert.InDelta(t, 0.3, dp.Sum, 1e-9) // 100 ms, then 200 ms
			assert.Equal(t, attribute.NewSet(attribute.String("gen_ai.tool.name", "job")), dp.Attributes)
		})
	})
	t.Run("cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t)
			d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("a", nil))),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: time.Minute})))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				time.Sleep(10 * time.Second)
				cancel()
			}()
			rep, err := d.RunWithReport(ctx, reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom")).dispatch)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, reflection.OutcomeStopped, rep.Outcome)
			dp := histogram[float64](t, h.collect(t)["reflection.wait.duration"])
			assert.Equal(t, uint64(1), dp.Count)
			assert.InDelta(t, 10.0, dp.Sum, 1e-9)
			synctest.Wait()
		})
	})
	t.Run("immediate retries", func(t *testing.T) {
		h := newHarness(t)
		d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("a", nil))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
		_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom"), ok("fine")).dispatch)
		require.NoError(t, err)
		_, recorded := h.collect(t)["reflection.wait.duration"]
		assert.False(t, recorded, "an immediate retry is no wait")
	})
}
