package reflectiontest

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/caps"
)

// The model: the loop's rules as the package documentation states them,
// written out again, one attempt after the other, on the scenario's script.
// It predicts everything a runtime's call must do; verify compares.

// model runs the scenario's script through the rules.
type model struct {
	s *Scenario
	w expect

	now     time.Duration
	ctxEnd  hardKind // hardNone, hardCanceled or hardDeadline
	cur     reflection.ToolCall
	attempt int

	hint time.Duration // the rate-limit hint of the current decision
	plan *planned      // the corrected call of the current decision, once worked out
	left []reflection.ToolCall

	breakers map[string]*breaker
	counted  map[string]bool       // the tools this call's failures have counted on
	probe    bool                  // the dispatch under way is a half-open breaker's probe
	cost     int                   // the budget tokens the latest charged wait took
	unsent   bool                  // those tokens were taken and the retry has not been dispatched
	acted    []reflection.ToolCall // the dispatches of guarded tools that failed after they may have acted
	mayActed int                   // how many dispatches did
	ambig    bool                  // the current failure may have come after the tool acted
	about    reflection.ToolCall   // the call a pending verification asks about
	results  map[string]int        // the loop detector: how often each result came back
	byCall   map[string][]string   // the loop detector: the results of each call
}

// planned is the call the next attempt would make with the analysis'
// correction applied.
type planned struct {
	next reflection.ToolCall
	ok   bool
}

func (s *Scenario) model() expect {
	m := &model{s: s, cur: s.Call, breakers: map[string]*breaker{}, counted: map[string]bool{},
		results: map[string]int{}, byCall: map[string][]string{}}
	m.w.tokens = s.budget
	if s.hasDeadline && s.deadline <= 0 {
		m.ctxEnd = hardDeadline
	}
	m.prefail()
	m.run()
	if m.unsent { // the tokens of a retry that was never sent come back
		m.w.tokens = min(m.w.tokens+m.cost, s.budget)
	}
	if m.w.outcome != reflection.OutcomeSucceeded {
		m.w.content.acted, m.w.content.dispatches = m.mayActed, len(m.w.dispatched)
	}
	m.w.elapsed = m.now
	return m.w
}

// run follows the loop until the call ends.
func (m *model) run() {
	s := m.s
	for m.attempt = 0; ; m.attempt++ {
		if m.ctxEnd != hardNone { // step 1
			m.stop()
			return
		}
		if d := s.detector; d != nil {
			if most := m.mostRepeats(m.cur); most >= d.stopAt {
				m.w.hard, m.w.outcome, m.w.reason = hardLoop, reflection.OutcomeStopped, reflection.ReasonLoopDetected
				m.w.loop = reflection.LoopDetectedError{Tool: m.cur.Name, Count: most}
				m.w.content = contentWant{loop: true}
				return
			}
		}
		if s.health != nil && !m.admit(m.cur.Name) {
			m.w.outcome, m.w.reason = reflection.OutcomeFailed, reflection.ReasonCircuitOpen
			m.w.content = contentWant{circuit: true, retryIn: m.openFor(m.cur.Name), afterFailure: len(m.w.texts) > 0}
			return
		}
		st := &s.steps[m.attempt]
		m.unsent = false
		m.w.dispatched = append(m.w.dispatched, m.cur)
		m.advance(st.dur)
		if st.cancel == cancelInDispatch {
			m.cancel()
		}
		m.afterDispatch(st)
		if st.does == doSucceed {
			m.succeed(st)
			return
		}
		m.w.texts = append(m.w.texts, st.failureText(m.cur.Name))
		m.w.errs = append(m.w.errs, st.errWant())
		m.ambig = st.does.ambiguous()
		if s.effects != nil && m.ambig && guarded(s.effectOf(m.cur.Name)) {
			m.acted = append(m.acted, m.cur)
			m.mayActed++
		}
		if m.ctxEnd != hardNone { // step 2: no Reflector once the caller has gone
			m.stop()
			return
		}
		m.w.failures = append(m.w.failures, m.failure())
		if st.cancel == cancelInReflector {
			m.cancel()
		}
		if st.refl != reflOK {
			if m.ctxEnd != hardNone { // a reflector error under an ended ctx is the cancel
				m.stop()
				return
			}
			reason := reflection.ReasonReflectorError
			if st.refl == reflErrSkipped {
				reason = reflection.ReasonUnanalyzed
			}
			m.soft(reflection.OutcomeFailed, reason)
			return
		}
		m.w.strategy = append(m.w.strategy, m.attempt)
		if st.cancel == cancelInStrategy {
			m.cancel()
		}
		action, valid := m.decide(st)
		m.hint, m.plan = max(st.analysis.RetryAfter, 0), nil
		v := m.rules(st, action, valid)
		if m.ctxEnd != hardNone { // ctx ended while the Reflector or the strategy ran: the cancel wins
			m.stop()
			return
		}
		for v.kind == verdictVerify {
			v = m.verified(st, action, valid)
		}
		var human json.RawMessage
		switch v.kind {
		case verdictEnd:
			m.w.hard, m.w.outcome, m.w.reason = v.hard, v.outcome, v.reason
			return
		case verdictAsk:
			var goOn bool
			if human, goOn = m.ask(st, v.prompt, v.effect, m.mayActed > 0 && !v.effect); !goOn {
				return
			}
		default:
			if m.wait(st, v.delay, false) {
				return
			}
		}
		m.retry(st, human)
	}
}

