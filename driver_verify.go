package reflection

import "context"

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

// verify calls the verifier, turning a panic into an error.
func verify(ctx context.Context, fn verifyFunc, call ToolCall) (v Verdict, res ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, res, err = VerdictUnknown, ToolResult{}, &PanicError{Where: "verifier", Value: p}
		}
	}()
	return fn(ctx, call)
}
