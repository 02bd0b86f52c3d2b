package bench

import (
	"context"
	"math"
	"testing"

	"github.com/loopctl-go/reflection"
)

// What the safety options cost (WithEffects, WithHealth, WithRetryBudget,
// WithLoopGuard): sub-benchmarks "options=none" (the bare Driver) and
// "options=safe" (all four, with one Health and one RetryBudget shared by
// every call), named so that benchstat puts them side by side.

// readOnly is the effect func of the safe Drivers: the benchmark's tool
// changes nothing, so the effect guard lets its retries through.
func readOnly(string) reflection.Effect { return reflection.EffectReadOnly }

// safeOptions returns the four safety options over h and budget.
func safeOptions(h *reflection.Health, budget *reflection.RetryBudget) []reflection.Option {
	return []reflection.Option{
		reflection.WithEffects(readOnly),
		reflection.WithHealth(h),
		reflection.WithRetryBudget(budget),
		reflection.WithLoopGuard(),
	}
}

// bottomless is a retry budget that never runs dry over a benchmark: each
// retried call takes more tokens than its success gives back, and the
// benchmark measures the cost of the accounting, not a refusal.
func bottomless() *reflection.RetryBudget { return reflection.NewRetryBudget(math.MaxInt / 2) }

// BenchmarkSafetySuccess: the tool succeeds on the first call. The safe
// Driver reads its Health and its full budget, and writes nothing.
func BenchmarkSafetySuccess(b *testing.B) {
	ctx := context.Background()
	drivers := map[string]*reflection.Driver{
		"options=none": reflection.NewDriver(),
		"options=safe": reflection.NewDriver(safeOptions(reflection.NewHealth(0, 0), reflection.NewRetryBudget(0))...),
	}
	for _, name := range []string{"options=none", "options=safe"} {
		d := drivers[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, okTool)
			}
			checkOK(b)
		})
	}
}

// BenchmarkSafetySuccessParallel is BenchmarkSafetySuccess under
// b.RunParallel: every goroutine shares one Driver, so one Health and one
// RetryBudget. Compare -cpu 1,2: a lock or a contended write on the success
// path would show as a slowdown with more goroutines.
func BenchmarkSafetySuccessParallel(b *testing.B) {
	ctx := context.Background()
	drivers := map[string]*reflection.Driver{
		"options=none": reflection.NewDriver(),
		"options=safe": reflection.NewDriver(safeOptions(reflection.NewHealth(0, 0), reflection.NewRetryBudget(0))...),
	}
	for _, name := range []string{"options=none", "options=safe"} {
		d := drivers[name]
		b.Run(name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				var res reflection.ToolResult
				var err error
				for pb.Next() {
					res, err = d.Run(ctx, call, okTool)
				}
				checkParallel(b, res, err)
			})
		})
	}
}

// BenchmarkSafetyRetry3: the flaky tool of BenchmarkRetry3 (three failures,
// then a success), with and without the safety options. The breaker's
// threshold is 8, so a call's own three failures do not open it: the
// benchmark measures the bookkeeping of every dispatch and retry.
func BenchmarkSafetyRetry3(b *testing.B) {
	ctx := context.Background()
	base := []reflection.Option{reflection.WithReflector(retryReflector), reflection.WithStrategy(zeroBackoff)}
	drivers := map[string]*reflection.Driver{
		"options=none": reflection.NewDriver(base...),
		"options=safe": reflection.NewDriver(append(base, safeOptions(reflection.NewHealth(8, 0), bottomless())...)...),
	}
	for _, name := range []string{"options=none", "options=safe"} {
		d := drivers[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, flakyDispatch)
			}
			checkOK(b)
		})
	}
}

// BenchmarkLoopDetector: a Run under a session's LoopDetector, which
// records every dispatch as a digest of its tool, input and result, and is
// read before each one. One detector per benchmark, as one agent run has
// one; the success path of the first benchmark repeats one result, so after
// the warning threshold each result carries the detector's note (notes on).
func BenchmarkLoopDetector(b *testing.B) {
	base := []reflection.Option{reflection.WithReflector(retryReflector), reflection.WithStrategy(zeroBackoff)}
	plain := reflection.NewDriver(base...)
	watched := reflection.NewDriver(append(base, reflection.WithLoopDetection())...)
	for _, tc := range []struct {
		name string
		tool reflection.DispatchFunc
	}{{"path=success", okTool}, {"path=retry3", flakyDispatch}} {
		b.Run(tc.name+"/detector=none", func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				sinkRes, sinkErr = plain.Run(ctx, call, tc.tool)
			}
			checkOK(b)
		})
		b.Run(tc.name+"/detector=session", func(b *testing.B) {
			// stopAt is out of reach: every call repeats the last one's
			// results, and the benchmark measures the detector, not a refusal.
			ctx := reflection.ContextWithLoopDetector(context.Background(), reflection.NewLoopDetector(math.MaxInt, math.MaxInt))
			for b.Loop() {
				sinkRes, sinkErr = watched.Run(ctx, call, tc.tool)
			}
			checkOK(b)
		})
	}
}
