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
// Two hooks return a context, so that a tracer can carry a span through the
// call whichever adapter runs it: CallStart's becomes the call's ctx, seen by
// every later hook, the Reflector, the strategy, the Asker and each dispatch;
// AttemptStart's is the one dispatch receives, so the tool's own spans nest
// under the attempt's.
//
// attempt is 0-indexed, as in Failure.Attempt.
type Observer struct {
	// CallStart is called once as Run starts, before anything else, and
	// returns the ctx the rest of the call runs under (ctx itself, or one
	// derived from it).
	CallStart func(ctx context.Context, call ToolCall) context.Context

	// AttemptStart is called before each call of the dispatch func, after
	// DispatchStart, and returns the ctx that this dispatch receives (ctx
	// itself, or one derived from it); DispatchDone receives it too.
	AttemptStart func(ctx context.Context, attempt int, call ToolCall) context.Context

	// DispatchStart is called before each call of the dispatch func, with the
	// call as it will run (corrections applied), before AttemptStart.
	//
	// Deprecated: AttemptStart is called at the same point with the same
	// arguments; use it.
	DispatchStart func(ctx context.Context, attempt int, call ToolCall)

	// DispatchDone is called after each call of the dispatch func with what
	// it returned, and the ctx it received. For a panic, res is zero and err
	// matches ErrPanicked.
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
	//
	// Deprecated: Ended receives the same and the outcome and reason; use it.
	Finished func(ctx context.Context, calls int, res ToolResult, err error)

	// Ended is called once as Run returns, after Finished, with the whole of
	// how the call ended: what Run returns, the outcome and its reason.
	Ended func(ctx context.Context, end CallEnd)

	// BreakerChanged is called when one of this Driver's calls changes the
	// state of a tool's circuit breaker (WithHealth): a failure opens it, a
	// probe let through after openFor moves it from open to half_open, the
	// probe's success closes it and its failure opens it again.
	BreakerChanged func(ctx context.Context, tool string, from, to BreakerState)

	// Remembered is called when the Driver's effect memory remembers an
	// earlier call of the same tool and input that may have acted without
	// succeeding (see EffectMemory), before the call's first dispatch.
	Remembered func(ctx context.Context, call ToolCall, earlier RememberedCall)

	// Verified is called after the verifier (WithVerifier) answers about
	// call, or fails (err is set; a panic shows as an error matching
	// ErrPanicked).
	Verified func(ctx context.Context, call ToolCall, v Verdict, err error)
}

// CallEnd is how a call ended, for the Observer's Ended hook.
type CallEnd struct {
	Result  ToolResult // what Run returns
	Err     error      // Run's error: nil but for a hard end
	Outcome Outcome
	Reason  Reason // "" for a success
	Calls   int    // dispatches made
}

func (o *Observer) empty() bool {
	return o.CallStart == nil && o.AttemptStart == nil && o.DispatchStart == nil && o.DispatchDone == nil &&
		o.Analyzed == nil && o.Decided == nil && o.Waiting == nil && o.Corrected == nil && o.Asked == nil &&
		o.Finished == nil && o.Ended == nil && o.BreakerChanged == nil && o.Remembered == nil && o.Verified == nil
}

