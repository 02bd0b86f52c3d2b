package reflection

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Recovery is the recovery loop for one tool call, as a state machine that
// performs no I/O: it never dispatches, sleeps, reads the clock, draws random
// numbers, starts goroutines, waits on a context or ranges over a map. It
// asks its runtime for one Step at a time (Next) and is told what came of it
// (Dispatched, Analyzed, Waited, Answered, Verified; Remembered before the
// first dispatch when an EffectMemory matches; Stop when the runtime's
// context ends, Refuse when the runtime will not perform a step). Driver.Run is one
// runtime; a durable workflow engine can be another, and both then follow
// the same rules: the ceiling, the corrections and their guards, the effect
// and loop guards, the AskUser text, the exhaustion error.
//
// The machine consults the Driver's RecoveryStrategy itself (a panic or an
// invalid action means Fail), and applies the schema lookup, the tool-change
// filter, the input check and the size cap to corrections. Reporting a result
// that does not answer the current step panics: that is a bug in the runtime,
// not bad input.
//
// A Recovery is used by one goroutine at a time. Its zero value is not
// usable; get one from Driver.NewRecovery.
type Recovery struct {
	s   *settings       // read only, but for EnableAsk on a copy of its own
	ctx context.Context // what the strategy's Decide receives

	call    ToolCall // as the model made it
	cur     ToolCall // as the next dispatch runs it: corrections applied
	attempt int      // 0 for the original call
	calls   int      // dispatches reported
	phase   phase

	fail   Failure         // the failure of the current attempt
	an     analysis        // the Reflector's answer to it (a zero analysis with an error)
	action RecoveryAction  // what the machine decided for it
	reason Reason          // why the call ends, once the decision ends it
	wait   time.Duration   // the wait of a WaitStep
	hint   time.Duration   // the rate-limit hint behind it
	human  json.RawMessage // an approved answer's input, not yet applied

	ambiguous bool // the current failure may have come after the tool acted (WithEffects)
	effectAsk bool // the pending AskUser is the effect guard's
	approved  bool // the pending wait follows a human's approval
	repeats   int  // how often the session saw the latest result (a loop detector's count)

	// The effect guard's record of the whole call (WithEffects).
	mayActed      int                               // dispatches that failed after a guarded tool may have acted
	anyAmbiguous  bool                              // some dispatch failed after its tool may have acted
	lastAmbiguous ToolCall                          // the latest such dispatch, as it ran
	acted         [MaxRecoveryAttempts + 1]ToolCall // the dispatches of guarded tools that may have acted, in order
	nacted        int
	verifying     ToolCall       // what the pending VerifyStep asks about
	verifyKey     string         // its idempotency key
	guardPrompt   string         // the question the guard asks when the verifier cannot tell
	recall        RememberedCall // an earlier call an EffectMemory remembers (Remembered)
	recalled      bool           // the call waits on a verification or an approval before its first dispatch

	plan  *plan     // the next attempt's call, worked out at the decision; nil until a guard needs one
	loops *loopSeen // the calls corrections have left (WithLoopGuard); nil until one has

	// The last analysis answered without an error, for the recovery notes.
	lastCause string
	lastFix   *Correction
	hasLast   bool
	corrected bool // a correction has been applied to the call

	fixes [2]fixRecord // the corrections of the latest retry
	nfix  int

	result   ToolResult
	err      error
	outcome  Outcome
	doneSeen bool // Next has returned the DoneStep

	rep *Report // the record of the call; nil when none is kept
}

// phase is the step a Recovery waits on.
type phase uint8

const (
	phaseDispatch phase = iota
	phaseAnalyze
	phaseWait
	phaseAsk
	phaseVerify
	phaseDone
)

