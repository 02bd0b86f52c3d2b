package reflection

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// The delays of NewExponentialBackoff: 100ms first, doubled at each retry
// up to 30s.
const (
	defaultBaseDelay = 100 * time.Millisecond
	defaultMaxDelay  = 30 * time.Second
)

// ExponentialBackoff is the default RecoveryStrategy: it retries recoverable
// failures after base × 2ⁿ (capped), up to a number of retries, and asks the
// user when a severe failure comes with a correction.
//
// It is an immutable value: the With methods return a modified copy, and one
// value may be shared by any number of goroutines and Drivers. The zero value
// never retries; build one with NewExponentialBackoff.
type ExponentialBackoff struct {
	maxRetries int
	base       time.Duration
	max        time.Duration
	more       *more // nil: no jitter, no AskOnEscalate; behind a pointer, Decide's receiver stays four words
}

// more holds what an ExponentialBackoff rarely uses: its jitter and
// WithAskOnEscalate. A fifth word in ExponentialBackoff itself would no
// longer fit the registers a call of Decide passes its receiver in, which
// made Decide three times slower.
type more struct {
	fraction       float64     // the jitter, in [0, 1]
	rng            *lockedRand // nil: math/rand/v2's default source
	askEscalations bool
}

// lockedRand guards a caller's rand.Source, which is not safe for concurrent
// use, so one backoff can be shared.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) int64N(n int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Int64N(n)
}

// NewExponentialBackoff returns a strategy that allows up to maxRetries
// retries (a negative count means 0), waiting 100ms, 200ms, 400ms and so on,
// capped at 30s.
func NewExponentialBackoff(maxRetries int) ExponentialBackoff {
	return ExponentialBackoff{
		maxRetries: max(maxRetries, 0),
		base:       defaultBaseDelay,
		max:        defaultMaxDelay,
	}
}

// WithBaseDelay returns a copy of b whose first delay is d (negative counts as 0).
func (b ExponentialBackoff) WithBaseDelay(d time.Duration) ExponentialBackoff {
	b.base = max(d, 0)
	return b
}

// WithMaxDelay returns a copy of b whose delays never exceed d (negative
// counts as 0).
func (b ExponentialBackoff) WithMaxDelay(d time.Duration) ExponentialBackoff {
	b.max = max(d, 0)
	return b
}

// WithJitter returns a copy of b whose Retry delays are drawn uniformly from
// [(1−fraction)·d, d], where d is DelayFor(attempt), so many agents failing
// together do not retry in lock step. fraction is clamped to [0, 1]; 0 (the
// default) turns jitter off. DelayFor stays exact.
func (b ExponentialBackoff) WithJitter(fraction float64) ExponentialBackoff {
	switch {
	case !(fraction > 0): // also NaN
		fraction = 0
	case fraction > 1:
		fraction = 1
	}
	j := b.moreOrZero()
	j.fraction = fraction
	b.more = &j
	return b
}

// WithRandSource returns a copy of b that draws its jitter from src, guarded
// by a lock of its own since a rand.Source is not safe for concurrent use. A
// seeded source makes the draws reproducible; a workflow engine's replay-safe
// source makes them deterministic. nil means math/rand/v2's default source.
func (b ExponentialBackoff) WithRandSource(src rand.Source) ExponentialBackoff {
	j := b.moreOrZero()
	j.rng = nil
	if src != nil {
		j.rng = &lockedRand{r: rand.New(src)}
	}
	b.more = &j
	return b
}

func (b ExponentialBackoff) moreOrZero() more {
	if b.more == nil {
		return more{}
	}
	return *b.more
}

// Jitter returns the fraction set by WithJitter; 0 means none.
func (b ExponentialBackoff) Jitter() float64 { return b.moreOrZero().fraction }

// MaxRetries returns the number of retries b allows.
func (b ExponentialBackoff) MaxRetries() int { return b.maxRetries }

