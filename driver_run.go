package reflection

import (
	"context"
	"fmt"
	"time"
)

// runtime performs the steps of one call's Recovery for Driver.Run: real
// dispatches, real timers, the caller's ctx, the Driver's hooks and log, and
// what calls share (a Health, a RetryBudget, a LoopDetector). It drives the
// machine only through its methods. It lives on the stack of Run.
type runtime struct {
	r         Recovery // the machine, by value: it stays on Run's stack
	o         outcome  // what the latest dispatch returned
	d         *Driver
	ctx       context.Context // the call's ctx, as the Observer's CallStart left it
	reflector Reflector
	detector  *LoopDetector
	breaker   *toolHealth                          // the breaker of the tool being dispatched; nil when untracked
	probing   *toolHealth                          // the breaker whose half-open probe this call holds, until its outcome is settled
	counted   [MaxRecoveryAttempts + 1]*toolHealth // the breakers this call's failures have counted on
	ncounted  int
	minted    bool          // the idempotency key is in ctx
	random    bool          // it was minted at random: a re-issue would get another
	memory    *EffectMemory // the memory the call is matched and remembered in; nil when none
	recalled  bool          // the memory remembered an earlier call equal to this one
	cost      int           // the budget tokens the pending retry took
	unsent    bool          // the pending retry's tokens are taken and it has not been dispatched
	seen      digest        // the loop detector's digest of the call being dispatched
	reserved  bool          // the loop detector holds a place for the dispatch under way
}

// drive runs a Recovery for call to its end. first is the failed outcome of
// the original call when Run has made it already; rep, when not nil, is
// filled with the call's report. Each feature the Driver does not use costs
// a nil check.
func (d *Driver) drive(ctx context.Context, call ToolCall, dispatch DispatchFunc, first *outcome, rep *Report) (ToolResult, error) {
	if obs := d.observer; obs != nil && obs.CallStart != nil {
		ctx = obs.CallStart(ctx, call)
	}
	var rt runtime // set field by field: a composite literal this large is built, then copied
	rt.d, rt.ctx, rt.reflector = d, ctx, d.reflector
	r := &rt.r
	r.init(ctx, call, &d.settings)
	r.keepReport(rep)
	if d.health != nil || d.detection || d.budget != nil {
		// Whatever ends the call, a panic of a hook or a log handler
		// included, gives back what it holds of the shared state.
		defer rt.letGo()
	}
	if rt.reflector == nil {
		rt.reflector = defaultReflector
	}
	if d.detection {
		rt.detector = loopDetectorFrom(ctx)
	}
	if d.effect != nil {
		rt.memory = d.memoryFor(ctx)
		if first == nil && dispatch != nil {
			rt.recallFirst(call)
		}
	}
	switch {
	case first != nil:
		r.dispatched(first, time.Time{}, time.Time{})
		if d.health != nil || rt.detector != nil {
			rt.afterDispatch(call, first)
		}
		rt.stoppedAfterFailure()
	case dispatch == nil:
		r.Stop(ErrNilDispatch)
	}
	if !d.busy && rep == nil {
		for {
			switch r.pending() {
			case phaseDispatch:
				if rt.ended() {
					continue
				}
				callDispatch(ctx, r.running(), dispatch, &rt.o)
				r.dispatched(&rt.o, time.Time{}, time.Time{})
				rt.stoppedAfterFailure()
			case phaseAnalyze:
				analyze(ctx, rt.reflector, r.failure(), r.answer())
				r.analyzed()
				rt.ended()
			case phaseWait:
				step := r.waitStep()
				if err := d.wait(ctx, step.Attempt, step.Delay); err != nil {
					r.Stop(err)
					continue
				}
				r.retry()
			case phaseAsk:
				rt.askStep()
			default:
				done := r.done()
				return done.Result, done.Err
			}
		}
	}

	for {
		switch r.pending() {
		case phaseDispatch:
			rt.dispatchStep(dispatch)
		case phaseAnalyze:
			rt.analyzeStep()
		case phaseWait:
			rt.waitStep()
		case phaseAsk:
			rt.askStep()
		case phaseVerify:
			rt.verifyStep()
		default:
			return rt.end()
		}
	}
}