// stepNames says, for each phase, the step the machine returned and the
// method that answers it: the words of a misuse panic.
var stepNames = [...]string{
	phaseDispatch: "a DispatchStep (answer it with Dispatched)",
	phaseAnalyze:  "an AnalyzeStep (answer it with Analyzed)",
	phaseWait:     "a WaitStep (answer it with Waited)",
	phaseAsk:      "an AskStep (answer it with Answered)",
	phaseVerify:   "a VerifyStep (answer it with Verified)",
	phaseDone:     "a DoneStep (the loop has ended)",
}

// init readies r for call.
func (r *Recovery) init(ctx context.Context, call ToolCall, s *settings) {
	r.s = s
	r.ctx = ctx
	r.call = call
	r.cur = call
	// The parts of every Failure that stay the same for the whole call.
	r.fail.Task = TaskFromContext(ctx)
	r.fail.MaxAttempts = MaxRecoveryAttempts + 1
}

// EnableAsk tells r that its runtime can put questions to a human, so an
// AskUser decision yields an AskStep even when the Driver has no Asker. Call
// it before the first Next.
func (r *Recovery) EnableAsk() { r.s.canAsk = true }

// Next returns the step the runtime must perform now: a DispatchStep,
// AnalyzeStep, WaitStep, AskStep, VerifyStep or DoneStep. It may be called again and
// returns the same step until the runtime reports on it. Returning the
// DoneStep is the one thing it changes: from then on the call's ending is
// final, so Stop and Refuse change nothing, and Next always returns that
// DoneStep.
func (r *Recovery) Next() Step {
	switch r.phase {
	case phaseDispatch:
		return DispatchStep{Attempt: r.attempt, Call: r.cur}
	case phaseAnalyze:
		return AnalyzeStep{Failure: r.fail}
	case phaseWait:
		return WaitStep{Attempt: r.attempt, Delay: r.wait}
	case phaseAsk:
		return AskStep{Question: r.question()}
	case phaseVerify:
		return r.verifyStep()
	}
	return r.done()
}

// What a runtime reads to perform the current step. Next returns the step as
// a value of the Step interface; Driver.Run, which must not allocate, reads
// the same through these twins of Next, and only through them.

// pending returns the phase whose step Next returns.
func (r *Recovery) pending() phase { return r.phase }

// dispatchStep is the DispatchStep that Next returns.
func (r *Recovery) dispatchStep() DispatchStep { return DispatchStep{Attempt: r.attempt, Call: r.cur} }

// failure is the AnalyzeStep's Failure, which the Reflector reads in place.
func (r *Recovery) failure() *Failure { return &r.fail }

// verifyStep is the VerifyStep that Next returns.
func (r *Recovery) verifyStep() VerifyStep { return VerifyStep{Call: r.verifying, Key: r.verifyKey} }

// waitStep is the WaitStep that Next returns.
func (r *Recovery) waitStep() WaitStep { return WaitStep{Attempt: r.attempt, Delay: r.wait} }

// running is the call as it runs now: the original call with the
// corrections applied so far.
func (r *Recovery) running() ToolCall { return r.cur }

// original is the call as the model made it.
func (r *Recovery) original() ToolCall { return r.call }

// callID is the id of the call as the model made it.
func (r *Recovery) callID() string { return r.call.ID }

// mayHaveActed reports whether a dispatch of the call failed after its tool
// may have acted (WithEffects).
func (r *Recovery) mayHaveActed() bool { return r.anyAmbiguous }

// ambiguousCall is the latest dispatch that failed after its tool may have
// acted, as it ran.
func (r *Recovery) ambiguousCall() ToolCall { return r.lastAmbiguous }

// corrections are the corrections the latest retry applied or dropped.
func (r *Recovery) corrections() []fixRecord { return r.fixes[:r.nfix] }

// done is Next at the end: it marks the DoneStep as returned.
func (r *Recovery) done() DoneStep {
	r.doneSeen = true
	return DoneStep{Result: r.result, Err: r.err}
}

// expect panics unless the machine waits on want: the runtime reported a
// result that does not answer the current step.
func (r *Recovery) expect(want phase, method string) {
	if r.phase != want {
		panic(fmt.Sprintf("reflection: Recovery.%s called, but the current step is %s", method, stepNames[r.phase]))
	}
}

