package reflectiontemporal

import "context"

type callAttemptKey struct{}

// withCallAttempt returns ctx carrying the attempt the tool activity runs.
func withCallAttempt(ctx context.Context, attempt int) context.Context {
	return context.WithValue(ctx, callAttemptKey{}, attempt)
}

// CallAttempt returns the attempt of the call that the tool activity runs:
// 0 for the original call, as in reflection.Failure.Attempt. The second
// result is false, and the attempt 0, outside a tool run by Run. The
// call's idempotency key is reflection.IdempotencyKey(ctx), as under
// Driver.Run.
func CallAttempt(ctx context.Context) (int, bool) {
	attempt, ok := ctx.Value(callAttemptKey{}).(int)
	return attempt, ok
}