// ended is the one rule for a ctx that has ended: the call stops with the
// cancel error. It reports whether ctx had ended.
func (rt *runtime) ended() bool {
	if rt.ctx.Err() == nil {
		return false
	}
	rt.stop()
	return true
}

// stop ends the call with the cancel error of rt.ctx.
func (rt *runtime) stop() { rt.r.Stop(stopError(rt.ctx)) }

// stoppedAfterFailure applies that rule after a failed dispatch: the caller
// has gone, so no Reflector is asked.
func (rt *runtime) stoppedAfterFailure() {
	if rt.r.pending() == phaseAnalyze {
		rt.ended()
	}
}

// dispatchStep runs one attempt: the loop detector and the circuit breaker
// first, then the dispatch with its hooks, attempt timeout and report times.
func (rt *runtime) dispatchStep(dispatch DispatchFunc) {
	if rt.ended() {
		return
	}
	d, r := rt.d, &rt.r
	step := r.dispatchStep()
	if rt.detector != nil {
		key, n, ok := rt.detector.reserve(step.Call)
		if !ok {
			r.Stop(&LoopDetectedError{Tool: step.Call.Name, Count: n})
			return
		}
		rt.seen, rt.reserved = key, true
	}
	rt.breaker = nil
	if h := d.health; h != nil {
		a := h.admit(step.Call.Name)
		if a.probe {
			rt.probing = a.t
		}
		rt.breakerChanged(step.Call.Name, a.change)
		if !a.admitted {
			rt.unreserve()
			r.Refuse(&circuitOpenError{retryIn: a.wait})
			return
		}
		rt.breaker = a.t
	}
	if d.effect != nil && !rt.minted && d.effectOf(step.Call.Name) == EffectKeyed {
		rt.mintKey()
	}
	ctx := rt.ctx
	if obs := d.observer; obs != nil {
		if obs.DispatchStart != nil {
			obs.DispatchStart(ctx, step.Attempt, step.Call)
			if rt.ctx.Err() != nil { // the hook cancelled: the call must not run
				rt.letGo()
				rt.ended()
				return
			}
		}
		if obs.AttemptStart != nil {
			ctx = obs.AttemptStart(ctx, step.Attempt, step.Call)
		}
	}
	rt.unsent = false // the retry is sent: its tokens are spent
	var start, end time.Time
	if r.reporting() {
		start = now()
	}
	if d.attemptTimeout > 0 {
		callWithTimeout(ctx, step.Call, dispatch, d.attemptTimeout, &rt.o)
	} else {
		callDispatch(ctx, step.Call, dispatch, &rt.o)
	}
	if r.reporting() {
		end = now()
	}
	r.dispatched(&rt.o, start, end)
	if d.health != nil || rt.detector != nil {
		rt.afterDispatch(step.Call, &rt.o)
	}
	if obs := d.observer; obs != nil && obs.DispatchDone != nil {
		obs.DispatchDone(ctx, step.Attempt, rt.o.res, rt.o.err)
	}
	rt.stoppedAfterFailure()
}

