package reflection

import (
	"strconv"
	"strings"
)

// plan is the call the next attempt would make with the analysis'
// correction applied, worked out once per decision for the rules that must
// see it before the wait (the effect guard, the loop guard) and then reused
// by the retry, so a host's input check runs once.
type plan struct {
	done        bool
	c           *Correction // the correction it applies; nil for none
	next        ToolCall
	why, detail string // why the correction cannot apply; "" when it can
	changes     bool   // the correction is an InputFix or a ToolChange
}

// planNext returns the plan of the current decision.
func (r *Recovery) planNext() *plan {
	if r.plan == nil {
		r.plan = new(plan)
	}
	if !r.plan.done {
		p := r.plan
		p.done, p.c, p.next = true, r.an.a.Correction, r.cur
		p.why, p.detail, p.changes = "", "", false
		if p.c != nil {
			p.why, p.detail, p.changes = r.s.correct(&p.next, p.c)
		}
	}
	return r.plan
}

// loopSeen holds the calls that failed and that a correction then left.
type loopSeen struct {
	calls [MaxRecoveryAttempts + 1]ToolCall
	n     int
}

// leave records that a correction moved the call from from to to.
func (l *loopSeen) leave(from, to ToolCall) {
	if l.n < len(l.calls) && !sameCall(from, to) {
		l.calls[l.n] = from
		l.n++
	}
}

// has reports whether call is one that a correction left.
func (l *loopSeen) has(call ToolCall) bool {
	for i := 0; i < l.n; i++ {
		if sameCall(l.calls[i], call) {
			return true
		}
	}
	return false
}

// loopRefuses reports whether the loop guard ends the call at the Retry
// just decided.
func (r *Recovery) loopRefuses() bool {
	if !r.s.loopGuard {
		return false
	}
	c := r.an.a.Correction
	if c == nil || (c.Type != InputFix && c.Type != ToolChange) {
		return false
	}
	p := r.planNext()
	if p.why != "" || sameCall(p.next, r.cur) {
		return false // dropped, or a no-op: a plain retry
	}
	return r.loops != nil && r.loops.has(p.next)
}

// The AskUser prompts of the effect guard. Every question a call asks once a
// dispatch of a tool that is not idempotent failed after it may have acted
// begins with effectPrompt.
const (
	effectPrompt = "the failed call may already have taken effect, and this tool is not idempotent: " +
		"retrying it could do the same thing twice"
	keyedPrompt = "the failed call may already have taken effect, and the retry would run a changed call " +
		"under the same idempotency key"
)

// guardedEffect says whether the effect guard holds back a tool with effect
// e after a failure that may have come after it acted.
func guardedEffect(e Effect) bool { return e == EffectNonIdempotent || e == EffectUndeclared }

// noteEffect records, for a failure with err, the effect of the tool that
// failed and whether the failure is ambiguous: anything but an error that
// matches ErrNoEffect (a joined error: every error it joins must). An
// ambiguous failure of a guarded tool marks that tool for the rest of the
// call: every later dispatch of it needs a verification or a human's
// approval first.
func (r *Recovery) noteEffect(err error) {
	r.fail.Effect = r.s.effectOf(r.cur.Name)
	r.ambiguous = !noEffect(err)
	if !r.ambiguous {
		return
	}
	r.anyAmbiguous, r.lastAmbiguous = true, r.cur
	if guardedEffect(r.fail.Effect) {
		r.mayActed++
		r.markActed(r.cur)
	}
}

// markActed notes that call's dispatch failed after its tool may have
// acted. Every such dispatch is kept (a call makes at most six).
func (r *Recovery) markActed(call ToolCall) {
	if r.nacted < len(r.acted) {
		r.acted[r.nacted] = call
		r.nacted++
	}
}

// actedCall returns the latest dispatch of tool in this call that failed
// after the tool may have acted, and that no verifier has cleared.
func (r *Recovery) actedCall(tool string) (ToolCall, bool) {
	for i := r.nacted - 1; i >= 0; i-- {
		if r.acted[i].Name == tool {
			return r.acted[i], true
		}
	}
	return ToolCall{}, false
}

// clearActed takes back that the latest such dispatch of tool may have
// acted: a verifier said it did not. An earlier one of the same tool, if
// any, is still in question.
func (r *Recovery) clearActed(tool string) {
	for i := r.nacted - 1; i >= 0; i-- {
		if r.acted[i].Name == tool {
			copy(r.acted[i:r.nacted], r.acted[i+1:r.nacted])
			r.nacted--
			r.acted[r.nacted] = ToolCall{}
			r.mayActed--
			return
		}
	}
}

// effectRefuses says whether the effect guard refuses the Retry just
// decided, the AskUser prompt that says why, and the call whose failure is
// in question (what a verifier looks up). The guard covers the whole call:
// a retry whose next dispatch runs a tool that failed after it may have
// acted earlier in this call is refused, whatever ran in between; and, as
// for every failure, after an ambiguous failure a tool that is not
// idempotent is never retried blindly, and a keyed tool only with the same
// tool and input (its key then makes the retry safe).
func (r *Recovery) effectRefuses() (prompt string, about ToolCall, refuse bool) {
	if r.s.effect == nil || !r.ambiguous && r.nacted == 0 {
		return "", ToolCall{}, false
	}
	next := r.planNext().next
	if c, ok := r.actedCall(next.Name); ok {
		return effectPrompt, c, true
	}
	if !r.ambiguous {
		return "", ToolCall{}, false
	}
	switch r.fail.Effect {
	case EffectReadOnly, EffectIdempotent:
		return "", ToolCall{}, false
	case EffectKeyed:
		if sameCall(next, r.cur) {
			return "", ToolCall{}, false
		}
		return keyedPrompt, r.cur, true
	}
	return effectPrompt, r.cur, true
}

// actedWarning is what the model reads at the end of a call that did not
// succeed after dispatches that may have acted: how many of them.
func (r *Recovery) actedWarning() string {
	return "Warning: this call may already have taken effect: " + strconv.Itoa(r.mayActed) + " of its " +
		strconv.Itoa(r.calls) + " dispatches failed in a way that does not tell whether the tool acted. " +
		"Check before calling it again."
}

// warnedPrompt is the prompt of a question the call asks, or ends on, once
// a dispatch of it may have acted: the effect guard's sentence first, then
// prompt.
func (r *Recovery) warnedPrompt(prompt string) string {
	if r.mayActed == 0 || strings.HasPrefix(prompt, effectPrompt) {
		return prompt
	}
	if prompt == "" {
		return effectPrompt
	}
	return effectPrompt + ". " + prompt
}

// rememberedPrompt is the question the effect guard asks before a call that
// an EffectMemory remembers: an earlier call of the same tool with the same
// input, named by its ID, may already have taken effect.
func rememberedPrompt(rc RememberedCall) string {
	id := rc.ID
	if id == "" {
		id = "(no id)"
	}
	return "an earlier call of this tool with the same input (" + strconv.Quote(id) + ") ended without success and " +
		"may already have taken effect: running it again could do the same thing twice"
}

// effectOf asks the host's effect func; a panic in it means undeclared.
func (s *settings) effectOf(tool string) (e Effect) {
	defer catchEffect(&e) // a named function: on the success path a closure costs more
	return s.effect(tool)
}

func catchEffect(e *Effect) {
	if recover() != nil {
		*e = EffectUndeclared
	}
}
