package reflection

import (
	"context"
	"sync/atomic"
)

// DefaultRetryBudget is the capacity of a RetryBudget made with 0: the AWS
// SDKs' retry quota.
const DefaultRetryBudget = 500

// What a retry costs a RetryBudget, and what a success gives back: the AWS
// SDKs' numbers.
const (
	retryTokens   = 5  // a retry after a failure
	timeoutTokens = 10 // a retry after a timeout
	successTokens = 1  // a call that succeeds on its first dispatch
)

// RetryBudget limits retries across every call of the Drivers that share
// it, so that an outage does not multiply the load on a failing dependency
// (the AWS SDKs' retry quota). It is safe for concurrent use; share one
// across the calls of a process, or one per dependency.
//
// The rules: each Retry takes 5 tokens, or 10 when the failure was a
// timeout (its error chain matches context.DeadlineExceeded, or an error in
// it has a Timeout() bool method that returns true), just before its wait.
// With fewer tokens than that, the retry is refused: the call ends softly
// with the latest failure text, OutcomeFailed, ReasonBudgetExhausted, and no
// wait. A call that succeeds on its first dispatch adds 1 token (never above
// the capacity); a call that succeeds on a retry gives back what that last
// retry took. A retry a human approved is not charged. A full budget is only
// read on the success path, never written, so calls that succeed do not
// contend.
//
// The zero RetryBudget has no tokens and refuses every retry: make one with
// NewRetryBudget.
type RetryBudget struct {
	capacity int64
	tokens   atomic.Int64

	// What a retry costs (WithCosts); 0 means the default.
	retry, timeout, throttle int
}

// NewRetryBudget returns a full budget of capacity tokens; 0 or less means
// DefaultRetryBudget.
func NewRetryBudget(capacity int) *RetryBudget {
	if capacity <= 0 {
		capacity = DefaultRetryBudget
	}
	b := &RetryBudget{capacity: int64(capacity)}
	b.tokens.Store(b.capacity)
	return b
}

// WithRetryBudget makes the Driver charge every retry to b (see
// RetryBudget). nil means none.
func WithRetryBudget(b *RetryBudget) Option {
	return func(d *Driver) { d.budget = b }
}

// WithCosts returns a new full budget of b's capacity whose retries cost
// retry tokens after a failure, timeout after a timeout, and throttle after
// a throttle (a failure whose status is 429, or that carries a rate-limit
// hint); b is unchanged. 0 or less keeps a cost's default: 5, 10, and a
// throttle costs what a retry does. AWS's 2026 retry behaviour charges 14
// after a transient failure or a timeout and 5 after a throttle
// (WithCosts(14, 14, 5)): on the recovery benchmark it sends fewer retries
// into an outage than the defaults when no breaker is on, and changes
// nothing beside one (BENCHMARKS.md).
func (b *RetryBudget) WithCosts(retry, timeout, throttle int) *RetryBudget {
	out := NewRetryBudget(int(b.capacity))
	out.retry, out.timeout, out.throttle = max(retry, 0), max(timeout, 0), max(throttle, 0)
	return out
}

// Tokens returns the tokens left.
func (b *RetryBudget) Tokens() int { return int(b.tokens.Load()) }

// take takes cost tokens, and reports false, taking none, when there are
// fewer.
func (b *RetryBudget) take(cost int) bool {
	for {
		t := b.tokens.Load()
		if t < int64(cost) {
			return false
		}
		if b.tokens.CompareAndSwap(t, t-int64(cost)) {
			return true
		}
	}
}

// reward adds the token of a call that succeeded at once.
func (b *RetryBudget) reward() { b.refund(successTokens) }

// refund gives back n tokens, never above the capacity; a full budget is
// read and not written.
func (b *RetryBudget) refund(n int) {
	for n > 0 {
		t := b.tokens.Load()
		if t >= b.capacity {
			return
		}
		if b.tokens.CompareAndSwap(t, min(t+int64(n), b.capacity)) {
			return
		}
	}
}

// cost is what a retry after a failure with err costs b.
func (b *RetryBudget) cost(err error) int {
	retry := or(b.retry, retryTokens)
	if err == nil {
		return retry
	}
	if chainIs(err, context.DeadlineExceeded) {
		return or(b.timeout, timeoutTokens)
	}
	if t, ok := chainAs[interface{ Timeout() bool }](err); ok && callTimeout(t) {
		return or(b.timeout, timeoutTokens)
	}
	if b.throttle > 0 && (StatusCode(err) == 429 || retryAfterHint(err) > 0) {
		return b.throttle
	}
	return retry
}

// or is n, or def when n is 0.
func or(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// callTimeout calls Timeout; a panic means no.
func callTimeout(t interface{ Timeout() bool }) (is bool) {
	defer func() {
		if recover() != nil {
			is = false
		}
	}()
	return t.Timeout()
}