// verdictKind says what the machine makes of a decision.
type verdictKind int

const (
	verdictRetry  verdictKind = iota // wait, then retry
	verdictAsk                       // an AskUser: a human, or the soft AskUser end
	verdictEnd                       // the call ends
	verdictVerify                    // the effect guard asks the verifier first
)

// verdict is the machine's reading of the strategy's action, by its own
// rules, all worked out before the runtime looks at ctx again (a guard may
// ask the tool-change filter even when the cancel then wins).
type verdict struct {
	kind    verdictKind
	delay   time.Duration // verdictRetry
	prompt  string        // verdictAsk
	effect  bool          // verdictAsk: the effect guard's
	hard    hardKind      // verdictEnd
	outcome reflection.Outcome
	reason  reflection.Reason
}

// rules applies to action, in order, the ceiling, the effect guard, the
// rate-limit cap and the loop guard (for a Retry), and the meaning of each
// action.
func (m *model) rules(st *step, action reflection.RecoveryAction, valid bool) verdict {
	end := func(o reflection.Outcome, r reflection.Reason) verdict {
		return verdict{kind: verdictEnd, outcome: o, reason: r}
	}
	switch a := action.(type) {
	case reflection.Retry:
		switch {
		case m.attempt == reflection.MaxRecoveryAttempts:
			return verdict{kind: verdictEnd, hard: hardExhausted, outcome: reflection.OutcomeExhausted, reason: reflection.ReasonCeiling}
		case m.effectRefuses(st):
			if m.s.verifier {
				return verdict{kind: verdictVerify}
			}
			return verdict{kind: verdictAsk, effect: true}
		case m.hint > m.hintCap():
			return end(reflection.OutcomeFailed, reflection.ReasonHintOverCap)
		case m.loopRefuses(st):
			return end(reflection.OutcomeFailed, reflection.ReasonCorrectionLoop)
		}
		return verdict{kind: verdictRetry, delay: max(a.Delay, m.hint, 0)}
	case reflection.AskUser:
		return verdict{kind: verdictAsk, prompt: a.Prompt}
	case reflection.Skip:
		return end(reflection.OutcomeSkipped, reflection.ReasonStrategy)
	}
	if !valid { // nil, a pointer, another type, a panic
		return end(reflection.OutcomeFailed, reflection.ReasonInvalidAction)
	}
	return end(reflection.OutcomeFailed, reflection.ReasonStrategy)
}

// advance lets fake time pass; ctx's deadline may pass with it.
func (m *model) advance(d time.Duration) {
	m.now += d
	if m.s.hasDeadline && m.now >= m.s.deadline && m.ctxEnd == hardNone {
		m.ctxEnd = hardDeadline
	}
}

