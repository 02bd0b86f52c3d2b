package reflection

import (
	"context"
	"time"
)

// Observer holds hooks that a Driver calls at each step of Run, so a host can
// trace, count or test recovery without parsing logs. Every hook is optional;
// an unset hook costs a nil check. Hooks run synchronously on the goroutine
// that called Run, must be safe for concurrent use when the Driver is
// shared, and should return quickly: Run waits for them. A panic in a hook is
// not recovered (it is the host's own code).
//
// attempt is 0-indexed, as in Failure.Attempt.
type Observer struct {
	// DispatchStart is called before each call of the dispatch func, with the
	// call as it will run (corrections applied).
	DispatchStart func(ctx context.Context, attempt int, call ToolCall)

	// DispatchDone is called after each call of the dispatch func with what
	// it returned. For a panic, res is zero and err matches ErrPanicked.
	DispatchDone func(ctx context.Context, attempt int, res ToolResult, err error)

	// Analyzed is called after the Reflector answers (or fails: err is set).
	Analyzed func(ctx context.Context, f Failure, a FailureAnalysis, err error)

	// Decided is called with the action the Driver will take, after the
	// Driver's own rules: a reflector error or an invalid action shows here
	// as Fail.
	Decided func(ctx context.Context, attempt int, action RecoveryAction)

	// Waiting is called before each wait between attempts, with the delay
	// (0 for an immediate retry).
	Waiting func(ctx context.Context, attempt int, delay time.Duration)

	// Corrected is called for each InputFix or ToolChange before a retry:
	// applied reports whether the call changed; when it did not, why says
	// the reason it was dropped.
	Corrected func(ctx context.Context, attempt int, c Correction, applied bool, why string)

	// Finished is called once as Run returns, with what it returns and the
	// number of dispatch calls made.
	Finished func(ctx context.Context, calls int, res ToolResult, err error)
}

func (o *Observer) empty() bool {
	return o.DispatchStart == nil && o.DispatchDone == nil && o.Analyzed == nil &&
		o.Decided == nil && o.Waiting == nil && o.Corrected == nil && o.Finished == nil
}
