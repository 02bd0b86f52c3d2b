package reflection_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// ExponentialBackoff.WithJitter: Retry delays drawn
// uniformly from [(1−f)·d, d], d = DelayFor(attempt). Draws come from seeded
// PCG sources, so every count below is reproducible.

var jitterRecoverable = reflection.FailureAnalysis{IsRecoverable: true, RootCause: "flaky", Severity: reflection.SeverityLow}

// jitterDelay is b's Retry delay for attempt; it fails t on any other action.
func jitterDelay(t testing.TB, b reflection.ExponentialBackoff, attempt int) time.Duration {
	t.Helper()
	act := b.Decide(context.Background(), jitterRecoverable, attempt, reflection.MaxRecoveryAttempts+1)
	retry, ok := act.(reflection.Retry)
	require.True(t, ok, "Decide = %v, want a Retry", act)
	return retry.Delay
}

// countingSource counts the numbers drawn from a rand.Source.
type countingSource struct {
	src   rand.Source
	draws atomic.Int64
}

func (c *countingSource) Uint64() uint64 {
	c.draws.Add(1)
	return c.src.Uint64()
}

// TestJitterBounds: every delay lies in [(1−f)·d, d].
func TestJitterBounds(t *testing.T) {
	for _, f := range []float64{0.01, 0.1, 0.25, 0.5, 0.9, 1} {
		t.Run(time.Duration(f*float64(time.Second)).String(), func(t *testing.T) {
			b := reflection.NewExponentialBackoff(5).WithJitter(f).WithRandSource(rand.NewPCG(7, uint64(f*1000)))
			for attempt := range 5 {
				d := b.DelayFor(attempt)
				lo := (1 - f) * float64(d)
				for range 2000 {
					got := jitterDelay(t, b, attempt)
					if float64(got) < lo-1 || got > d {
						t.Fatalf("attempt %d: delay %v outside [%v, %v]", attempt, got, time.Duration(lo), d)
					}
				}
			}
		})
	}
}

// TestJitterSpread: 10,000 draws cover the interval evenly.
func TestJitterSpread(t *testing.T) {
	tests := []struct {
		name    string
		backoff reflection.ExponentialBackoff
		attempt int
		f       float64
	}{
		{"half of 400ms", reflection.NewExponentialBackoff(5), 2, 0.5},
		{"all of 30s", reflection.NewExponentialBackoff(5).WithBaseDelay(30 * time.Second), 0, 1},
		{"a tenth of 1.6s", reflection.NewExponentialBackoff(5), 4, 0.1},
		{"all of the largest delay", reflection.NewExponentialBackoff(5).WithBaseDelay(math.MaxInt64).WithMaxDelay(math.MaxInt64), 0, 1},
	}
	const draws, buckets = 10000, 10
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.backoff.WithJitter(tt.f).WithRandSource(rand.NewPCG(42, 1024))
			d := float64(b.DelayFor(tt.attempt))
			lo, width := (1-tt.f)*d, tt.f*d
			counts := make([]int, buckets)
			minSeen, maxSeen, sum := math.Inf(1), math.Inf(-1), 0.0
			distinct := map[time.Duration]bool{}
			for range draws {
				got := jitterDelay(t, b, tt.attempt)
				x := float64(got)
				minSeen, maxSeen, sum = min(minSeen, x), max(maxSeen, x), sum+x
				distinct[got] = true
				i := min(int((x-lo)/width*buckets), buckets-1)
				counts[max(i, 0)]++
			}
			// A bucket's count is binomial(10000, 0.1): mean 1000, sd 30.
			for i, n := range counts {
				assert.InDelta(t, draws/buckets, n, 150, "bucket %d of %v", i, counts)
			}
			assert.InDelta(t, lo, minSeen, 0.01*width, "the lowest draw is near the low end")
			assert.InDelta(t, d, maxSeen, 0.01*width, "the highest draw is near d")
			assert.InDelta(t, lo+width/2, sum/draws, 0.01*width, "the mean is mid-interval")
			assert.Greater(t, len(distinct), draws*9/10, "draws are not in lock step")
		})
	}
}

