package reflection

import (
	"time"
)

// Report returns the record of the call so far; once Next has returned a
// DoneStep it is complete. The Report shares no memory with r.
func (r *Recovery) Report() Report {
	if r.rep == nil {
		return Report{}
	}
	rep := *r.rep
	rep.Attempts = append([]Attempt(nil), rep.Attempts...)
	for i := range rep.Attempts {
		a := &rep.Attempts[i]
		a.Corrections = append([]CorrectionRecord(nil), a.Corrections...)
		if a.Analysis != nil {
			an := *a.Analysis
			a.Analysis = &an
		}
		if a.Wait != nil {
			w := *a.Wait
			a.Wait = &w
		}
		if a.Ask != nil {
			ask := *a.Ask
			a.Ask = &ask
		}
	}
	return rep
}

// keepReport makes r fill rep as the call goes; nil keeps none.
func (r *Recovery) keepReport(rep *Report) { r.rep = rep }

// reporting reports whether r keeps a report: the runtime then reads its
// clock around each dispatch.
func (r *Recovery) reporting() bool { return r.rep != nil }

// current is the record of the latest attempt.
func (r *Recovery) current() *Attempt { return &r.rep.Attempts[len(r.rep.Attempts)-1] }

func (r *Recovery) recordDispatch(res ToolResult, err error, start, end time.Time) {
	a := Attempt{Call: r.cur, Result: res, Start: start, End: end}
	if err != nil || res.IsError {
		a.Failed = true
		a.Failure = res.Content
		if err != nil {
			a.DispatchError = errorText(err)
			a.Failure = a.DispatchError
		}
	}
	r.rep.Attempts = append(r.rep.Attempts, a)
}

func (r *Recovery) recordAnalysis() {
	a := r.current()
	if r.an.err != nil {
		a.ReflectorError = errorText(r.an.err)
	} else {
		an := r.an.a
		a.Analysis = &an
	}
	a.Action = r.action
}

func (r *Recovery) recordAction() { r.current().Action = r.action }

func (r *Recovery) recordWait() { r.current().Wait = &Wait{Delay: r.wait, Hint: r.hint} }

func (r *Recovery) recordAnswer(ans Answer, err error) {
	ask := &Ask{}
	if act, ok := r.action.(AskUser); ok {
		ask.Prompt = act.Prompt
	}
	if err != nil {
		ask.Error = errorText(err)
	} else {
		ask.Answer = &ans
	}
	r.current().Ask = ask
}

func (r *Recovery) recordFix(f *fixRecord) {
	a := r.current()
	a.Corrections = append(a.Corrections, CorrectionRecord{Correction: *f.c, Human: f.human, Applied: f.applied, Why: f.why})
}

// markWaitStopped marks the pending wait, if any, as not taken.
func (r *Recovery) markWaitStopped() {
	if r.phase == phaseWait && r.rep != nil {
		if w := r.current().Wait; w != nil {
			w.Stopped = true
		}
	}
}

func (r *Recovery) recordEnd() {
	r.rep.Result, r.rep.Outcome, r.rep.Reason = r.result, r.outcome, r.reason
	if r.err != nil {
		r.rep.Error = errorText(r.err)
	}
}
