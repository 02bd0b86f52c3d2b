package bench

import (
	"context"
	"testing"

	"github.com/loopctl-go/reflection"
)

// BenchmarkReport: what a Report costs. lib=run is Driver.Run, lib=report
// is RunWithReport with the same Driver, for a success and for three
// failures then a success (Retry3's scenario).
func BenchmarkReport(b *testing.B) {
	ctx := context.Background()
	var sinkRep reflection.Report
	b.Run("case=success/lib=run", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = defaultDriver.Run(ctx, call, okTool)
		}
		checkOK(b)
	})
	b.Run("case=success/lib=report", func(b *testing.B) {
		for b.Loop() {
			sinkRep, sinkErr = defaultDriver.RunWithReport(ctx, call, okTool)
		}
		sinkRes = sinkRep.Result
		checkOK(b)
	})
	b.Run("case=retry3/lib=run", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = retryDriver.Run(ctx, call, flakyDispatch)
		}
		checkOK(b)
	})
	b.Run("case=retry3/lib=report", func(b *testing.B) {
		for b.Loop() {
			sinkRep, sinkErr = retryDriver.RunWithReport(ctx, call, flakyDispatch)
		}
		sinkRes = sinkRep.Result
		checkOK(b)
	})
}