// Dispatched reports what the DispatchStep's call returned. A returned error
// counts as a failure whose text is err.Error(), even with a result; a
// result with IsError is a failure whose text is its Content.
func (r *Recovery) Dispatched(res ToolResult, err error) {
	r.DispatchedAt(res, err, time.Time{}, time.Time{})
}

// DispatchedAt is Dispatched with the times the call started and ended, as
// the runtime's clock read them; the Report keeps them.
func (r *Recovery) DispatchedAt(res ToolResult, err error, start, end time.Time) {
	r.expect(phaseDispatch, "Dispatched")
	o := outcome{res: res, err: err}
	r.dispatched(&o, start, end)
}

// dispatched is DispatchedAt once the step is checked.
func (r *Recovery) dispatched(o *outcome, start, end time.Time) {
	r.calls++
	r.repeats = 0
	if r.rep != nil {
		r.recordDispatch(o.res, o.err, start, end)
	}
	if !o.failed() {
		r.reason = ""
		r.finish(ToolResult{ID: r.call.ID, Content: r.successContent(o.res.Content)}, nil, OutcomeSucceeded)
		return
	}
	f := &r.fail
	if o.err != nil {
		f.Error = errorText(o.err)
	} else {
		f.Error = o.res.Content
	}
	f.Tool, f.Input, f.Attempt, f.Err = r.cur.Name, r.cur.Input, r.attempt, o.err
	if r.s.schemas != nil {
		f.Schema = nil
		if sch, ok := r.s.lookup(r.cur.Name); ok {
			f.Schema = &sch
		}
	}
	if r.s.effect != nil {
		r.noteEffect(o.err)
	}
	r.phase = phaseAnalyze
}

// Analyzed reports the Reflector's answer to the AnalyzeStep's failure. An
// error (the runtime turns a panic into one) means Fail, and the strategy is
// not asked; otherwise the strategy decides, inside the machine.
func (r *Recovery) Analyzed(a FailureAnalysis, err error) {
	r.expect(phaseAnalyze, "Analyzed")
	r.an.a, r.an.err = a, err
	r.analyzed()
}

// answer is where the runtime puts the Reflector's answer before it calls
// analyzed: Analyzed's twin, without copying the answer twice.
func (r *Recovery) answer() *analysis { return &r.an }

// analyzed is Analyzed once the step is checked and the answer is in r.an.
func (r *Recovery) analyzed() {
	r.hint = 0
	if r.plan != nil {
		r.plan.done = false
	}
	var action RecoveryAction
	reason := ReasonStrategy
	if err := r.an.err; err != nil {
		r.an.a = FailureAnalysis{}
		action, reason = Fail{Reason: errorText(err)}, analysisReason(err)
	} else {
		if r.s.notes {
			r.lastCause, r.lastFix, r.hasLast = r.an.a.RootCause, r.an.a.Correction, true
		}
		var valid bool
		if action, valid = decide(r.ctx, r.s.strategyOrDefault(), &r.an.a, r.attempt); !valid {
			reason = ReasonInvalidAction
		}
	}
	r.action, r.reason, r.effectAsk = action, reason, false
	if r.rep != nil {
		r.recordAnalysis()
	}
	switch act := action.(type) {
	case Retry:
		r.retryDecided(act)
	case AskUser:
		r.askDecided(act)
	case Skip:
		r.endSoft(r.fail.Error, OutcomeSkipped)
	default: // Fail: decide allows nothing else
		r.endSoft(r.fail.Error, OutcomeFailed)
	}
}

// retryDecided follows a Retry through the machine's rules, in order: the
// ceiling, the effect guard, the rate-limit cap and the loop guard; what
// passes them all waits, then retries.
func (r *Recovery) retryDecided(act Retry) {
	if r.attempt == MaxRecoveryAttempts {
		r.reason = ReasonCeiling
		r.finish(ToolResult{ID: r.call.ID, Content: r.fail.Error, IsError: true},
			&ToolRecoveryExhaustedError{Tool: r.call.Name, Attempts: r.calls}, OutcomeExhausted)
		return
	}
	r.retryGuarded(act)
}

