package reflection

import (
	"context"
	"strconv"
	"time"
)

// callWithTimeout is callDispatch under a context that ends limit after the
// call starts (WithAttemptTimeout). A call that fails once that context has
// ended, while the caller's own is alive, becomes an attemptTimeoutError; a
// success is kept, however late. A tool that ignores its context still blocks
// until it returns: no goroutine is started to abandon it.
func callWithTimeout(ctx context.Context, call ToolCall, fn DispatchFunc, limit time.Duration, o *outcome) {
	actx, cancel := context.WithTimeout(ctx, limit)
	callDispatch(actx, call, fn, o)
	timedOut := actx.Err() != nil && ctx.Err() == nil
	cancel()
	if timedOut && o.failed() {
		o.err = &attemptTimeoutError{tool: call.Name, limit: limit, cause: o.err}
	}
}

// attemptTimeoutError is the failure of an attempt that outlived
// WithAttemptTimeout. It matches context.DeadlineExceeded, and unwraps to
// what the tool returned.
type attemptTimeoutError struct {
	tool  string
	limit time.Duration
	cause error // the tool's own error; nil when it returned a result with IsError
}

func (e *attemptTimeoutError) Error() string {
	return "tool " + strconv.Quote(e.tool) + " timed out after " + e.limit.String()
}

func (e *attemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

func (e *attemptTimeoutError) Unwrap() error { return e.cause }
