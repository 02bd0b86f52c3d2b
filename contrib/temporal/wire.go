package reflectiontemporal

import (
	"encoding/json"
	"time"

	"github.com/loopctl-go/reflection"
)

// The types of this file carry the root package's values across Temporal
// (activity inputs and results, the Query's answer). Inputs, schemas and
// corrected inputs are JSON the model or the host wrote, and may not be
// valid: valid JSON travels as itself (the payload converter may compact
// it), anything else travels byte for byte under a key ending in "_bytes"
// (base64), so a botched input still reaches the tool and the Reflector as
// it was, as it does under Driver.Run.

// Call is a reflection.ToolCall as data.
type Call struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// NewCall returns c as data.
func NewCall(c reflection.ToolCall) Call { return Call{ID: c.ID, Name: c.Name, Input: c.Input} }

// Rebuild returns the reflection.ToolCall c stands for.
func (c Call) Rebuild() reflection.ToolCall {
	return reflection.ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}
}

type callJSON struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input,omitempty"`
	InputBytes []byte          `json:"input_bytes,omitempty"`
}

// MarshalJSON writes {"id", "name", "input"}, or "input_bytes" for an input
// that is not valid JSON.
func (c Call) MarshalJSON() ([]byte, error) {
	w := callJSON{ID: c.ID, Name: c.Name}
	w.Input, w.InputBytes = splitRaw(c.Input)
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Call) UnmarshalJSON(b []byte) error {
	var w callJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Call{ID: w.ID, Name: w.Name, Input: joinRaw(w.Input, w.InputBytes)}
	return nil
}

// Failure is a reflection.Failure as data: its Err travels as ErrorData,
// and Rebuild gives it back as a *RemoteError.
type Failure struct {
	Error       string
	Tool        string
	Input       json.RawMessage
	Schema      *reflection.ToolSchema
	Task        string
	Attempt     int
	MaxAttempts int
	Effect      reflection.Effect
	Err         *ErrorData
}

// NewFailure returns f as data.
func NewFailure(f reflection.Failure) Failure {
	w := Failure{
		Error: f.Error, Tool: f.Tool, Input: f.Input, Task: f.Task,
		Attempt: f.Attempt, MaxAttempts: f.MaxAttempts, Effect: f.Effect, Err: NewErrorData(f.Err),
	}
	if f.Schema != nil {
		s := *f.Schema
		w.Schema = &s
	}
	return w
}

// Rebuild returns the reflection.Failure f stands for, with Err rebuilt
// from f.Err (nil when there was none).
func (f Failure) Rebuild() reflection.Failure {
	r := reflection.Failure{
		Error: f.Error, Tool: f.Tool, Input: f.Input, Task: f.Task,
		Attempt: f.Attempt, MaxAttempts: f.MaxAttempts, Effect: f.Effect, Err: f.Err.Rebuild(),
	}
	if f.Schema != nil {
		s := *f.Schema
		r.Schema = &s
	}
	return r
}