// retryGuarded follows a Retry the ceiling let through: the effect guard,
// the rate-limit cap and the loop guard.
func (r *Recovery) retryGuarded(act Retry) {
	if r.effectGuard() {
		return
	}
	if r.findHint() > 0 && r.refuseHint() {
		return
	}
	if r.s.loopGuard && r.loopRefuses() {
		r.reason = ReasonCorrectionLoop
		r.endSoft(r.fail.Error, OutcomeFailed)
		return
	}
	r.startWait(max(act.Delay, r.hint, 0), false)
}

// effectGuard holds the Retry back when the effect guard refuses it: a
// VerifyStep when the Driver has a verifier, else the guard's AskUser. It
// reports whether it did.
func (r *Recovery) effectGuard() bool {
	prompt, about, refuse := r.effectRefuses()
	if !refuse {
		return false
	}
	if r.s.verifier != nil {
		r.verifying, r.verifyKey, r.guardPrompt = about, "", prompt
		r.phase = phaseVerify
		return true
	}
	r.guardAsk(prompt)
	return true
}

// guardAsk turns the pending decision into the effect guard's AskUser.
func (r *Recovery) guardAsk(prompt string) {
	act := AskUser{Prompt: prompt}
	r.action, r.reason, r.effectAsk = act, ReasonAmbiguousEffect, true
	if r.recording() {
		r.recordAction()
	}
	r.askDecided(act)
}

// Verified reports the verifier's answer to the VerifyStep: VerdictApplied
// ends the call succeeded with res (its ID the call's); VerdictNotApplied
// lets the retry (or the remembered call's first dispatch) go on as after a
// failure that had no effect; VerdictUnknown, or any err (the runtime turns
// a panic into one), asks as the effect guard does without a verifier.
func (r *Recovery) Verified(v Verdict, res ToolResult, err error) {
	r.expect(phaseVerify, "Verified")
	r.verified(v, res, err)
}

// verified is Verified once the step is checked.
func (r *Recovery) verified(v Verdict, res ToolResult, err error) {
	if err != nil {
		v = VerdictUnknown
	}
	switch v {
	case VerdictApplied:
		r.recalled = false
		r.reason = ""
		r.finish(ToolResult{ID: r.call.ID, Content: res.Content}, nil, OutcomeSucceeded)
	case VerdictNotApplied:
		if r.recalled {
			r.recalled = false
			r.phase = phaseDispatch
			return
		}
		r.clearActed(r.verifying.Name)
		if sameCall(r.verifying, r.cur) {
			r.ambiguous = false
		}
		act, _ := r.action.(Retry)
		r.retryGuarded(act)
	default:
		if r.recalled {
			r.recallAsk()
			return
		}
		r.guardAsk(r.guardPrompt)
	}
}

// Remembered tells r, before its first dispatch, that an EffectMemory
// remembers rc: an earlier call of the same tool with an equal input that
// ended without success after it may have acted. The call is then not
// dispatched blindly: Next returns a VerifyStep about rc.Ran when the Driver
// has a verifier, else the effect guard's AskUser (ReasonAmbiguousEffect),
// whose prompt names rc.ID and whose Failure carries rc.Failure. An
// approval, or VerdictNotApplied, dispatches the call. Driver.Run calls it
// itself; a runtime of its own calls it when its memory matches. Called
// later than before the first dispatch, it changes nothing.
func (r *Recovery) Remembered(rc RememberedCall) {
	if r.phase != phaseDispatch || r.calls > 0 || r.recalled {
		return
	}
	r.recall, r.recalled = rc, true
	r.fail.Tool, r.fail.Input, r.fail.Error = rc.Ran.Name, rc.Ran.Input, rc.Failure
	if r.s.effect != nil {
		r.fail.Effect = r.s.effectOf(rc.Ran.Name)
	}
	if r.s.verifier != nil {
		r.verifying, r.verifyKey = rc.Ran, rc.Key
		r.phase = phaseVerify
		return
	}
	r.recallAsk()
}