// JoinObservers returns an Observer whose every hook calls the same hook of
// each argument, in order, skipping the unset ones; for the hooks that
// return a context, each one receives what the one before it returned. A
// hook that no argument sets stays unset in the result, so it still costs
// nothing. WithObserver keeps one Observer: a host and an adapter that both
// observe join theirs.
func JoinObservers(obs ...Observer) Observer {
	var (
		j              Observer
		callStart      []func(context.Context, ToolCall) context.Context
		attemptStart   []func(context.Context, int, ToolCall) context.Context
		dispatchStart  []func(context.Context, int, ToolCall)
		dispatchDone   []func(context.Context, int, ToolResult, error)
		analyzed       []func(context.Context, Failure, FailureAnalysis, error)
		decided        []func(context.Context, int, RecoveryAction)
		waiting        []func(context.Context, int, time.Duration)
		corrected      []func(context.Context, int, Correction, bool, string)
		asked          []func(context.Context, int, Question, Answer, error)
		finished       []func(context.Context, int, ToolResult, error)
		ended          []func(context.Context, CallEnd)
		breakerChanged []func(context.Context, string, BreakerState, BreakerState)
		remembered     []func(context.Context, ToolCall, RememberedCall)
		verified       []func(context.Context, ToolCall, Verdict, error)
	)
	for i := range obs {
		o := &obs[i]
		if o.CallStart != nil {
			callStart = append(callStart, o.CallStart)
		}
		if o.AttemptStart != nil {
			attemptStart = append(attemptStart, o.AttemptStart)
		}
		if o.DispatchStart != nil {
			dispatchStart = append(dispatchStart, o.DispatchStart)
		}
		if o.DispatchDone != nil {
			dispatchDone = append(dispatchDone, o.DispatchDone)
		}
		if o.Analyzed != nil {
			analyzed = append(analyzed, o.Analyzed)
		}
		if o.Decided != nil {
			decided = append(decided, o.Decided)
		}
		if o.Waiting != nil {
			waiting = append(waiting, o.Waiting)
		}
		if o.Corrected != nil {
			corrected = append(corrected, o.Corrected)
		}
		if o.Asked != nil {
			asked = append(asked, o.Asked)
		}
		if o.Finished != nil {
			finished = append(finished, o.Finished)
		}
		if o.Ended != nil {
			ended = append(ended, o.Ended)
		}
		if o.BreakerChanged != nil {
			breakerChanged = append(breakerChanged, o.BreakerChanged)
		}
		if o.Remembered != nil {
			remembered = append(remembered, o.Remembered)
		}
		if o.Verified != nil {
			verified = append(verified, o.Verified)
		}
	}
	if len(callStart) > 0 {
		j.CallStart = func(ctx context.Context, call ToolCall) context.Context {
			for _, h := range callStart {
				ctx = h(ctx, call)
			}
			return ctx
		}
	}
	if len(attemptStart) > 0 {
		j.AttemptStart = func(ctx context.Context, attempt int, call ToolCall) context.Context {
			for _, h := range attemptStart {
				ctx = h(ctx, attempt, call)
			}
			return ctx
		}
	}
	if len(dispatchStart) > 0 {
		j.DispatchStart = func(ctx context.Context, attempt int, call ToolCall) {
			for _, h := range dispatchStart {
				h(ctx, attempt, call)
			}
		}
	}
	if len(dispatchDone) > 0 {
		j.DispatchDone = func(ctx context.Context, attempt int, res ToolResult, err error) {
			for _, h := range dispatchDone {
				h(ctx, attempt, res, err)
			}
		}
	}
	if len(analyzed) > 0 {
		j.Analyzed = func(ctx context.Context, f Failure, a FailureAnalysis, err error) {
			for _, h := range analyzed {
				h(ctx, f, a, err)
			}
		}
	}
	if len(decided) > 0 {
		j.Decided = func(ctx context.Context, attempt int, action RecoveryAction) {
			for _, h := range decided {
				h(ctx, attempt, action)
			}
		}
	}
	if len(waiting) > 0 {
		j.Waiting = func(ctx context.Context, attempt int, delay time.Duration) {
			for _, h := range waiting {
				h(ctx, attempt, delay)
			}
		}
	}
	if len(corrected) > 0 {
		j.Corrected = func(ctx context.Context, attempt int, c Correction, applied bool, why string) {
			for _, h := range corrected {
				h(ctx, attempt, c, applied, why)
			}
		}
	}
	if len(asked) > 0 {
		j.Asked = func(ctx context.Context, attempt int, q Question, ans Answer, err error) {
			for _, h := range asked {
				h(ctx, attempt, q, ans, err)
			}
		}
	}
	if len(finished) > 0 {
		j.Finished = func(ctx context.Context, calls int, res ToolResult, err error) {
			for _, h := range finished {
				h(ctx, calls, res, err)
			}
		}
	}
	if len(ended) > 0 {
		j.Ended = func(ctx context.Context, end CallEnd) {
			for _, h := range ended {
				h(ctx, end)
			}
		}
	}
	if len(breakerChanged) > 0 {
		j.BreakerChanged = func(ctx context.Context, tool string, from, to BreakerState) {
			for _, h := range breakerChanged {
				h(ctx, tool, from, to)
			}
		}
	}
	if len(remembered) > 0 {
		j.Remembered = func(ctx context.Context, call ToolCall, earlier RememberedCall) {
			for _, h := range remembered {
				h(ctx, call, earlier)
			}
		}
	}
	if len(verified) > 0 {
		j.Verified = func(ctx context.Context, call ToolCall, v Verdict, err error) {
			for _, h := range verified {
				h(ctx, call, v, err)
			}
		}
	}
	return j
}