func (m *model) cancel() {
	if m.ctxEnd == hardNone {
		m.ctxEnd = hardCanceled
	}
}

// stop ends the call because ctx has ended.
func (m *model) stop() {
	m.w.hard, m.w.outcome, m.w.reason = m.ctxEnd, reflection.OutcomeStopped, reflection.ReasonCanceled
	m.w.content = contentWant{fromErr: len(m.w.texts) == 0}
}

// soft ends the call with the latest failure text and a nil error.
func (m *model) soft(o reflection.Outcome, reason reflection.Reason) {
	m.w.outcome, m.w.reason = o, reason
}

func (m *model) succeed(st *step) {
	m.w.outcome = reflection.OutcomeSucceeded
	m.w.success = reflection.ToolResult{ID: m.s.Call.ID, Content: st.content}
	if m.s.budget > 0 {
		give := m.cost
		if m.attempt == 0 {
			give = 1
		}
		m.w.tokens = min(m.w.tokens+give, m.s.budget)
	}
}

// failure is what the Reflector must be told about the current attempt.
func (m *model) failure() reflection.Failure {
	s := m.s
	f := reflection.Failure{Tool: m.cur.Name, Input: m.cur.Input, Task: s.Task, Attempt: m.attempt,
		MaxAttempts: reflection.MaxRecoveryAttempts + 1}
	if s.schemas[m.cur.Name] {
		sch := schemaOf(m.cur.Name)
		f.Schema = &sch
	}
	if s.effects != nil {
		f.Effect = s.effectOf(m.cur.Name)
	}
	return f
}

// decide is the strategy's answer: the script's, or ExponentialBackoff's
// rules written out again. valid is false for what counts as Fail.
func (m *model) decide(st *step) (reflection.RecoveryAction, bool) {
	if b := m.s.backoff; b != nil {
		return backoffDecide(*b, st.analysis, m.attempt, reflection.MaxRecoveryAttempts+1), true
	}
	if st.panics {
		return reflection.Fail{}, false
	}
	switch st.action.(type) {
	case reflection.Retry, reflection.Skip, reflection.AskUser, reflection.Fail:
		return st.action, true
	}
	return reflection.Fail{}, false
}

// ask follows an AskUser, the strategy's own or the effect guard's. It
// returns whether a human approved (the call goes on), and the input given
// with the approval.
// warned says the question must begin with the effect guard's warning: a
// dispatch of the call may already have acted.
func (m *model) ask(st *step, prompt string, effect, warned bool) (human json.RawMessage, goOn bool) {
	s := m.s
	why := func(r reflection.Reason) reflection.Reason {
		if effect && r != reflection.ReasonDeclined {
			return reflection.ReasonAmbiguousEffect
		}
		return r
	}
	c := contentWant{ask: true, prompt: prompt, effect: effect || warned}
	if !s.asker || m.attempt == reflection.MaxRecoveryAttempts {
		m.w.content = c
		m.soft(reflection.OutcomeAskedUser, why(reflection.ReasonStrategy))
		return nil, false
	}
	if m.hint > m.hintCap() {
		m.soft(reflection.OutcomeFailed, why(reflection.ReasonHintOverCap))
		return nil, false
	}
	m.w.questions = append(m.w.questions, question{attempt: m.attempt, prompt: prompt, effect: effect, warned: warned,
		dispatches: len(m.w.dispatched), mayActed: m.mayActed})
	if st.cancel == cancelInAsker {
		m.cancel()
	}
	if m.ctxEnd != hardNone {
		m.stop()
		return nil, false
	}
	switch st.answer {
	case answerError, answerPanic:
		m.w.content = c
		m.soft(reflection.OutcomeAskedUser, why(reflection.ReasonAskFailed))
		return nil, false
	case answerDecline, answerDeclineReply:
		c.declined, c.reply = true, st.reply
		m.w.content = c
		m.soft(reflection.OutcomeAskedUser, why(reflection.ReasonDeclined))
		return nil, false
	}
	m.cost = 0 // a retry a human approved is not charged, so a success after it gives nothing back
	if m.hint > 0 && m.wait(st, m.hint, true) {
		return nil, false
	}
	if st.answer == answerApproveInput && len(st.human) > 0 {
		human = st.human
	}
	return human, true
}