// recallAsk asks before a remembered call's first dispatch.
func (r *Recovery) recallAsk() {
	act := AskUser{Prompt: rememberedPrompt(r.recall)}
	r.action, r.reason, r.effectAsk = act, ReasonAmbiguousEffect, true
	if !r.s.canAsk {
		r.endSoft(r.fail.Error+"\n\n"+humanDecision(act.Prompt), OutcomeAskedUser)
		return
	}
	r.phase = phaseAsk
}

// recording reports whether the Report has an attempt to add to.
func (r *Recovery) recording() bool { return r.rep != nil && len(r.rep.Attempts) > 0 }

// askDecided follows an AskUser: a question when the runtime can ask, else
// the soft AskUser ending.
func (r *Recovery) askDecided(act AskUser) {
	if !r.s.canAsk || r.attempt == MaxRecoveryAttempts {
		r.endSoft(r.fail.Error+"\n\n"+humanDecision(r.warnedPrompt(act.Prompt)), OutcomeAskedUser)
		return
	}
	if r.findHint() > 0 && r.refuseHint() {
		return
	}
	r.phase = phaseAsk
}

// startWait yields the WaitStep before the next attempt.
func (r *Recovery) startWait(d time.Duration, approved bool) {
	r.wait, r.approved = d, approved
	r.phase = phaseWait
	if r.rep != nil {
		r.recordWait()
	}
}

// findHint sets r.hint to the rate-limit hint of the current failure: the
// larger of the analysis' RetryAfter and the hint in the error's chain.
func (r *Recovery) findHint() time.Duration {
	r.hint = max(r.an.a.RetryAfter, 0)
	if r.fail.Err != nil {
		r.hint = max(r.hint, retryAfterHint(r.fail.Err))
	}
	return r.hint
}

// refuseHint turns the retry into Fail when the hint is above the cap (no
// call is wasted on a service that said no) and reports whether it did.
func (r *Recovery) refuseHint() bool {
	limit := r.s.hintCap()
	if r.hint <= limit {
		return false
	}
	r.action = Fail{Reason: "the service asks to wait " + r.hint.String() +
		" before a retry, more than the cap of " + limit.String()}
	if !r.effectAsk {
		r.reason = ReasonHintOverCap
	}
	if r.rep != nil {
		r.recordAction()
	}
	r.endSoft(r.fail.Error, OutcomeFailed)
	return true
}

// Waited reports that the WaitStep's wait is over. The pending corrections
// are applied and the next attempt is dispatched.
func (r *Recovery) Waited() {
	r.expect(phaseWait, "Waited")
	r.retry()
}

// Answered reports a human's answer to the AskStep's question, or the
// Asker's error (the runtime turns a panic into one). An approval retries
// the call with the analysis' correction and then the answer's input
// applied, after the rate-limit hint's wait when there is one; a refusal or
// an error ends the call as AskUser does without an Asker (a refusal says so,
// and adds the reply).
func (r *Recovery) Answered(ans Answer, err error) {
	r.expect(phaseAsk, "Answered")
	r.answered(ans, err)
}

// answered is Answered once the step is checked.
func (r *Recovery) answered(ans Answer, err error) {
	if r.recording() {
		r.recordAnswer(ans, err)
	}
	content := r.fail.Error + "\n\n" + humanDecision(r.prompt())
	switch {
	case err != nil:
		if !r.effectAsk {
			r.reason = ReasonAskFailed
		}
		r.endSoft(content, OutcomeAskedUser)
	case !ans.Approve:
		r.reason = ReasonDeclined
		content += "\n\n" + humanDeclined
		if ans.Reply != "" {
			content += "\n\n" + ans.Reply
		}
		r.endSoft(content, OutcomeAskedUser)
	case r.recalled: // approved: the remembered call's first dispatch
		r.reason, r.effectAsk, r.recalled = "", false, false
		r.nfix = 0
		if len(ans.Input) > 0 {
			r.applyCorrection(&Correction{Type: InputFix, Description: humanInputDescription, ModifiedInput: ans.Input}, true)
		}
		r.phase = phaseDispatch
	default:
		r.reason, r.effectAsk = "", false
		if len(ans.Input) > 0 {
			r.human = ans.Input
		}
		if r.hint > 0 {
			r.startWait(r.hint, true)
			return
		}
		r.retry()
	}
}

