package reflection

import (
	"encoding/json"
	"fmt"
)

// defaultMaxCorrectedInput is the largest InputFix, in bytes, that a Driver
// applies unless WithMaxCorrectedInput says otherwise: 1 MiB.
const defaultMaxCorrectedInput = capsMaxCorrectedInput

// applyCorrection applies c to the call before a retry. Only InputFix and
// ToolChange change anything; one that cannot apply is dropped, with the
// reason kept for the runtime to log, and the call stays as it was. human
// marks an input from a human's Answer, which passes the same guards.
func (r *Recovery) applyCorrection(c *Correction, human bool) {
	var (
		why, detail string
		changes     bool
	)
	if p := r.plan; p != nil && p.done && p.c == c && !human {
		why, detail, changes = p.why, p.detail, p.changes // worked out at the decision
		if changes && why == "" {
			r.cur = p.next
		}
	} else {
		why, detail, changes = r.s.correct(&r.cur, c)
	}
	if !changes {
		return // advisory: the retry runs unchanged
	}
	if why == "" {
		r.corrected = true
	}
	r.fixes[r.nfix] = fixRecord{c: c, human: human, applied: why == "", why: why, detail: detail}
	r.nfix++
	if r.rep != nil {
		r.recordFix(&r.fixes[r.nfix-1])
	}
}

// correct applies c to *call when it can. changes is false for an advisory
// correction; otherwise why says why c cannot apply ("" when it did), and
// detail gives the input check's own words apart. *call is left as it was
// when c cannot apply.
func (s *settings) correct(call *ToolCall, c *Correction) (why, detail string, changes bool) {
	name, input := call.Name, call.Input
	switch c.Type {
	case InputFix:
		if why = s.inputFixProblem(c.ModifiedInput); why != "" {
			return why, "", true
		}
		input = c.ModifiedInput
	case ToolChange:
		if why = s.toolChangeProblem(name, c.AlternativeTool); why != "" {
			return why, "", true
		}
		name = c.AlternativeTool
	default:
		return "", "", false
	}
	if why, detail = s.checkInput(name, input); why == "" {
		call.Name, call.Input = name, input
	}
	return why, detail, true
}

// CheckAnswer reports whether the machine would use ans as it stands: nil,
// or an error wrapping ErrAnswerInput that says why the input of an
// approving answer would be dropped (not a JSON object, over the
// corrected-input cap, a key repeated exactly or but for case, refused by
// the input check for the tool it would run on, after the analysis'
// correction). An answer that does not approve is never refused: its input
// is not used. A runtime that takes answers from outside (a workflow Update)
// checks one with it before accepting it, so it never records an approval
// whose input would not run. It panics unless the current step is an
// AskStep.
func (r *Recovery) CheckAnswer(ans Answer) error {
	r.expect(phaseAsk, "CheckAnswer")
	if !ans.Approve || len(ans.Input) == 0 {
		return nil
	}
	cur := r.planNext().next
	human := Correction{Type: InputFix, ModifiedInput: ans.Input}
	if why, detail, _ := r.s.correct(&cur, &human); why != "" {
		if detail != "" {
			return fmt.Errorf("%w: %s: %s", ErrAnswerInput, why, detail)
		}
		return fmt.Errorf("%w: %s", ErrAnswerInput, why)
	}
	return nil
}

// fixRecord is one correction the machine applied or dropped.
type fixRecord struct {
	c       *Correction // the analysis' own, or one made for a human's input
	human   bool        // the input came from a human's Answer
	applied bool        // the call changed
	why     string      // why it was dropped; names no tool or input
	detail  string      // the input check's own words, when it refused
}

// The reasons a correction is dropped. They name no tool and quote no input,
// so they are safe to log at any level.
const (
	whyNoInput       = "input_fix has no modified_input"
	whyNotObject     = "modified_input is not a JSON object"
	whyDuplicateKeys = "modified_input has duplicate keys (exact or differing only in case)"
	whyNoTool        = "tool_change has no alternative_tool"
	whyUnknownTool   = "the alternative tool is not registered"
	whyToolForbidden = "switching to the alternative tool is not allowed"
	whyCheckFailed   = "the corrected call fails the input check"
	whyCheckPanicked = "the input check panicked"
)

// inputFixProblem says why input cannot replace a call's input, or "".
func (s *settings) inputFixProblem(input json.RawMessage) string {
	if len(input) == 0 {
		return whyNoInput
	}
	if limit := s.fixLimit(); limit > 0 && len(input) > limit {
		return fmt.Sprintf("modified_input is %d bytes, over the limit of %d", len(input), limit)
	}
	switch object, dup := scanObject(input); {
	case !object:
		return whyNotObject
	case dup:
		return whyDuplicateKeys
	}
	return ""
}

// toolChangeProblem says why the call may not switch from one tool to
// another, or "".
func (s *settings) toolChangeProblem(from, to string) string {
	if to == "" {
		return whyNoTool
	}
	if s.schemas != nil {
		if _, ok := s.lookup(to); !ok {
			return whyUnknownTool
		}
	}
	if s.allowTool != nil && !s.allowed(from, to) {
		return whyToolForbidden
	}
	return ""
}

// lookup asks the host's SchemaLookup; a panic in it means the tool is not
// known.
func (s *settings) lookup(tool string) (sch ToolSchema, ok bool) {
	defer func() {
		if recover() != nil {
			sch, ok = ToolSchema{}, false
		}
	}()
	return s.schemas(tool)
}

// allowed asks the host's tool-change filter; a panic in it means no.
func (s *settings) allowed(from, to string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return s.allowTool(from, to)
}

// checkInput runs the host's input check (WithInputCheck) on the call a
// correction would make. It returns the reason to drop the correction, or
// "", and the check's own words (which may quote the input) apart.
func (s *settings) checkInput(tool string, input json.RawMessage) (why, detail string) {
	if s.inputCheck == nil {
		return "", ""
	}
	res := checked{check: s.inputCheck}
	res.run(tool, input)
	switch {
	case res.panicked:
		return whyCheckPanicked, res.detail
	case res.err != nil:
		return whyCheckFailed, errorText(res.err)
	}
	return "", ""
}

// checked is one run of an input check, with a panic caught.
type checked struct {
	check    func(tool string, input json.RawMessage) error
	err      error
	panicked bool
	detail   string
}

func (c *checked) run(tool string, input json.RawMessage) {
	defer func() {
		if v := recover(); v != nil {
			c.panicked, c.detail = true, fmt.Sprint(v)
		}
	}()
	c.err = c.check(tool, input)
}