// afterDispatch tells what calls share about a dispatch of call: the
// breaker its outcome, the loop detector its result.
func (rt *runtime) afterDispatch(call ToolCall, o *outcome) {
	d := rt.d
	if h := d.health; h != nil {
		var change breakerChange
		probe := rt.probing != nil
		rt.probing = nil
		switch t := rt.breaker; {
		case rt.ctx.Err() != nil: // the caller's ctx ended: neither a success nor a failure
			t.release()
		case !o.failed():
			change = h.succeeded(t)
		case !d.tracks(call.Name):
		case !h.everyDispatch && (o.err != nil && neutralFailure(o.err)):
			t.release() // the caller's mistake: neither a success nor a failure
		case h.everyDispatch || probe || !rt.hasCounted(t):
			t, change = h.failed(t, call.Name, d.breakerHint(o.err))
			rt.markCounted(t)
		default:
			// The call has failed on this tool before: it counts once.
		}
		rt.breakerChanged(call.Name, change)
	}
	if rt.detector != nil {
		rt.reserved = false
		if n := rt.detector.record(rt.seen, o); n >= rt.detector.warnAt {
			rt.r.Repeated(n)
		}
	}
}

// hasCounted reports whether a failure of this call has counted on t.
func (rt *runtime) hasCounted(t *toolHealth) bool {
	if t == nil {
		return false
	}
	for _, c := range rt.counted[:rt.ncounted] {
		if c == t {
			return true
		}
	}
	return false
}

// markCounted notes that a failure of this call counted on t.
func (rt *runtime) markCounted(t *toolHealth) {
	if t != nil && !rt.hasCounted(t) && rt.ncounted < len(rt.counted) {
		rt.counted[rt.ncounted] = t
		rt.ncounted++
	}
}

// unreserve gives back the loop detector's place for a dispatch that will
// not run.
func (rt *runtime) unreserve() {
	if rt.reserved {
		rt.reserved = false
		rt.detector.release(rt.seen)
	}
}

// letGo gives back what the call holds of the shared state and has not
// used: a half-open breaker's probe place, the loop detector's place for a
// dispatch that did not run, and the tokens of a retry that was never sent.
// It runs when a dispatch is called off, and when Run ends, however it ends.
func (rt *runtime) letGo() {
	if rt.probing != nil {
		rt.probing.release()
		rt.probing = nil
	}
	rt.unreserve()
	if rt.unsent {
		rt.d.budget.refund(rt.cost)
		rt.unsent, rt.cost = false, 0
	}
}

// analyzeStep asks the Reflector about the current failure, reports its
// answer, and tells the observer and the log what the machine decided.
func (rt *runtime) analyzeStep() {
	d, r := rt.d, &rt.r
	f, an := r.failure(), r.answer()
	analyze(rt.ctx, rt.reflector, f, an)
	obs := d.observer
	if obs != nil && obs.Analyzed != nil {
		obs.Analyzed(rt.ctx, *f, an.a, an.err)
	}
	if an.err != nil && d.logger != nil {
		d.logReflectorError(rt.ctx, r, an.err)
	}
	r.analyzed()
	if obs != nil && obs.Decided != nil {
		obs.Decided(rt.ctx, f.Attempt, r.Action())
	}
	// ctx ended while the Reflector or the strategy ran: the caller has
	// gone (and a reflector error is then most likely the cancel itself),
	// so the cancel is the answer, whatever was decided.
	if rt.ended() {
		return
	}
	if d.logger != nil && r.Outcome() != OutcomeExhausted {
		d.logDecision(rt.ctx, r)
	}
}

// waitStep takes the wait before a retry: the retry budget first (a human's
// approval is not charged), then the wait, which ctx interrupts; then the
// machine applies the corrections.
func (rt *runtime) waitStep() {
	d, r := rt.d, &rt.r
	rt.cost = 0
	if b := d.budget; b != nil && !r.Approved() {
		cost := b.cost(r.failure().Err)
		if !b.take(cost) {
			r.Refuse(ErrRetryBudget)
			return
		}
		rt.cost, rt.unsent = cost, true
	}
	step := r.waitStep()
	if err := d.wait(rt.ctx, step.Attempt, step.Delay); err != nil {
		r.Stop(err)
		return
	}
	r.retry()
	rt.reportFixes(step.Attempt)
}