// TestJitterZeroIsExact: without jitter (0, or a fraction clamped to 0) the
// delay is DelayFor exactly and nothing is drawn.
func TestJitterZeroIsExact(t *testing.T) {
	for _, f := range []float64{0, -0.5, math.Inf(-1), math.NaN()} {
		src := &countingSource{src: rand.NewPCG(1, 2)}
		b := reflection.NewExponentialBackoff(5).WithJitter(f).WithRandSource(src)
		for attempt := range 5 {
			assert.Equal(t, b.DelayFor(attempt), jitterDelay(t, b, attempt), "fraction %v, attempt %d", f, attempt)
		}
		assert.Zero(t, src.draws.Load(), "fraction %v draws nothing", f)
		assert.Zero(t, b.Jitter())
	}
}

// TestJitterClamp: the fraction is clamped to [0, 1].
func TestJitterClamp(t *testing.T) {
	tests := []struct {
		f, want float64
	}{
		{-1, 0}, {0, 0}, {0.3, 0.3}, {1, 1}, {1.5, 1}, {math.Inf(1), 1}, {math.Inf(-1), 0}, {math.NaN(), 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, reflection.NewExponentialBackoff(3).WithJitter(tt.f).Jitter(), "WithJitter(%v)", tt.f)
	}
}

// TestJitterLeavesTheRestExact: DelayFor, the other settings, Fail and
// AskUser are what they are without jitter; a zero delay draws nothing; and
// WithJitter returns a copy.
func TestJitterLeavesTheRestExact(t *testing.T) {
	plain := reflection.NewExponentialBackoff(4).WithBaseDelay(50 * time.Millisecond).WithMaxDelay(time.Second)
	src := &countingSource{src: rand.NewPCG(3, 4)}
	jittered := plain.WithJitter(0.5).WithRandSource(src)

	for attempt := -1; attempt < 70; attempt++ {
		assert.Equal(t, plain.DelayFor(attempt), jittered.DelayFor(attempt), "DelayFor(%d)", attempt)
	}
	assert.Equal(t, plain.MaxRetries(), jittered.MaxRetries())
	assert.Equal(t, plain.BaseDelay(), jittered.BaseDelay())
	assert.Equal(t, plain.MaxDelay(), jittered.MaxDelay())
	assert.Zero(t, plain.Jitter(), "WithJitter changed a copy, not the original")

	ctx := context.Background()
	severe := jitterRecoverable
	severe.Severity = reflection.SeverityHigh
	severe.Correction = &reflection.Correction{Type: reflection.Escalate}
	for _, a := range []reflection.FailureAnalysis{{RootCause: "gone"}, severe} {
		assert.Equal(t, plain.Decide(ctx, a, 0, 6), jittered.Decide(ctx, a, 0, 6))
	}
	assert.Equal(t, plain.Decide(ctx, jitterRecoverable, 4, 6), jittered.Decide(ctx, jitterRecoverable, 4, 6), "max retries")
	assert.Zero(t, src.draws.Load(), "only a Retry draws")

	zero := reflection.NewExponentialBackoff(3).WithBaseDelay(0).WithJitter(1).WithRandSource(src)
	assert.Equal(t, reflection.Retry{}, zero.Decide(ctx, jitterRecoverable, 0, 6))
	assert.Zero(t, src.draws.Load(), "a zero delay draws nothing")
}

// TestJitterReproducible: the same seed gives the same delays; another seed
// gives others.
func TestJitterReproducible(t *testing.T) {
	b := reflection.NewExponentialBackoff(5).WithJitter(0.5)
	seq := func(seed uint64) []time.Duration {
		s := b.WithRandSource(rand.NewPCG(seed, seed))
		out := make([]time.Duration, 100)
		for i := range out {
			out[i] = jitterDelay(t, s, i%5)
		}
		return out
	}
	assert.Equal(t, seq(1), seq(1))
	assert.NotEqual(t, seq(1), seq(2))
}

