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
// (Dispatched, Analyzed, Waited, Answered, or Stop when the runtime's context
// ends). Driver.Run is one runtime; a durable workflow engine can be another,
// and both then follow the same rules: the ceiling, the corrections and their
// guards, the AskUser text, the exhaustion error.
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
	wait   time.Duration   // the wait of a WaitStep
	hint   time.Duration   // the rate-limit hint behind it
	human  json.RawMessage // an approved answer's input, not yet applied

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
	phaseDone
)

// stepNames says, for each phase, the step the machine returned and the
// method that answers it: the words of a misuse panic.
var stepNames = [...]string{
	phaseDispatch: "a DispatchStep (answer it with Dispatched)",
	phaseAnalyze:  "an AnalyzeStep (answer it with Analyzed)",
	phaseWait:     "a WaitStep (answer it with Waited)",
	phaseAsk:      "an AskStep (answer it with Answered)",
	phaseDone:     "a DoneStep (the loop has ended)",
}

// fixRecord is one correction the machine applied or dropped.
type fixRecord struct {
	c       *Correction // the analysis' own, or one made for a human's input
	human   bool        // the input came from a human's Answer
	applied bool        // the call changed
	why     string      // why it was dropped; names no tool or input
	detail  string      // the input check's own words, when it refused
}

// NewRecovery returns the recovery loop for call, following d's settings.
// ctx is what the strategy's Decide receives and where the task comes from
// (TaskFromContext); the machine never waits on it or checks it: the runtime
// does, and calls Stop. A nil ctx counts as context.Background(), and a nil
// d as NewDriver().
//
// A Recovery from NewRecovery keeps a Report of the call (see
// Recovery.Report). Its AskUser decisions yield an AskStep when d has an
// Asker (WithAsker) or when the runtime calls EnableAsk.
func (d *Driver) NewRecovery(ctx context.Context, call ToolCall) *Recovery {
	if d == nil {
		d = &defaultDriver
	}
	if ctx == nil {
		ctx = context.Background()
	}
	own := d.settings // EnableAsk changes this copy, never the Driver's
	r := &Recovery{rep: &Report{}}
	r.init(ctx, call, &own)
	return r
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
// AnalyzeStep, WaitStep, AskStep or DoneStep. It changes nothing, so it may
// be called again; once it has returned a DoneStep, it always will.
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
	}
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

