package reflection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// A Report's JSON. Encoding never fails: an input that the encoder could not
// reproduce byte for byte (not JSON, not compact, or holding characters it
// escapes) travels as a string under a key of its own (input_text,
// modified_input_text), an out-of-range severity or outcome as its number,
// an action as {"kind", "delay", "reason", "prompt"} (a pointer to a
// variant, such as *Retry, as the variant it points to, and a nil one as no
// action), and a time as RFC 3339 text, or, when RFC 3339 cannot hold it (a
// year outside 0 to 9999, an offset of a day or more or not in whole
// minutes), as {"unix", "nanos", "offset"}: seconds since 1970 UTC, nanoseconds, and the zone's offset in
// seconds east of UTC. So decoding gives back an equal Report.
//
// Texts travel as JSON strings, which hold Unicode only: a byte sequence in
// a text that is not UTF-8 is written as U+FFFD and decodes back so. Inputs
// keep their bytes whatever they hold.

// MarshalJSON encodes r; see Report.
func (r Report) MarshalJSON() ([]byte, error) {
	w := reportWire{
		Result:   wireResult(r.Result),
		Outcome:  outcomeWire(r.Outcome),
		Attempts: r.Attempts,
		Error:    r.Error,
		Reason:   r.Reason,
	}
	if w.Attempts == nil {
		w.Attempts = []Attempt{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (r *Report) UnmarshalJSON(b []byte) error {
	var w reportWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	o, err := parseOutcome(w.Outcome)
	if err != nil {
		return err
	}
	*r = Report{Result: w.Result.toResult(), Outcome: o, Attempts: w.Attempts, Error: w.Error, Reason: w.Reason}
	if len(r.Attempts) == 0 {
		r.Attempts = nil
	}
	return nil
}

// MarshalJSON encodes a; see Report.
func (a Attempt) MarshalJSON() ([]byte, error) {
	w := attemptWire{
		Call:           wireCall(a.Call),
		Result:         wireResult(a.Result),
		Start:          wireTime(a.Start),
		End:            wireTime(a.End),
		Failed:         a.Failed,
		Failure:        a.Failure,
		DispatchError:  a.DispatchError,
		ReflectorError: a.ReflectorError,
		Wait:           a.Wait,
	}
	if a.Analysis != nil {
		an := wireAnalysis(a.Analysis)
		w.Analysis = &an
	}
	w.Action = wireAction(a.Action)
	if a.Ask != nil {
		w.Ask = &askWire{Prompt: a.Ask.Prompt, Error: a.Ask.Error}
		if ans := a.Ask.Answer; ans != nil {
			in, text := splitRaw(ans.Input)
			w.Ask.Answer = &answerWire{Approve: ans.Approve, Input: in, InputText: text, Reply: ans.Reply}
		}
	}
	for _, c := range a.Corrections {
		w.Corrections = append(w.Corrections, correctionRecordWire{
			Correction: wireCorrection(&c.Correction), Human: c.Human, Applied: c.Applied, Why: c.Why,
		})
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (a *Attempt) UnmarshalJSON(b []byte) error {
	var w attemptWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Attempt{
		Call:           w.Call.toCall(),
		Result:         w.Result.toResult(),
		Failed:         w.Failed,
		Failure:        w.Failure,
		DispatchError:  w.DispatchError,
		ReflectorError: w.ReflectorError,
		Wait:           w.Wait,
	}
	var err error
	if out.Start, err = parseTime(w.Start); err != nil {
		return err
	}
	if out.End, err = parseTime(w.End); err != nil {
		return err
	}
	if w.Analysis != nil {
		an, err := w.Analysis.toAnalysis()
		if err != nil {
			return err
		}
		out.Analysis = &an
	}
	if w.Action != nil {
		act, err := w.Action.toAction()
		if err != nil {
			return err
		}
		out.Action = act
	}
	if w.Ask != nil {
		out.Ask = &Ask{Prompt: w.Ask.Prompt, Error: w.Ask.Error}
		if ans := w.Ask.Answer; ans != nil {
			out.Ask.Answer = &Answer{Approve: ans.Approve, Input: joinRaw(ans.Input, ans.InputText), Reply: ans.Reply}
		}
	}
	for _, c := range w.Corrections {
		out.Corrections = append(out.Corrections, CorrectionRecord{
			Correction: c.Correction.toCorrection(), Human: c.Human, Applied: c.Applied, Why: c.Why,
		})
	}
	*a = out
	return nil
}

type reportWire struct {
	Result   resultWire      `json:"result"`
	Outcome  json.RawMessage `json:"outcome"`
	Attempts []Attempt       `json:"attempts"`
	Error    string          `json:"error,omitempty"`
	Reason   Reason          `json:"reason,omitempty"`
}

type attemptWire struct {
	Call           callWire               `json:"call"`
	Result         resultWire             `json:"result"`
	Start          json.RawMessage        `json:"start,omitempty"`
	End            json.RawMessage        `json:"end,omitempty"`
	Failed         bool                   `json:"failed"`
	Failure        string                 `json:"failure,omitempty"`
	DispatchError  string                 `json:"dispatch_error,omitempty"`
	Analysis       *analysisWire          `json:"analysis,omitempty"`
	ReflectorError string                 `json:"reflector_error,omitempty"`
	Action         *actionWire            `json:"action,omitempty"`
	Wait           *Wait                  `json:"wait,omitempty"`
	Ask            *askWire               `json:"ask,omitempty"`
	Corrections    []correctionRecordWire `json:"corrections,omitempty"`
}

type callWire struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input,omitempty"`
	InputText *string         `json:"input_text,omitempty"`
}

func wireCall(c ToolCall) callWire {
	in, text := splitRaw(c.Input)
	return callWire{ID: c.ID, Name: c.Name, Input: in, InputText: text}
}

func (w callWire) toCall() ToolCall {
	return ToolCall{ID: w.ID, Name: w.Name, Input: joinRaw(w.Input, w.InputText)}
}

type resultWire struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

func wireResult(r ToolResult) resultWire { return resultWire(r) }

func (w resultWire) toResult() ToolResult { return ToolResult(w) }

type analysisWire struct {
	IsRecoverable bool            `json:"is_recoverable"`
	RootCause     string          `json:"root_cause"`
	Severity      json.RawMessage `json:"severity"`
	Correction    *correctionWire `json:"correction"`
	Context       string          `json:"context"`
	RetryAfter    time.Duration   `json:"retry_after,omitempty"`
}

func wireAnalysis(a *FailureAnalysis) analysisWire {
	w := analysisWire{
		IsRecoverable: a.IsRecoverable,
		RootCause:     a.RootCause,
		Severity:      severityWire(a.Severity),
		Context:       a.Context,
		RetryAfter:    a.RetryAfter,
	}
	if a.Correction != nil {
		c := wireCorrection(a.Correction)
		w.Correction = &c
	}
	return w
}

func (w *analysisWire) toAnalysis() (FailureAnalysis, error) {
	sev, err := parseSeverity(w.Severity)
	if err != nil {
		return FailureAnalysis{}, err
	}
	a := FailureAnalysis{
		IsRecoverable: w.IsRecoverable,
		RootCause:     w.RootCause,
		Severity:      sev,
		Context:       w.Context,
		RetryAfter:    w.RetryAfter,
	}
	if w.Correction != nil {
		c := w.Correction.toCorrection()
		a.Correction = &c
	}
	return a, nil
}

type correctionWire struct {
	Type              string          `json:"correction_type"`
	Description       string          `json:"description"`
	ModifiedInput     json.RawMessage `json:"modified_input,omitempty"`
	ModifiedInputText *string         `json:"modified_input_text,omitempty"`
	AlternativeTool   string          `json:"alternative_tool,omitempty"`
	Guidance          string          `json:"guidance,omitempty"`
}

func wireCorrection(c *Correction) correctionWire {
	in, text := splitRaw(c.ModifiedInput)
	return correctionWire{
		Type:              string(c.Type),
		Description:       c.Description,
		ModifiedInput:     in,
		ModifiedInputText: text,
		AlternativeTool:   c.AlternativeTool,
		Guidance:          c.Guidance,
	}
}

func (w *correctionWire) toCorrection() Correction {
	return Correction{
		Type:            CorrectionType(w.Type),
		Description:     w.Description,
		ModifiedInput:   joinRaw(w.ModifiedInput, w.ModifiedInputText),
		AlternativeTool: w.AlternativeTool,
		Guidance:        w.Guidance,
	}
}

type correctionRecordWire struct {
	Correction correctionWire `json:"correction"`
	Human      bool           `json:"human,omitempty"`
	Applied    bool           `json:"applied"`
	Why        string         `json:"why,omitempty"`
}

type actionWire struct {
	Kind   string        `json:"kind"` // retry, skip, ask_user or fail
	Delay  time.Duration `json:"delay,omitempty"`
	Reason string        `json:"reason,omitempty"`
	Prompt string        `json:"prompt,omitempty"`
}

// wireAction writes a; a pointer to a variant is written as the variant,
// and a nil action or nil pointer as none.
func wireAction(a RecoveryAction) *actionWire {
	switch act := a.(type) {
	case Retry:
		return &actionWire{Kind: "retry", Delay: act.Delay}
	case Skip:
		return &actionWire{Kind: "skip", Reason: act.Reason}
	case AskUser:
		return &actionWire{Kind: "ask_user", Prompt: act.Prompt}
	case Fail:
		return &actionWire{Kind: "fail", Reason: act.Reason}
	case *Retry:
		if act != nil {
			return wireAction(*act)
		}
	case *Skip:
		if act != nil {
			return wireAction(*act)
		}
	case *AskUser:
		if act != nil {
			return wireAction(*act)
		}
	case *Fail:
		if act != nil {
			return wireAction(*act)
		}
	}
	return nil
}

func (w *actionWire) toAction() (RecoveryAction, error) {
	switch w.Kind {
	case "retry":
		return Retry{Delay: w.Delay}, nil
	case "skip":
		return Skip{Reason: w.Reason}, nil
	case "ask_user":
		return AskUser{Prompt: w.Prompt}, nil
	case "fail":
		return Fail{Reason: w.Reason}, nil
	}
	return nil, fmt.Errorf("reflection: unknown action kind %q", w.Kind)
}

type askWire struct {
	Prompt string      `json:"prompt"`
	Answer *answerWire `json:"answer,omitempty"`
	Error  string      `json:"error,omitempty"`
}

type answerWire struct {
	Approve   bool            `json:"approve"`
	Input     json.RawMessage `json:"input,omitempty"`
	InputText *string         `json:"input_text,omitempty"`
	Reply     string          `json:"reply,omitempty"`
}

// wireTime writes t as RFC 3339 text, or as a timeObject when RFC 3339
// cannot hold it; a zero time is left out.
func wireTime(t time.Time) json.RawMessage {
	if t.IsZero() {
		return nil
	}
	_, offset := t.Zone()
	if offset%60 == 0 { // RFC 3339 writes the offset in minutes
		if b, err := t.MarshalJSON(); err == nil {
			return b
		}
	}
	b, _ := json.Marshal(timeObject{Unix: t.Unix(), Nanos: t.Nanosecond(), Offset: offset}) // numbers always encode
	return b
}

// timeObject is a time that RFC 3339 cannot hold.
type timeObject struct {
	Unix   int64 `json:"unix"`   // seconds since 1970-01-01 UTC
	Nanos  int   `json:"nanos"`  // nanoseconds within the second
	Offset int   `json:"offset"` // the zone's offset, in seconds east of UTC
}

// parseTime reads what wireTime wrote; absent or null is the zero time.
func parseTime(raw json.RawMessage) (time.Time, error) {
	var t time.Time
	switch raw = bytes.TrimSpace(raw); {
	case len(raw) == 0 || string(raw) == "null":
		return t, nil
	case raw[0] == '{':
		var o timeObject
		if err := json.Unmarshal(raw, &o); err != nil {
			return t, err
		}
		t = time.Unix(o.Unix, int64(o.Nanos))
		if o.Offset == 0 {
			return t.UTC(), nil
		}
		return t.In(time.FixedZone("", o.Offset)), nil
	}
	err := t.UnmarshalJSON(raw)
	return t, err
}

// severityWire writes a valid severity as its word and any other as its number.
func severityWire(s Severity) json.RawMessage {
	if s.valid() {
		return json.RawMessage(strconv.Quote(severityNames[s]))
	}
	return json.RawMessage(strconv.Itoa(int(s)))
}

func parseSeverity(raw json.RawMessage) (Severity, error) {
	var s Severity
	if len(raw) > 0 && raw[0] == '"' {
		var word string
		if err := json.Unmarshal(raw, &word); err != nil {
			return 0, err
		}
		err := s.UnmarshalText([]byte(word))
		return s, err
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, fmt.Errorf("reflection: severity %s is neither a word nor a number", raw)
	}
	return Severity(n), nil
}

// outcomeWire writes a valid outcome as its word and any other as its number.
func outcomeWire(o Outcome) json.RawMessage {
	if o.valid() {
		return json.RawMessage(strconv.Quote(outcomeNames[o-1]))
	}
	return json.RawMessage(strconv.Itoa(int(o)))
}

func parseOutcome(raw json.RawMessage) (Outcome, error) {
	var o Outcome
	if len(raw) > 0 && raw[0] == '"' {
		var word string
		if err := json.Unmarshal(raw, &word); err != nil {
			return 0, err
		}
		err := o.UnmarshalText([]byte(word))
		return o, err
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, fmt.Errorf("reflection: outcome %s is neither a word nor a number", raw)
	}
	return Outcome(n), nil
}

// splitRaw returns b as raw JSON when the encoder writes it back byte for
// byte, and otherwise as text.
func splitRaw(b json.RawMessage) (json.RawMessage, *string) {
	if len(b) == 0 {
		return nil, nil
	}
	if reproducible(b) {
		return b, nil
	}
	s := string(b)
	return nil, &s
}

// joinRaw is the inverse of splitRaw.
func joinRaw(raw json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	if len(raw) == 0 {
		return nil
	}
	// splitRaw wrote raw only when it was compact; compacting undoes any
	// indentation added since (json.MarshalIndent, a pretty printer).
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return bytes.Clone(raw)
	}
	return b.Bytes()
}

// reproducible reports whether encoding/json writes b, a raw message, back
// unchanged: b is valid JSON with no whitespace outside strings and none of
// the characters the encoder escapes (<, >, &, U+2028, U+2029).
func reproducible(b []byte) bool {
	if !json.Valid(b) || bytes.ContainsAny(b, "<>&\u2028\u2029") {
		return false
	}
	in := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}
