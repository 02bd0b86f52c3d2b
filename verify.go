package reflection

import (
	"context"
	"strconv"
)

// Verdict is a verifier's answer about a failed attempt that may have acted
// (WithVerifier).
type Verdict int

// The verdicts a verifier gives.
const (
	VerdictUnknown    Verdict = iota // cannot tell: the guard asks, as without a verifier
	VerdictNotApplied                // the failed attempt certainly did not act: it may be retried
	VerdictApplied                   // it did act: the call ends succeeded with the verifier's result
)

var verdictNames = [...]string{"unknown", "not_applied", "applied"}

// String returns "unknown", "not_applied" or "applied".
func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// VerifyFunc looks up whether a failed attempt of call acted: a payment by
// its key, a message in the outbox. ctx carries the call's IdempotencyKey
// when it has one.
type verifyFunc = func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error)

// WithVerifier lets the effect guard look an effect up instead of asking.
// Before the guard turns a retry of a tool that may have acted (or a
// remembered call's re-issue, see EffectMemory) into a question, the
// runtime calls verify with the call whose ambiguous failure is in
// question, its tool and input as that dispatch ran; the ctx carries the
// call's IdempotencyKey when it has one.
//
// VerdictApplied: nothing more is dispatched and the call ends
// OutcomeSucceeded with the verifier's result (its ID the call's, IsError
// false). VerdictNotApplied: the retry goes on as after a failure that
// matched ErrNoEffect (the strategy's decision, the budget, the breaker and
// the loop guard still apply). VerdictUnknown, an error (whatever the
// verdict) or a panic: the guard asks, as it does without a verifier. A
// verification is neither an attempt nor a dispatch. verify must return
// when ctx ends; one that returns after ctx ended stops the call (its
// verdict is not used). It must be safe for concurrent use. It applies with
// WithEffects; nil means none.
func WithVerifier(verify func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error)) Option {
	return func(d *Driver) { d.verifier = verify }
}

// VerifyStep asks the runtime to look up whether Call's failed attempt
// acted, with the Driver's verifier (WithVerifier), and report the answer
// with Recovery.Verified. Call is the call whose ambiguous failure is in
// question, as that dispatch ran; Key is its idempotency key, "" when it
// has none, for the verifier's ctx. A runtime that cannot verify answers
// VerdictUnknown.
type VerifyStep struct {
	Call ToolCall
	Key  string
}

func (VerifyStep) isStep() {}

// verify calls the verifier, turning a panic into an error.
func verify(ctx context.Context, fn verifyFunc, call ToolCall) (v Verdict, res ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, res, err = VerdictUnknown, ToolResult{}, &PanicError{Where: "verifier", Value: p}
		}
	}()
	return fn(ctx, call)
}