type failureJSON struct {
	Error       string          `json:"error"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input,omitempty"`
	InputBytes  []byte          `json:"input_bytes,omitempty"`
	Schema      *schemaJSON     `json:"schema,omitempty"`
	Task        string          `json:"task,omitempty"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	Effect      uint8           `json:"effect,omitempty"` // a reflection.Effect, as a number: any value crosses
	Err         *ErrorData      `json:"err,omitempty"`
}

type schemaJSON struct {
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	InputSchema      json.RawMessage `json:"input_schema,omitempty"`
	InputSchemaBytes []byte          `json:"input_schema_bytes,omitempty"`
}

// MarshalJSON writes the failure with snake_case keys.
func (f Failure) MarshalJSON() ([]byte, error) {
	w := failureJSON{
		Error: f.Error, Tool: f.Tool, Task: f.Task,
		Attempt: f.Attempt, MaxAttempts: f.MaxAttempts, Effect: uint8(f.Effect), Err: f.Err,
	}
	w.Input, w.InputBytes = splitRaw(f.Input)
	if s := f.Schema; s != nil {
		w.Schema = &schemaJSON{Name: s.Name, Description: s.Description}
		w.Schema.InputSchema, w.Schema.InputSchemaBytes = splitRaw(s.InputSchema)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Failure) UnmarshalJSON(b []byte) error {
	var w failureJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = Failure{
		Error: w.Error, Tool: w.Tool, Input: joinRaw(w.Input, w.InputBytes), Task: w.Task,
		Attempt: w.Attempt, MaxAttempts: w.MaxAttempts, Effect: reflection.Effect(w.Effect), Err: w.Err,
	}
	if s := w.Schema; s != nil {
		f.Schema = &reflection.ToolSchema{
			Name: s.Name, Description: s.Description,
			InputSchema: joinRaw(s.InputSchema, s.InputSchemaBytes),
		}
	}
	return nil
}

// Analysis is a reflection.FailureAnalysis as data. It encodes as the JSON
// FailureAnalysis has (retry_after included). A Reflector's answer that
// JSON cannot carry as such (a severity out of range, a correction type
// that is not one of the five, a corrected input that is not valid JSON)
// is written with those values neutralised and an "exact" key beside them
// that holds every field as plain data: the workflow then gets the answer
// as it was, and the machine treats it as under Driver.Run.
type Analysis struct{ reflection.FailureAnalysis }

type analysisJSON struct {
	reflection.FailureAnalysis
	Exact *exactAnalysis `json:"exact,omitempty"`
}

// exactAnalysis is a FailureAnalysis in plain types.
type exactAnalysis struct {
	IsRecoverable bool             `json:"is_recoverable"`
	RootCause     string           `json:"root_cause"`
	Severity      int              `json:"severity"`
	Correction    *exactCorrection `json:"correction,omitempty"`
	Context       string           `json:"context"`
	RetryAfter    time.Duration    `json:"retry_after,omitempty"`
}

// exactCorrection is a Correction in plain types.
type exactCorrection struct {
	Type            string `json:"correction_type"`
	Description     string `json:"description"`
	ModifiedInput   []byte `json:"modified_input,omitempty"`
	AlternativeTool string `json:"alternative_tool,omitempty"`
	Guidance        string `json:"guidance,omitempty"`
}

// MarshalJSON writes the analysis as FailureAnalysis does.
func (a Analysis) MarshalJSON() ([]byte, error) {
	if plainJSON(&a.FailureAnalysis) {
		return json.Marshal(a.FailureAnalysis)
	}
	fa := a.FailureAnalysis
	w := analysisJSON{Exact: &exactAnalysis{
		IsRecoverable: fa.IsRecoverable, RootCause: fa.RootCause, Severity: int(fa.Severity),
		Context: fa.Context, RetryAfter: fa.RetryAfter,
	}}
	if c := fa.Correction; c != nil {
		w.Exact.Correction = &exactCorrection{
			Type: string(c.Type), Description: c.Description, ModifiedInput: c.ModifiedInput,
			AlternativeTool: c.AlternativeTool, Guidance: c.Guidance,
		}
	}
	fa.Correction = nil
	if _, err := fa.Severity.MarshalText(); err != nil {
		fa.Severity = reflection.SeverityLow
	}
	w.FailureAnalysis = fa
	return json.Marshal(w)
}

// plainJSON reports whether a survives its own JSON: a valid severity, and
// a correction with a known type and a modified input that is valid JSON.
func plainJSON(a *reflection.FailureAnalysis) bool {
	if _, err := a.Severity.MarshalText(); err != nil {
		return false
	}
	c := a.Correction
	if c == nil {
		return true
	}
	var t reflection.CorrectionType
	if t.UnmarshalText([]byte(c.Type)) != nil {
		return false
	}
	return len(c.ModifiedInput) == 0 || json.Valid(c.ModifiedInput)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Analysis) UnmarshalJSON(b []byte) error {
	var w analysisJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e := w.Exact
	if e == nil {
		a.FailureAnalysis = w.FailureAnalysis
		return nil
	}
	a.FailureAnalysis = reflection.FailureAnalysis{
		IsRecoverable: e.IsRecoverable, RootCause: e.RootCause, Severity: reflection.Severity(e.Severity),
		Context: e.Context, RetryAfter: e.RetryAfter,
	}
	if c := e.Correction; c != nil {
		a.Correction = &reflection.Correction{
			Type: reflection.CorrectionType(c.Type), Description: c.Description, ModifiedInput: c.ModifiedInput,
			AlternativeTool: c.AlternativeTool, Guidance: c.Guidance,
		}
	}
	return nil
}

// Question is a reflection.Question as data: what the call waits on a
// human for, as the Query returns it.
type Question struct {
	Call         Call     `json:"call"`
	Failure      Failure  `json:"failure"`
	Analysis     Analysis `json:"analysis"`
	Prompt       string   `json:"prompt"`
	Dispatches   int      `json:"dispatches,omitempty"`
	MayHaveActed int      `json:"may_have_acted,omitempty"`
}

// NewQuestion returns q as data.
func NewQuestion(q reflection.Question) Question {
	return Question{
		Call:     NewCall(q.Call),
		Failure:  NewFailure(q.Failure),
		Analysis: Analysis{q.Analysis},
		Prompt:   q.Prompt,

		Dispatches: q.Dispatches, MayHaveActed: q.MayHaveActed,
	}
}

// Rebuild returns the reflection.Question q stands for, with the failure's
// Err rebuilt.
func (q Question) Rebuild() reflection.Question {
	return reflection.Question{
		Call:     q.Call.Rebuild(),
		Failure:  q.Failure.Rebuild(),
		Analysis: q.Analysis.FailureAnalysis,
		Prompt:   q.Prompt,

		Dispatches: q.Dispatches, MayHaveActed: q.MayHaveActed,
	}
}

// splitRaw returns b as JSON when it is valid JSON, and as bytes otherwise;
// both are nil for an empty b.
func splitRaw(b []byte) (json.RawMessage, []byte) {
	switch {
	case len(b) == 0:
		return nil, nil
	case json.Valid(b):
		return json.RawMessage(b), nil
	}
	return nil, b
}

// joinRaw is the inverse of splitRaw.
func joinRaw(j json.RawMessage, b []byte) json.RawMessage {
	if len(j) > 0 {
		return j
	}
	if len(b) > 0 {
		return json.RawMessage(b)
	}
	return nil
}