// Stop ends the loop because the runtime's context ended, or because the
// runtime cannot go on for another reason (err says which, and matches the
// context's error for a cancel). Next then returns the DoneStep Run gives for
// a cancel at this point: err, and an error result with the latest failure
// text, or err's text when no call has failed yet. Stop may be called at any
// time before Next has returned a DoneStep, and overrides a soft end or an
// exhaustion the machine decided but has not returned; it does not override
// a success (the work happened). Once Next has returned the DoneStep, Stop
// changes nothing.
//
// The Reason follows err: ReasonDeadline for a *WaitPastDeadlineError,
// ReasonNilDispatch for ErrNilDispatch, ReasonLoopDetected for a
// *LoopDetectedError (whose result then says the dispatch was refused),
// ReasonCanceled for anything else; a nil err means "reflection: call
// stopped".
func (r *Recovery) Stop(err error) {
	if r.doneSeen || r.outcome == OutcomeSucceeded {
		return
	}
	if err == nil {
		err = errStopped
	}
	r.markWaitStopped()
	text := r.fail.Error
	if r.calls == 0 {
		text = errorText(err)
	}
	reason := stopReason(err)
	if reason == ReasonLoopDetected {
		text = loopRefusal + errorText(err)
	}
	r.reason = reason
	r.finish(ToolResult{ID: r.call.ID, Content: text, IsError: true}, err, OutcomeStopped)
}

// Refuse ends the loop softly because the runtime will not perform the
// current DispatchStep (a circuit breaker is open) or WaitStep (the retry
// budget is spent). err says why, and the Content tells the model:
//
//   - ErrCircuitOpen (ReasonCircuitOpen): "tool temporarily unavailable:
//     circuit breaker open", followed by "; retry in about Ns" when err also
//     has a RetryAfter() time.Duration method saying how long the breaker
//     stays open (N in whole seconds, rounded up), as Driver.Run's refusals
//     do;
//   - ErrRetryBudget (ReasonBudgetExhausted): a sentence saying the call was
//     not retried because the retry budget is spent;
//   - the runtime's own error (ReasonRefused): err's text.
//
// When a call has already failed, the Content is that failure's text, then
// a blank line, then the refusal's sentence (for the runtime's own error,
// the failure text alone), so the model keeps the real error. The outcome
// is OutcomeFailed and the error nil. A refused dispatch is not an attempt:
// no Reflector is asked about it. Refuse at an AnalyzeStep or AskStep
// panics; once Next has returned the DoneStep, or once the machine has
// ended the call, it changes nothing.
func (r *Recovery) Refuse(err error) {
	switch r.phase {
	case phaseAnalyze, phaseAsk, phaseVerify:
		panic("reflection: Recovery.Refuse called, but the current step is " + stepNames[r.phase] +
			" (only a DispatchStep or a WaitStep can be refused)")
	case phaseDone:
		return
	}
	if err == nil {
		err = errRefused
	}
	r.markWaitStopped()
	reason := refuseReason(err)
	r.reason = reason
	text := r.fail.Error
	switch sentence := refusalText(reason, err); {
	case sentence == "" && r.calls == 0:
		text = errorText(err)
	case sentence == "":
	case r.calls == 0:
		text = sentence
	default:
		text += "\n\n" + sentence
	}
	r.endSoft(text, OutcomeFailed)
}

