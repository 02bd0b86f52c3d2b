package reflectiontemporal

import "context"

// callInfo is what the tool activity tells the tool about the call it runs.
type callInfo struct {
	key     string
	attempt int
}

type callInfoKey struct{}

// withCallInfo returns ctx carrying info.
func withCallInfo(ctx context.Context, info callInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

// IdempotencyKey returns the idempotency key of the call that the tool
// activity runs: the workflow ID and the call ID, joined by "/". It is the
// same for every attempt of the call, so a tool with side effects can use
// it to recognise a repeat: a call that ran but whose completion was lost
// (the worker died after the tool returned) is retried as a new attempt
// with the same key. It is unique in a workflow as long as call IDs are.
// The second result is false, and the key "", outside a tool run by Run.
func IdempotencyKey(ctx context.Context) (string, bool) {
	info, ok := ctx.Value(callInfoKey{}).(callInfo)
	return info.key, ok
}

// CallAttempt returns the attempt of the call that the tool activity runs:
// 0 for the original call, as in reflection.Failure.Attempt. The second
// result is false, and the attempt 0, outside a tool run by Run.
func CallAttempt(ctx context.Context) (int, bool) {
	info, ok := ctx.Value(callInfoKey{}).(callInfo)
	return info.attempt, ok
}
