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

	// Asked is called after the Asker (WithAsker) answers a question, or
	// fails (err is set; a panic shows as an error matching ErrPanicked).
	Asked func(ctx context.Context, attempt int, q Question, ans Answer, err error)

	// Finished is called once as Run returns, with what it returns and the
	// number of dispatch calls made.
	Finished func(ctx context.Context, calls int, res ToolResult, err error)
}

func (o *Observer) empty() bool {
	return o.DispatchStart == nil && o.DispatchDone == nil && o.Analyzed == nil &&
		o.Decided == nil && o.Waiting == nil && o.Corrected == nil && o.Asked == nil &&
		o.Finished == nil
}

// JoinObservers returns an Observer whose every hook calls the same hook of
// each argument, in order, skipping the unset ones. A hook that no argument
// sets stays unset in the result, so it still costs nothing. WithObserver
// keeps one Observer: a host and an adapter that both observe join theirs.
func JoinObservers(obs ...Observer) Observer {
	all := append([]Observer(nil), obs...)
	var j Observer
	set := func(has func(*Observer) bool) bool {
		for i := range all {
			if has(&all[i]) {
				return true
			}
		}
		return false
	}
	if set(func(o *Observer) bool { return o.DispatchStart != nil }) {
		j.DispatchStart = func(ctx context.Context, attempt int, call ToolCall) {
			for i := range all {
				if h := all[i].DispatchStart; h != nil {
					h(ctx, attempt, call)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.DispatchDone != nil }) {
		j.DispatchDone = func(ctx context.Context, attempt int, res ToolResult, err error) {
			for i := range all {
				if h := all[i].DispatchDone; h != nil {
					h(ctx, attempt, res, err)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Analyzed != nil }) {
		j.Analyzed = func(ctx context.Context, f Failure, a FailureAnalysis, err error) {
			for i := range all {
				if h := all[i].Analyzed; h != nil {
					h(ctx, f, a, err)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Decided != nil }) {
		j.Decided = func(ctx context.Context, attempt int, action RecoveryAction) {
			for i := range all {
				if h := all[i].Decided; h != nil {
					h(ctx, attempt, action)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Waiting != nil }) {
		j.Waiting = func(ctx context.Context, attempt int, delay time.Duration) {
			for i := range all {
				if h := all[i].Waiting; h != nil {
					h(ctx, attempt, delay)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Corrected != nil }) {
		j.Corrected = func(ctx context.Context, attempt int, c Correction, applied bool, why string) {
			for i := range all {
				if h := all[i].Corrected; h != nil {
					h(ctx, attempt, c, applied, why)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Asked != nil }) {
		j.Asked = func(ctx context.Context, attempt int, q Question, ans Answer, err error) {
			for i := range all {
				if h := all[i].Asked; h != nil {
					h(ctx, attempt, q, ans, err)
				}
			}
		}
	}
	if set(func(o *Observer) bool { return o.Finished != nil }) {
		j.Finished = func(ctx context.Context, calls int, res ToolResult, err error) {
			for i := range all {
				if h := all[i].Finished; h != nil {
					h(ctx, calls, res, err)
				}
			}
		}
	}
	return j
}