// dispatched is Dispatched for a runtime that has checked the step.
func (r *Recovery) dispatched(o *outcome, start, end time.Time) {
	r.calls++
	if r.rep != nil {
		r.recordDispatch(o.res, o.err, start, end)
	}
	if !o.failed() {
		content := o.res.Content
		if r.s.notes {
			content = r.successContent(content)
		}
		r.finish(ToolResult{ID: r.call.ID, Content: content}, nil, OutcomeSucceeded)
		return
	}
	f := &r.fail
	if o.err != nil {
		f.Error = ErrorText(o.err)
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

// analyzed is Analyzed for a runtime that has checked the step and put the
// answer in r.an.
func (r *Recovery) analyzed() {
	r.hint = 0
	var action RecoveryAction
	if err := r.an.err; err != nil {
		r.an.a = FailureAnalysis{}
		action = Fail{Reason: ErrorText(err)}
	} else {
		if r.s.notes {
			r.lastCause, r.lastFix, r.hasLast = r.an.a.RootCause, r.an.a.Correction, true
		}
		action = decide(r.ctx, r.s.strategyOrDefault(), &r.an.a, r.attempt)
	}
	r.action = action
	if r.rep != nil {
		r.recordAnalysis()
	}
	text := r.fail.Error
	switch act := action.(type) {
	case Retry:
		if r.attempt == MaxRecoveryAttempts {
			r.finish(ToolResult{ID: r.call.ID, Content: text, IsError: true},
				&ToolRecoveryExhaustedError{Tool: r.call.Name, Attempts: r.calls}, OutcomeExhausted)
			return
		}
		if r.findHint() > 0 && r.refuseHint() {
			return
		}
		r.wait = max(act.Delay, r.hint, 0)
		r.phase = phaseWait
		if r.rep != nil {
			r.recordWait()
		}
	case AskUser:
		if !r.s.canAsk || r.attempt == MaxRecoveryAttempts {
			r.endSoft(text+"\n\n"+humanDecision(act.Prompt), OutcomeAskedUser)
			return
		}
		if r.findHint() > 0 && r.refuseHint() {
			return
		}
		r.phase = phaseAsk
	case Skip:
		r.endSoft(text, OutcomeSkipped)
	default: // Fail: decide allows nothing else
		r.endSoft(text, OutcomeFailed)
	}
}

// findHint sets r.hint to the rate-limit hint of the current failure: the
// larger of the analysis' RetryAfter and the hint in the error's chain.
func (r *Recovery) findHint() time.Duration {
	r.hint = max(r.an.a.RetryAfter, 0)
	if r.fail.Err != nil {
		r.hint = max(r.hint, RetryAfterHint(r.fail.Err))
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
	if r.rep != nil {
		r.recordAnswer(ans, err)
	}
	prompt := ""
	if act, ok := r.action.(AskUser); ok {
		prompt = act.Prompt
	}
	content := r.fail.Error + "\n\n" + humanDecision(prompt)
	switch {
	case err != nil:
		r.endSoft(content, OutcomeAskedUser)
	case !ans.Approve:
		content += "\n\n" + humanDeclined
		if ans.Reply != "" {
			content += "\n\n" + ans.Reply
		}
		r.endSoft(content, OutcomeAskedUser)
	default:
		if len(ans.Input) > 0 {
			r.human = ans.Input
		}
		if r.hint > 0 {
			r.wait = r.hint
			r.phase = phaseWait
			if r.rep != nil {
				r.recordWait()
			}
			return
		}
		r.retry()
	}
}

// Stop ends the loop because the runtime's context ended, or the runtime
// cannot go on for another reason (err says which, and matches the
// context's error for a cancel). Next then returns the DoneStep API.md gives
// for a cancel at this point: err, and an error result with the latest
// failure text, or err's text when no call has failed yet. Stop may be called
// at any time before Next has returned a DoneStep, and overrides a soft end
// or an exhaustion the machine decided but has not returned; it does not
// override a success (the work happened). Later calls change nothing.
func (r *Recovery) Stop(err error) {
	if r.doneSeen || r.outcome == OutcomeSucceeded {
		return
	}
	if err == nil {
		err = errStopped
	}
	if r.phase == phaseWait && r.rep != nil {
		if w := r.current().Wait; w != nil {
			w.Stopped = true
		}
	}
	text := r.fail.Error
	if r.calls == 0 {
		text = ErrorText(err)
	}
	r.finish(ToolResult{ID: r.call.ID, Content: text, IsError: true}, err, OutcomeStopped)
}

// retry applies the pending corrections (the analysis' own, then an approved
// human input) and moves on to the next attempt.
func (r *Recovery) retry() {
	r.nfix = 0
	if c := r.an.a.Correction; c != nil {
		r.applyCorrection(c, false)
	}
	if r.human != nil {
		in := &Correction{Type: InputFix, Description: humanInputDescription, ModifiedInput: r.human}
		r.human = nil
		r.applyCorrection(in, true)
	}
	r.attempt++
	r.phase = phaseDispatch
}

// endSoft ends the call with a soft error: content (the failure text and
// whatever AskUser adds), followed by the recovery note when notes are on.
func (r *Recovery) endSoft(content string, o Outcome) {
	if r.s.notes {
		content = withNote(content, r.softNote())
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

// finish ends the loop with res and err.
func (r *Recovery) finish(res ToolResult, err error, o Outcome) {
	r.result, r.err, r.outcome = res, err, o
	r.phase = phaseDone
	if r.rep != nil {
		r.recordEnd()
	}
}

// question is the AskStep's question.
func (r *Recovery) question() Question {
	prompt := ""
	if act, ok := r.action.(AskUser); ok {
		prompt = act.Prompt
	}
	return Question{Call: r.cur, Failure: r.fail, Analysis: r.an.a, Prompt: prompt}
}

// Outcome says how the loop ended, or 0 while it runs.
func (r *Recovery) Outcome() Outcome {
	if r.phase != phaseDone {
		return 0
	}
	return r.outcome
}

// Attempt returns the index of the current attempt: 0 for the original call.
func (r *Recovery) Attempt() int { return r.attempt }

// Calls returns the number of dispatches reported so far.
func (r *Recovery) Calls() int { return r.calls }

// Action returns what the machine decided after the latest analysis, after
// its own rules (a reflector error, an invalid action or a hint over the cap
// show here as Fail); nil before the first analysis.
func (r *Recovery) Action() RecoveryAction { return r.action }

// Hint returns the rate-limit hint behind the latest decision: the larger of
// the analysis' RetryAfter and the hint found in the failure's error chain.
func (r *Recovery) Hint() time.Duration { return r.hint }

// decide asks the strategy and keeps only the four action values; anything
// else (nil, a pointer, a panic) becomes Fail.
func decide(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int) RecoveryAction {
	var action RecoveryAction
	askStrategy(ctx, s, a, attempt, &action)
	switch action.(type) {
	case Retry, Skip, AskUser, Fail:
		return action
	case nil:
		return Fail{Reason: "recovery strategy returned no action"}
	default:
		return Fail{Reason: fmt.Sprintf("recovery strategy returned unsupported action %T", action)}
	}
}

// askStrategy calls the strategy into out, turning a panic into Fail.
func askStrategy(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int, out *RecoveryAction) {
	defer catchStrategy(out)
	*out = s.Decide(ctx, *a, attempt, MaxRecoveryAttempts+1)
}

func catchStrategy(out *RecoveryAction) {
	if v := recover(); v != nil {
		*out = Fail{Reason: (&PanicError{Where: "recovery strategy", Value: v}).Error()}
	}
}

// humanInputDescription describes, in a report and to observers, the input a
// human gave with an approval.
const humanInputDescription = "input given by a human"