// retry applies the pending corrections (the analysis' own, then an approved
// human input) and moves on to the next attempt.
func (r *Recovery) retry() {
	r.nfix = 0
	r.approved = false
	var left ToolCall
	if r.s.loopGuard {
		left = r.cur
	}
	if c := r.an.a.Correction; c != nil {
		r.applyCorrection(c, false)
	}
	if r.human != nil {
		in := &Correction{Type: InputFix, Description: humanInputDescription, ModifiedInput: r.human}
		r.human = nil
		r.applyCorrection(in, true)
	}
	if r.s.loopGuard && r.nfix > 0 && !sameCall(left, r.cur) {
		if r.loops == nil {
			r.loops = new(loopSeen)
		}
		r.loops.leave(left, r.cur)
	}
	r.attempt++
	r.phase = phaseDispatch
}

// endSoft ends the call with a soft error: content (the failure text and
// whatever AskUser adds), followed by the recovery notes when notes are on.
func (r *Recovery) endSoft(content string, o Outcome) {
	if r.s.notes {
		content = withNote(withNote(content, r.softNote()), repeatNote(r.repeats))
	}
	r.finish(ToolResult{ID: r.call.ID, Content: content, IsError: true}, nil, o)
}

// successContent is a success's output, followed by the recovery note when
// notes are on and a correction shaped the call that succeeded.
func (r *Recovery) successContent(output string) string {
	if !r.s.notes || !r.corrected {
		return output
	}
	return withNote(output, successNote(r.cur))
}

// finish ends the loop with res and err; r.reason is already set. A call
// that did not succeed after dispatches that may have acted says how many.
func (r *Recovery) finish(res ToolResult, err error, o Outcome) {
	if o != OutcomeSucceeded && r.mayActed > 0 {
		res.Content = withNote(res.Content, r.actedWarning())
	}
	r.result, r.err, r.outcome = res, err, o
	r.phase = phaseDone
	if r.rep != nil {
		r.recordEnd()
	}
}

// question is the AskStep's question.
func (r *Recovery) question() Question {
	return Question{Call: r.cur, Failure: r.fail, Analysis: r.an.a, Prompt: r.prompt(),
		Dispatches: r.calls, MayHaveActed: r.mayActed}
}

// prompt is the pending AskUser's prompt, after the effect guard's warning
// when a dispatch of the call may have acted.
func (r *Recovery) prompt() string {
	p := ""
	if act, ok := r.action.(AskUser); ok {
		p = act.Prompt
	}
	return r.warnedPrompt(p)
}

// Outcome says how the loop ended, or 0 while it runs.
func (r *Recovery) Outcome() Outcome {
	if r.phase != phaseDone {
		return 0
	}
	return r.outcome
}

// Reason says why the loop ended as it did: "" for a success and while it
// runs.
func (r *Recovery) Reason() Reason {
	if r.phase != phaseDone {
		return ""
	}
	return r.reason
}

// Attempt returns the index of the current attempt: 0 for the original call.
func (r *Recovery) Attempt() int { return r.attempt }

// Calls returns the number of dispatches reported so far.
func (r *Recovery) Calls() int { return r.calls }

// Action returns what the machine decided after the latest analysis, after
// its own rules (a reflector error, an invalid action or a hint over the cap
// show here as Fail; a Retry the effect guard refused, as its AskUser); nil
// before the first analysis.
func (r *Recovery) Action() RecoveryAction { return r.action }

// Hint returns the rate-limit hint behind the latest decision: the larger of
// the analysis' RetryAfter and the hint found in the failure's error chain.
func (r *Recovery) Hint() time.Duration { return r.hint }

// Failure returns the latest failure: what the Reflector was, or is about to
// be, asked about. It is the zero Failure before any call has failed.
func (r *Recovery) Failure() Failure { return r.fail }

// Approved reports whether the pending WaitStep follows a human's approval
// (a rate-limit hint's wait), rather than a Retry decision: a retry budget
// does not charge it.
func (r *Recovery) Approved() bool { return r.phase == phaseWait && r.approved }

