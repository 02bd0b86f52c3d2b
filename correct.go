package reflection

import (
	"encoding/json"
	"fmt"
)

// applyCorrection applies c to the call before a retry. Only InputFix and
// ToolChange change anything; one that cannot apply is dropped, with the
// reason kept for the runtime to log, and the call stays as it was. human
// marks an input from a human's Answer, which passes the same guards.
func (r *Recovery) applyCorrection(c *Correction, human bool) {
	next := r.cur
	var why string
	switch c.Type {
	case InputFix:
		if why = r.s.inputFixProblem(c.ModifiedInput); why == "" {
			next.Input = c.ModifiedInput
		}
	case ToolChange:
		if why = r.s.toolChangeProblem(r.cur.Name, c.AlternativeTool); why == "" {
			next.Name = c.AlternativeTool
		}
	default:
		return // advisory: the retry runs unchanged
	}
	var detail string
	if why == "" {
		why, detail = r.s.checkInput(next)
	}
	if why == "" {
		r.cur = next
		r.corrected = true
	}
	r.fixes[r.nfix] = fixRecord{c: c, human: human, applied: why == "", why: why, detail: detail}
	r.nfix++
	if r.rep != nil {
		r.recordFix(&r.fixes[r.nfix-1])
	}
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
func (s *settings) checkInput(call ToolCall) (why, detail string) {
	if s.inputCheck == nil {
		return "", ""
	}
	res := checked{check: s.inputCheck}
	res.run(call)
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

func (c *checked) run(call ToolCall) {
	defer func() {
		if v := recover(); v != nil {
			c.panicked, c.detail = true, fmt.Sprint(v)
		}
	}()
	c.err = c.check(call.Name, call.Input)
}
