package reflection

import (
	"context"
	"time"
)

// callWithTimeout is callDispatch under a context that ends limit after the
// call starts (WithAttemptTimeout). A call that fails once that context has
// ended, while the caller's own is alive, becomes an *AttemptTimeoutError; a
// success is kept, however late. A tool that ignores its context still blocks
// until it returns: no goroutine is started to abandon it.
func callWithTimeout(ctx context.Context, call ToolCall, fn DispatchFunc, limit time.Duration, o *outcome) {
	actx, cancel := context.WithTimeout(ctx, limit)
	callDispatch(actx, call, fn, o)
	timedOut := actx.Err() != nil && ctx.Err() == nil
	cancel()
	if timedOut && o.failed() {
		o.err = &AttemptTimeoutError{Tool: call.Name, Limit: limit, Err: o.err}
	}
}

// callDispatch calls fn and turns a panic into a failed outcome; it sets
// every field of o either way. It defers a named function rather than a
// closure: on the happy path that is nearly free.
func callDispatch(ctx context.Context, call ToolCall, fn DispatchFunc, o *outcome) {
	defer catchDispatch(o, call.Name)
	// Results go through locals and are stored field by field: copying the
	// whole struct just after the call stalls on store forwarding.
	res, err := fn(ctx, call)
	o.res.ID, o.res.Content, o.res.IsError = res.ID, res.Content, res.IsError
	o.err = err
}

func catchDispatch(o *outcome, tool string) {
	if v := recover(); v != nil {
		o.res = ToolResult{}
		o.err = ToolPanic(tool, v)
	}
}
