package reflection

import (
	"context"
	"strconv"
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

// AttemptTimeoutError is the failure of an attempt that outlived its
// time limit (WithAttemptTimeout for Driver.Run; a runtime with a limit of
// its own makes the same value). It matches context.DeadlineExceeded and
// unwraps to what the tool returned.
type AttemptTimeoutError struct {
	Tool  string        // the tool that ran
	Limit time.Duration // the limit it outlived
	Err   error         // the tool's own error; nil when it returned a result with IsError
}

// Error reads `tool "<name>" timed out after <limit>`.
func (e *AttemptTimeoutError) Error() string {
	return "tool " + strconv.Quote(e.Tool) + " timed out after " + e.Limit.String()
}

// Is reports whether target is context.DeadlineExceeded.
func (e *AttemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Unwrap returns the tool's own error.
func (e *AttemptTimeoutError) Unwrap() error { return e.Err }

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
