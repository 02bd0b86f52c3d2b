package bench

import (
	"context"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// BenchmarkCompose: what Chain, NewCache and the stock rules cost per
// analysis, against asking a reflector directly.
func BenchmarkCompose(b *testing.B) {
	ctx := context.Background()
	f := reflection.Failure{Tool: "search", Input: call.Input, Error: "503 Service Unavailable", Attempt: 1, MaxAttempts: 6}
	answer := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "busy"}, nil
	})
	skip := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{}, reflection.ErrSkipped
	})
	var sinkA reflection.FailureAnalysis
	run := func(b *testing.B, r reflection.Reflector) {
		for b.Loop() {
			sinkA, sinkErr = r.Analyze(ctx, f)
		}
		if sinkErr != nil {
			b.Fatal(sinkErr)
		}
	}
	b.Run("case=direct", func(b *testing.B) { run(b, answer) })
	b.Run("case=chain-first", func(b *testing.B) { run(b, reflection.Chain(answer, skip)) })
	b.Run("case=chain-after-a-skip", func(b *testing.B) { run(b, reflection.Chain(skip, answer)) })
	cache := reflection.NewCache(answer, 0, time.Hour)
	cache.Analyze(ctx, f)
	b.Run("case=cache-hit", func(b *testing.B) { run(b, cache) })
	b.Run("case=rules-hit", func(b *testing.B) { run(b, rules.New(rules.Defaults()...)) })
	_ = sinkA
}