// askStep puts the machine's question to the Asker and reports the answer.
func (rt *runtime) askStep() {
	d, r := rt.d, &rt.r
	q := r.question()
	attempt := r.Attempt()
	d.logAsking(rt.ctx, r)
	ans, err := ask(rt.ctx, d.asker, q)
	if obs := d.observer; obs != nil && obs.Asked != nil {
		obs.Asked(rt.ctx, attempt, q, ans, err)
	}
	if rt.ended() {
		return
	}
	d.logAnswer(rt.ctx, r, ans, err)
	r.answered(ans, err)
	if r.pending() == phaseDispatch { // approved, and retried at once
		rt.cost = 0 // a human's approval is not charged
		rt.reportFixes(attempt)
	}
}

// recallFirst looks the call up in its memory before the first dispatch:
// an earlier equal call that may have acted holds this one back.
func (rt *runtime) recallFirst(call ToolCall) {
	m := rt.memory
	if m == nil || !m.mayHold(call.Name) || !rt.remembers(call.Name) {
		return
	}
	rc, ok := m.Recall(call, time.Now())
	if !ok {
		return
	}
	rt.recalled = true
	if obs := rt.d.observer; obs != nil && obs.Remembered != nil {
		obs.Remembered(rt.ctx, call, rc)
	}
	rt.r.Remembered(rc)
}

// remembers reports whether the memory keeps calls of tool: a tool that is
// not idempotent or undeclared, or a keyed one whose calls get a random key
// (a host's key, or one WithIdempotencyKeys derives, is the same for a
// re-issue, so the tool itself recognises it).
func (rt *runtime) remembers(tool string) bool {
	switch rt.d.effectOf(tool) {
	case EffectNonIdempotent, EffectUndeclared:
		return true
	case EffectKeyed:
		if hostKey(rt.ctx) != "" {
			return false
		}
		return rt.d.keyOf == nil || deriveKey(rt.d.keyOf, rt.r.original()) == ""
	}
	return false
}

// verifyStep asks the Driver's verifier whether the failed attempt in
// question acted, and reports the answer.
func (rt *runtime) verifyStep() {
	d, r := rt.d, &rt.r
	step := r.verifyStep()
	ctx := rt.ctx
	if step.Key != "" && IdempotencyKey(ctx) != step.Key {
		ctx = ContextWithIdempotencyKey(ctx, step.Key)
	}
	v, res, err := verify(ctx, d.verifier, step.Call)
	if obs := d.observer; obs != nil && obs.Verified != nil {
		obs.Verified(rt.ctx, step.Call, v, err)
	}
	if rt.ended() { // ctx ended while the verifier ran: its answer is not used
		return
	}
	r.verified(v, res, err)
}

// settleMemory tells the call's memory how the call ended: a success of a
// remembered call forgets the earlier one; a call that ended without
// success after it may have acted is remembered.
func (rt *runtime) settleMemory() {
	r, m := &rt.r, rt.memory
	call := r.original()
	switch {
	case r.Outcome() == OutcomeSucceeded:
		if rt.recalled {
			m.Forget(call)
		}
	case r.Calls() > 0 && r.mayHaveActed() && rt.remembers(call.Name):
		key := ""
		if rt.random {
			key = IdempotencyKey(rt.ctx)
		}
		m.Remember(call, RememberedCall{ID: call.ID, Ran: r.ambiguousCall(), Failure: r.failure().Error, Key: key, At: time.Now()})
	}
}