// BaseDelay returns the delay before the first retry.
func (b ExponentialBackoff) BaseDelay() time.Duration { return b.base }

// MaxDelay returns the cap on every delay.
func (b ExponentialBackoff) MaxDelay() time.Duration { return b.max }

// DelayFor returns min(base × 2^attempt, cap). It saturates instead of
// overflowing, treats a negative attempt as 0, and returns the cap for every
// attempt when the cap is below the base.
func (b ExponentialBackoff) DelayFor(attempt int) time.Duration {
	attempt = max(attempt, 0)
	switch {
	case b.max <= b.base:
		return b.max
	case b.base == 0:
		return 0
	case attempt >= 63 || b.base > b.max>>attempt:
		// base × 2^attempt would pass the cap (or overflow on the way).
		return b.max
	}
	return b.base << attempt
}

// Decide applies four rules in order; the first that matches wins. With
// limit = min(MaxRetries, maxAttempts−1), never below 0:
//
//  1. a failure that is not recoverable: Fail{Reason: a.RootCause}, or with
//     WithAskOnEscalate and an Escalate correction, AskUser;
//  2. attempt >= limit: Fail{Reason: "max retries (<limit>) exceeded"};
//  3. severity High or above with a correction: AskUser;
//  4. otherwise Retry{Delay: b.DelayFor(attempt)}, jittered when WithJitter
//     is set.
func (b ExponentialBackoff) Decide(_ context.Context, a FailureAnalysis, attempt, maxAttempts int) RecoveryAction {
	if !a.IsRecoverable {
		if c := a.Correction; c != nil && c.Type == Escalate && b.more != nil && b.more.askEscalations {
			return AskUser{Prompt: escalationPrompt(c)}
		}
		return Fail{Reason: a.RootCause}
	}
	limit := max(min(b.maxRetries, maxAttempts-1), 0)
	if attempt >= limit {
		return Fail{Reason: "max retries (" + strconv.Itoa(limit) + ") exceeded"}
	}
	if a.Severity >= SeverityHigh && a.Correction != nil {
		return AskUser{Prompt: "high-severity failure with correction available: " + a.RootCause}
	}
	d := b.DelayFor(attempt)
	if j := b.more; j != nil && j.fraction > 0 && d > 0 {
		d -= j.draw(jitterSpan(j.fraction, d))
	}
	return Retry{Delay: d}
}

// WithAskOnEscalate returns a copy of b whose Decide answers AskUser,
// instead of Fail, for a failure whose correction is Escalate, even when it
// is not recoverable (as the stock rules mark rejected credentials), so that
// a Driver with an Asker puts it to a human. The prompt is the correction's
// Guidance, or its Description when Guidance is empty. Only a failure that
// is not recoverable changes.
func (b ExponentialBackoff) WithAskOnEscalate() ExponentialBackoff {
	j := b.moreOrZero()
	j.askEscalations = true
	b.more = &j
	return b
}

// escalationPrompt is the AskUser prompt for an Escalate correction.
func escalationPrompt(c *Correction) string {
	if c.Guidance != "" {
		return c.Guidance
	}
	return c.Description
}

// jitterSpan returns fraction·d. For the largest delays the product rounds
// up to 2⁶³, which no Duration holds (the conversion would overflow and turn
// jitter off): it saturates instead.
func jitterSpan(fraction float64, d time.Duration) time.Duration {
	span := fraction * float64(d)
	if span >= math.MaxInt64 { // float64(math.MaxInt64) is 2⁶³
		return math.MaxInt64
	}
	return time.Duration(span)
}

// draw returns a duration drawn uniformly from [0, span].
func (j *more) draw(span time.Duration) time.Duration {
	if span <= 0 {
		return 0
	}
	n := int64(span)
	if n < 1<<62 {
		n++ // include span itself
	}
	if j.rng != nil {
		return time.Duration(j.rng.int64N(n))
	}
	return time.Duration(rand.Int64N(n))
}