// wait is the wait before a retry: the retry budget first (a human's
// approval is not charged), then the deadline's refusal. It reports
// whether the call ended there.
func (m *model) wait(st *step, d time.Duration, approved bool) (ended bool) {
	s := m.s
	if s.budget > 0 {
		m.cost = 0
		if !approved {
			cost := 5
			if st.does == doTimeout {
				cost = 10
			}
			if m.w.tokens < cost {
				m.soft(reflection.OutcomeFailed, reflection.ReasonBudgetExhausted)
				m.w.content = contentWant{budget: true}
				return true
			}
			m.w.tokens -= cost
			m.cost, m.unsent = cost, true
		}
	}
	if d <= 0 {
		return false
	}
	if s.hasDeadline && s.deadline <= m.now+d {
		m.w.hard, m.w.outcome, m.w.reason = hardWaitRefused, reflection.OutcomeStopped, reflection.ReasonDeadline
		return true
	}
	m.advance(d)
	return false
}

// retry applies the analysis' correction, then a human's input, and moves
// on to the next attempt.
func (m *model) retry(st *step, human json.RawMessage) {
	before := m.cur
	fixes := 0
	if c := st.analysis.Correction; c != nil && changesCall(c) {
		p := m.planFor(c)
		m.corrected(p.ok)
		if p.ok {
			m.cur = p.next
		}
		fixes++
	}
	if human != nil {
		ok := m.inputFits(human)
		m.corrected(ok)
		if ok {
			m.cur.Input = human
		}
		fixes++
	}
	if m.s.loopGuard && fixes > 0 && !sameCall(before, m.cur) {
		m.left = append(m.left, before)
	}
}

func (m *model) corrected(ok bool) {
	m.w.corrected = append(m.w.corrected, ok)
	if !ok {
		m.w.dropped++
	}
}

func changesCall(c *reflection.Correction) bool {
	return c.Type == reflection.InputFix || c.Type == reflection.ToolChange
}

// planFor works out, once per decision, the call that c makes of the
// current one (a filter is asked at most once per decision).
func (m *model) planFor(c *reflection.Correction) *planned {
	if m.plan != nil {
		return m.plan
	}
	s := m.s
	p := &planned{next: m.cur}
	switch c.Type {
	case reflection.InputFix:
		if p.ok = m.inputFits(c.ModifiedInput); p.ok {
			p.next.Input = c.ModifiedInput
		}
	case reflection.ToolChange:
		to := c.AlternativeTool
		p.ok = to != "" && (s.schemas == nil || s.schemas[to])
		if p.ok && s.allow != nil {
			if s.filterFn {
				m.w.filterCalls = append(m.w.filterCalls, [2]string{m.cur.Name, to})
			}
			p.ok = s.allow[to]
		}
		if p.ok {
			p.next.Name = to
		}
	}
	m.plan = p
	return p
}

// inputFits says whether an input may replace the call's: a JSON object
// within the size limit whose keys do not repeat, exactly or but for case.
func (m *model) inputFits(in json.RawMessage) bool {
	limit := m.s.maxFix
	if limit == 0 || limit == math.MinInt {
		limit = caps.MaxCorrectedInput
	}
	return len(in) > 0 && (limit < 0 || len(in) <= limit) && isObject(in) && !hasFoldedDuplicateKeys(in)
}