// Repeated tells r that the result it was just told about (Dispatched) has
// now come back n times in this session for the same tool and input: a loop
// detector's count, at or past its warning threshold. With
// WithRecoveryNotes, when the call ends on that result (a success, or a soft
// end on that failure), its Content carries a note saying so. Call it right
// after Dispatched, before Next.
func (r *Recovery) Repeated(n int) {
	if n <= 0 || r.calls == 0 {
		return
	}
	r.repeats = n
	if r.phase == phaseDone && r.outcome == OutcomeSucceeded && !r.doneSeen && r.s.notes {
		r.result.Content = withNote(r.result.Content, repeatNote(n))
		if r.rep != nil {
			r.rep.Result = r.result
		}
	}
}

// decide asks the strategy and keeps only the four action values; anything
// else (nil, a pointer, a panic) becomes Fail, and valid is false.
func decide(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int) (action RecoveryAction, valid bool) {
	askStrategy(ctx, s, a, attempt, &action)
	switch act := action.(type) {
	case Retry, Skip, AskUser, Fail:
		return action, true
	case strategyPanic:
		return Fail(act), false
	case nil:
		return Fail{Reason: "recovery strategy returned no action"}, false
	default:
		return Fail{Reason: fmt.Sprintf("recovery strategy returned unsupported action %T", action)}, false
	}
}

// askStrategy calls the strategy into out, turning a panic into a
// strategyPanic.
func askStrategy(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int, out *RecoveryAction) {
	defer catchStrategy(out)
	*out = s.Decide(ctx, *a, attempt, MaxRecoveryAttempts+1)
}

func catchStrategy(out *RecoveryAction) {
	if v := recover(); v != nil {
		*out = strategyPanic{Reason: (&PanicError{Where: "recovery strategy", Value: v}).Error()}
	}
}

// strategyPanic stands, inside decide, for a strategy that panicked.
type strategyPanic Fail

func (strategyPanic) isRecoveryAction() {}
func (p strategyPanic) String() string  { return Fail(p).String() }

// analysis is what the Reflector answered, or the error it gave instead.
type analysis struct {
	a   FailureAnalysis
	err error
}

// outcome is what one dispatch produced.
type outcome struct {
	res ToolResult
	err error // dispatch's error, or a *PanicError
}

func (o *outcome) failed() bool { return o.err != nil || o.res.IsError }

// humanInputDescription describes, in a report and to observers, the input a
// human gave with an approval.
const humanInputDescription = "input given by a human"

// settings are the rules one Recovery follows. A Driver holds them and hands
// each Recovery a copy, so the machine never refers to its Driver.
type settings struct {
	strategy   RecoveryStrategy
	schemas    SchemaLookup
	allowTool  func(from, to string) bool
	inputCheck func(tool string, input json.RawMessage) error
	maxFixSize int                      // 0 means defaultMaxCorrectedInput; negative means no limit
	maxHint    time.Duration            // 0 means defaultMaxRetryAfter
	canAsk     bool                     // AskUser yields an AskStep
	notes      bool                     // WithRecoveryNotes
	effect     func(tool string) Effect // WithEffects; nil: the effect guard is off
	loopGuard  bool                     // WithLoopGuard
	verifier   verifyFunc               // WithVerifier; nil: the guard asks. The machine only asks for a VerifyStep
}

// defaultStrategy is the strategy of a Driver without one, stored as an
// interface value once, so using it costs no allocation.
var defaultStrategy RecoveryStrategy = NewExponentialBackoff(3)

func (s *settings) strategyOrDefault() RecoveryStrategy {
	if s.strategy == nil {
		return defaultStrategy
	}
	return s.strategy
}

func (s *settings) fixLimit() int {
	if s.maxFixSize == 0 {
		return defaultMaxCorrectedInput
	}
	return s.maxFixSize
}

func (s *settings) hintCap() time.Duration {
	if s.maxHint <= 0 {
		return defaultMaxRetryAfter
	}
	return s.maxHint
}