// end settles what calls share and returns what the machine decided.
func (rt *runtime) end() (ToolResult, error) {
	d, r := rt.d, &rt.r
	done := r.done()
	if rt.memory != nil {
		rt.settleMemory()
	}
	if b := d.budget; b != nil && r.Outcome() == OutcomeSucceeded && !rt.unsent {
		if r.Calls() == 1 {
			b.reward()
		} else {
			b.refund(rt.cost)
		}
	}
	if done.Err == nil && d.observer == nil && d.logger == nil {
		return done.Result, nil
	}
	switch {
	case done.Err != nil:
		d.logStop(rt.ctx, r, done.Err)
	case r.Reason() == ReasonCircuitOpen || r.Reason() == ReasonBudgetExhausted || r.Reason() == ReasonRefused:
		d.logRefused(rt.ctx, r)
	}
	if obs := d.observer; obs != nil {
		if obs.Finished != nil {
			obs.Finished(rt.ctx, r.Calls(), done.Result, done.Err)
		}
		if obs.Ended != nil {
			obs.Ended(rt.ctx, CallEnd{Result: done.Result, Err: done.Err, Outcome: r.Outcome(), Reason: r.Reason(), Calls: r.Calls()})
		}
	}
	return done.Result, done.Err
}

// reportFixes tells the observer and the log about the corrections the
// machine applied or dropped before the next attempt.
func (rt *runtime) reportFixes(attempt int) {
	d, r := rt.d, &rt.r
	fixes := r.corrections()
	if len(fixes) == 0 || d.observer == nil && d.logger == nil {
		return
	}
	for i := range fixes {
		f := &fixes[i]
		if obs := d.observer; obs != nil && obs.Corrected != nil {
			obs.Corrected(rt.ctx, attempt, *f.c, f.applied, f.why)
		}
		d.logFix(rt.ctx, r, attempt, f)
	}
}

// now reads the clock for a report: UTC and without the monotonic reading,
// so a report survives a trip through JSON unchanged.
func now() time.Time { return time.Now().UTC() }

// analyze calls the Reflector into out, turning a panic into an error.
func analyze(ctx context.Context, r Reflector, f *Failure, out *analysis) {
	defer catchReflector(out)
	out.a, out.err = r.Analyze(ctx, *f)
}

func catchReflector(out *analysis) {
	if v := recover(); v != nil {
		*out = analysis{err: &PanicError{Where: "reflector", Value: v}}
	}
}

// ask calls the Asker, turning a panic into an error.
func ask(ctx context.Context, a Asker, q Question) (ans Answer, err error) {
	if a == nil {
		return Answer{}, errNoAsker
	}
	defer func() {
		if v := recover(); v != nil {
			ans, err = Answer{}, &PanicError{Where: "asker", Value: v}
		}
	}()
	return a.Ask(ctx, q)
}

// stopError is the error for a ctx that has ended: it matches ctx.Err() and,
// when one was given, the cancel cause.
func stopError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("reflection: call stopped: %w: %w", err, cause)
	}
	return fmt.Errorf("reflection: call stopped: %w", err)
}

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

// wait sleeps delay (negative counts as 0) unless ctx ends first. It refuses
// at once a wait that would end at or after ctx's deadline: nothing could
// run after it.
func (d *Driver) wait(ctx context.Context, attempt int, delay time.Duration) error {
	delay = max(delay, 0)
	if obs := d.observer; obs != nil && obs.Waiting != nil {
		obs.Waiting(ctx, attempt, delay)
	}
	if delay == 0 {
		return nil
	}
	if ctx.Err() != nil {
		// Already cancelled: report that, not the deadline that a wait
		// would also have passed.
		return stopError(ctx)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := WaitPastDeadline(delay, time.Now(), deadline); err != nil {
			return err
		}
	}
	t := time.NewTimer(delay)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return stopError(ctx)
	}
}

// WaitPastDeadline refuses a wait that could not end before the deadline:
// it returns a *WaitPastDeadlineError when a wait of delay starting at now
// would end at or after deadline, and nil otherwise (a zero deadline means
// none). Nothing could run after such a wait, so a runtime ends the call at
// once instead of sleeping until the deadline ends it.
func WaitPastDeadline(delay time.Duration, now, deadline time.Time) error {
	if deadline.IsZero() || deadline.After(now.Add(max(delay, 0))) {
		return nil
	}
	return &WaitPastDeadlineError{Delay: delay}
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