// TestJitterDefaultSource: without WithRandSource (or with nil) the draws
// come from math/rand/v2's default source, within the same bounds.
func TestJitterDefaultSource(t *testing.T) {
	for name, b := range map[string]reflection.ExponentialBackoff{
		"no source":  reflection.NewExponentialBackoff(5).WithJitter(0.5),
		"nil source": reflection.NewExponentialBackoff(5).WithJitter(0.5).WithRandSource(rand.NewPCG(1, 1)).WithRandSource(nil),
	} {
		t.Run(name, func(t *testing.T) {
			d := b.DelayFor(3)
			distinct := map[time.Duration]bool{}
			for range 1000 {
				got := jitterDelay(t, b, 3)
				require.GreaterOrEqual(t, got, d/2)
				require.LessOrEqual(t, got, d)
				distinct[got] = true
			}
			assert.Greater(t, len(distinct), 900)
		})
	}
}

// TestJitterConcurrent: one jittered backoff, with a seeded source that is
// not safe for concurrent use on its own, shared by many goroutines (run
// with -race). Every draw stays in bounds and none is lost.
func TestJitterConcurrent(t *testing.T) {
	for name, src := range map[string]*countingSource{
		"seeded source": {src: rand.NewPCG(5, 6)},
		"default":       nil,
	} {
		t.Run(name, func(t *testing.T) {
			b := reflection.NewExponentialBackoff(5).WithJitter(0.8)
			if src != nil {
				b = b.WithRandSource(src)
			}
			const goroutines, each = 8, 2000
			var wg sync.WaitGroup
			var bad atomic.Int64
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						attempt := (g + i) % 5
						act := b.Decide(context.Background(), jitterRecoverable, attempt, 6)
						r, ok := act.(reflection.Retry)
						d := b.DelayFor(attempt)
						if !ok || float64(r.Delay) < 0.2*float64(d)-1 || r.Delay > d {
							bad.Add(1)
						}
					}
				})
			}
			wg.Wait()
			assert.Zero(t, bad.Load(), "delays out of bounds")
			if src != nil {
				assert.Equal(t, int64(goroutines*each), src.draws.Load(), "one draw per Retry")
			}
		})
	}
}

// TestJitterDriverWaitsTheDraw: a Driver waits exactly the jittered delay
// the strategy returned, and the report records it.
func TestJitterDriverWaitsTheDraw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backoff := reflection.NewExponentialBackoff(5).WithBaseDelay(time.Second).WithJitter(0.5)
		reference := backoff.WithRandSource(rand.NewPCG(11, 12))
		var want []time.Duration
		var total time.Duration
		for attempt := range 3 {
			d := jitterDelay(t, reference, attempt)
			want = append(want, d)
			total += d
		}
		tool := reflectiontest.NewTool(reflectiontest.Fail("busy"), reflectiontest.Fail("busy"), reflectiontest.Fail("busy"),
			reflectiontest.Succeed("done"))
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(jitterRecoverable, jitterRecoverable, jitterRecoverable)),
			reflection.WithStrategy(backoff.WithRandSource(rand.NewPCG(11, 12))),
		)
		start := time.Now()

		rep, err := d.RunWithReport(context.Background(), askCall, tool.Dispatch)

		require.NoError(t, err)
		reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded)
		assert.Equal(t, total, time.Since(start), "fake time waited")
		var got []time.Duration
		for _, a := range rep.Attempts[:3] {
			require.NotNil(t, a.Wait)
			got = append(got, a.Wait.Delay)
		}
		assert.Equal(t, want, got, "the report's waits")
		assert.NotEqual(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, got, "jittered")
	})
}

// BenchmarkJitterDecide measures one Retry decision of the stock backoff,
// without jitter, with the default source, and with a seeded source behind
// the backoff's lock.
func BenchmarkJitterDecide(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name    string
		backoff reflection.ExponentialBackoff
	}{
		{"off", reflection.NewExponentialBackoff(5)},
		{"default source", reflection.NewExponentialBackoff(5).WithJitter(0.5)},
		{"seeded source", reflection.NewExponentialBackoff(5).WithJitter(0.5).WithRandSource(rand.NewPCG(1, 2))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = bc.backoff.Decide(ctx, jitterRecoverable, i%5, 6)
			}
		})
	}
}