// effectRefuses is the effect guard: a tool that failed after it may have
// acted earlier in the call is not dispatched again without an approval;
// after an ambiguous failure, a tool that is not idempotent is not retried
// blindly, and a keyed tool only with the same tool and input.
func (m *model) effectRefuses(st *step) bool {
	if m.s.effects == nil || !m.ambig && len(m.acted) == 0 {
		return false
	}
	next := m.cur
	if c := st.analysis.Correction; c != nil && changesCall(c) {
		next = m.planFor(c).next
	}
	if i := m.latestActed(next.Name); i >= 0 {
		m.about = m.acted[i]
		return true
	}
	if !m.ambig {
		return false
	}
	m.about = m.cur
	switch m.s.effectOf(m.cur.Name) {
	case reflection.EffectReadOnly, reflection.EffectIdempotent:
		return false
	case reflection.EffectKeyed:
		return !sameCall(next, m.cur)
	}
	return true
}

// verified is the verifier's answer to the effect guard's question: the
// scenario's next verdict. Applied ends the call succeeded with what the
// verifier found; not applied takes back that the call in question may
// have acted, and the rules go on; anything else is the guard's question.
func (m *model) verified(st *step, action reflection.RecoveryAction, valid bool) verdict {
	k := len(m.w.verified)
	m.w.verified = append(m.w.verified, m.about)
	switch m.s.verdicts[min(k, len(m.s.verdicts)-1)] {
	case verdictAppliedDraw:
		m.w.success = reflection.ToolResult{ID: m.s.Call.ID, Content: verifiedContent}
		if m.s.budget > 0 {
			give := m.cost
			if m.attempt == 0 {
				give = 1
			}
			m.w.tokens = min(m.w.tokens+give, m.s.budget)
		}
		return verdict{kind: verdictEnd, outcome: reflection.OutcomeSucceeded}
	case verdictNotAppliedDraw:
		if i := m.latestActed(m.about.Name); i >= 0 {
			m.acted = append(m.acted[:i], m.acted[i+1:]...)
			m.mayActed--
		}
		if sameCall(m.about, m.cur) {
			m.ambig = false
		}
		return m.rules(st, action, valid)
	}
	return verdict{kind: verdictAsk, effect: true}
}

// latestActed is the index in m.acted of tool's latest dispatch that may
// have acted, or -1.
func (m *model) latestActed(tool string) int {
	for i := len(m.acted) - 1; i >= 0; i-- {
		if m.acted[i].Name == tool {
			return i
		}
	}
	return -1
}

// guarded says whether the effect guard holds back a tool with effect e
// after it may have acted.
func guarded(e reflection.Effect) bool {
	return e == reflection.EffectNonIdempotent || e == reflection.EffectUndeclared
}

// loopRefuses is the loop guard: a correction that leads back to a call a
// correction had left ends the call.
func (m *model) loopRefuses(st *step) bool {
	c := st.analysis.Correction
	if !m.s.loopGuard || c == nil || !changesCall(c) {
		return false
	}
	p := m.planFor(c)
	if !p.ok || sameCall(p.next, m.cur) {
		return false
	}
	for _, l := range m.left {
		if sameCall(l, p.next) {
			return true
		}
	}
	return false
}

func (m *model) hintCap() time.Duration {
	if m.s.maxHint > 0 {
		return m.s.maxHint
	}
	return caps.MaxRetryAfter
}

// ---- ExponentialBackoff, written out again ----------------------------------

// delayFor is min(base × 2ⁿ, cap), saturating.
func delayFor(base, limit time.Duration, n int) time.Duration {
	if limit < base {
		return limit
	}
	d := base
	for range max(n, 0) {
		if d > limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// backoffDecide is ExponentialBackoff's four rules.
func backoffDecide(b reflection.ExponentialBackoff, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
	if !a.IsRecoverable {
		return reflection.Fail{Reason: a.RootCause}
	}
	limit := max(min(b.MaxRetries(), maxAttempts-1), 0)
	if attempt >= limit {
		return reflection.Fail{Reason: fmt.Sprintf("max retries (%d) exceeded", limit)}
	}
	if a.Severity >= reflection.SeverityHigh && a.Correction != nil {
		return reflection.AskUser{Prompt: "high-severity failure with correction available: " + a.RootCause}
	}
	return reflection.Retry{Delay: delayFor(b.BaseDelay(), b.MaxDelay(), attempt)}
}
