package reflection

import (
	"context"
	"strconv"
	"time"
)

// Default settings of NewExponentialBackoff.
const (
	DefaultBaseDelay = 100 * time.Millisecond
	DefaultMaxDelay  = 30 * time.Second
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
}

// NewExponentialBackoff returns a strategy that allows up to maxRetries
// retries (a negative count means 0), waiting 100ms, 200ms, 400ms and so on,
// capped at 30s.
func NewExponentialBackoff(maxRetries int) ExponentialBackoff {
	return ExponentialBackoff{
		maxRetries: max(maxRetries, 0),
		base:       DefaultBaseDelay,
		max:        DefaultMaxDelay,
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
//  1. a failure that is not recoverable: Fail{Reason: a.RootCause};
//  2. attempt >= limit: Fail{Reason: "max retries (<limit>) exceeded"};
//  3. severity High or above with a correction: AskUser;
//  4. otherwise Retry{Delay: b.DelayFor(attempt)}.
func (b ExponentialBackoff) Decide(_ context.Context, a FailureAnalysis, attempt, maxAttempts int) RecoveryAction {
	if !a.IsRecoverable {
		return Fail{Reason: a.RootCause}
	}
	limit := max(min(b.maxRetries, maxAttempts-1), 0)
	if attempt >= limit {
		return Fail{Reason: "max retries (" + strconv.Itoa(limit) + ") exceeded"}
	}
	if a.Severity >= SeverityHigh && a.Correction != nil {
		return AskUser{Prompt: "high-severity failure with correction available: " + a.RootCause}
	}
	return Retry{Delay: b.DelayFor(attempt)}
}
