package reflection

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
