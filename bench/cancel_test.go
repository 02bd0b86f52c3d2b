package bench

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

// cancelSettle is how long the harness waits, after the strategy has asked
// for the retry, before it cancels: long enough for Run to be parked in its
// wait, so the measurement is of a wait being interrupted.
const cancelSettle = 200 * time.Microsecond

// BenchmarkCancelLatency measures how fast Run gives up a 30 s retry wait
// when its context is cancelled. Each iteration starts a Run whose tool
// fails and whose strategy asks for Retry{Delay: 30s}, waits until Run is
// waiting, calls cancel(), and times cancel() to Run returning (the
// goroutine's wake-up included). It reports the median, the 99th percentile
// and the maximum over the iterations as p50-ns, p99-ns and max-ns; ns/op is
// the whole cycle, harness sleep included, and means little. Run it with a
// fixed count of cancellations, for example -benchtime 2000x.
func BenchmarkCancelLatency(b *testing.B) {
	ready := make(chan struct{}, 1)
	d := reflection.NewDriver(
		reflection.WithReflector(retryReflector),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			ready <- struct{}{}
			return reflection.Retry{Delay: 30 * time.Second}
		})),
	)
	failing := reflection.DispatchFunc(func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{}, errFlaky
	})
	type ended struct {
		at  time.Time
		err error
	}
	done := make(chan ended, 1)
	var lat []time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			_, err := d.Run(ctx, call, failing)
			done <- ended{time.Now(), err}
		}()
		<-ready
		time.Sleep(cancelSettle)
		start := time.Now()
		cancel()
		e := <-done
		lat = append(lat, e.at.Sub(start))
		if !errors.Is(e.err, context.Canceled) {
			b.Fatalf("Run returned %v, want context.Canceled", e.err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50)), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99)), "p99-ns")
	b.ReportMetric(float64(lat[len(lat)-1]), "max-ns")
}

// percentile returns the p-th percentile of sorted (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100 // ceil(len × p / 100), 1-based
	return sorted[max(i-1, 0)]
}
