package reflection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Severity ranks how bad a failure is. The constants are ordered, so
// severities compare with < and >=: SeverityLow < SeverityMedium <
// SeverityHigh < SeverityCritical.
type Severity int

// The four severities, from least to most severe.
const (
	SeverityLow Severity = iota
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = [...]string{"low", "medium", "high", "critical"}

// String returns "low", "medium", "high" or "critical", and "severity(N)"
// for a value outside the four constants.
func (s Severity) String() string {
	if s.valid() {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

func (s Severity) valid() bool { return s >= SeverityLow && s <= SeverityCritical }

// MarshalText encodes s as one of the four lower-case words. It returns an
// error for a value outside the four constants.
func (s Severity) MarshalText() ([]byte, error) {
	if !s.valid() {
		return nil, fmt.Errorf("reflection: invalid severity %d", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText accepts exactly "low", "medium", "high" or "critical"
// (case-sensitive) and returns an error for anything else, leaving s as it was.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, name := range severityNames {
		if string(b) == name {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("reflection: unknown severity %q (want low, medium, high or critical)", b)
}

// CorrectionType says what kind of fix a Correction proposes, and so what the
// Driver does with it before a retry.
type CorrectionType string

// The five correction types. Only InputFix and ToolChange change the retried
// call; the other three are advice that the retry carries unchanged.
const (
	// InputFix replaces the call's input with Correction.ModifiedInput.
	InputFix CorrectionType = "input_fix"
	// ToolChange calls Correction.AlternativeTool instead of the current tool.
	ToolChange CorrectionType = "tool_change"
	// PrerequisiteFix says something must happen before the call can work.
	PrerequisiteFix CorrectionType = "prerequisite_fix"
	// ApproachChange says the agent should try another way.
	ApproachChange CorrectionType = "approach_change"
	// Escalate says the failure needs a human or a higher authority.
	Escalate CorrectionType = "escalate"
)

// UnmarshalText accepts exactly one of the five correction type strings and
// returns an error for any other, leaving t as it was.
func (t *CorrectionType) UnmarshalText(b []byte) error {
	switch c := CorrectionType(b); c {
	case InputFix, ToolChange, PrerequisiteFix, ApproachChange, Escalate:
		*t = c
		return nil
	}
	return fmt.Errorf("reflection: unknown correction type %q", b)
}

// Correction is a fix a Reflector proposes for a failed call. Which fields
// matter depends on Type: ModifiedInput for InputFix, AlternativeTool for
// ToolChange, Guidance for the advisory types.
//
// In JSON every key is written; an absent ModifiedInput, AlternativeTool or
// Guidance is written as null, and a null decodes back to nil or "".
type Correction struct {
	Type            CorrectionType  `json:"correction_type"`
	Description     string          `json:"description"`
	ModifiedInput   json.RawMessage `json:"modified_input"`   // nil when absent or JSON null
	AlternativeTool string          `json:"alternative_tool"` // "" when absent or null
	Guidance        string          `json:"guidance"`         // "" when absent or null
}

// correctionJSON is Correction's wire shape: pointers make empty optional
// strings travel as null.
type correctionJSON struct {
	Type            CorrectionType  `json:"correction_type"`
	Description     string          `json:"description"`
	ModifiedInput   json.RawMessage `json:"modified_input"`
	AlternativeTool *string         `json:"alternative_tool"`
	Guidance        *string         `json:"guidance"`
}

var errNoCorrectionType = errors.New("reflection: correction has no correction_type")

// MarshalJSON writes every key, with null for an absent optional value (an
// empty ModifiedInput counts as absent).
func (c Correction) MarshalJSON() ([]byte, error) {
	var input json.RawMessage
	if len(c.ModifiedInput) > 0 {
		input = c.ModifiedInput
	}
	w := correctionJSON{
		Type:            c.Type,
		Description:     c.Description,
		ModifiedInput:   input,
		AlternativeTool: nullable(c.AlternativeTool),
		Guidance:        nullable(c.Guidance),
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a correction. correction_type is required and must be
// one of the five types; a null modified_input gives a nil ModifiedInput.
func (c *Correction) UnmarshalJSON(b []byte) error {
	var w correctionJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Type == "" {
		return errNoCorrectionType
	}
	if bytes.Equal(bytes.TrimSpace(w.ModifiedInput), []byte("null")) {
		w.ModifiedInput = nil
	}
	*c = Correction{
		Type:            w.Type,
		Description:     w.Description,
		ModifiedInput:   w.ModifiedInput,
		AlternativeTool: deref(w.AlternativeTool),
		Guidance:        deref(w.Guidance),
	}
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FailureAnalysis is a Reflector's verdict on one failed call: whether it is
// worth retrying, why it failed, how bad it is and, when known, how to fix it.
// It round-trips through encoding/json with the snake_case keys of loopctl.
type FailureAnalysis struct {
	IsRecoverable bool        `json:"is_recoverable"`
	RootCause     string      `json:"root_cause"`
	Severity      Severity    `json:"severity"`
	Correction    *Correction `json:"correction"` // nil: no correction known
	Context       string      `json:"context"`

	// RetryAfter is the earliest retry the failing service allows (a
	// Retry-After header, say); 0 when none is known. On a Retry the Driver
	// waits at least this long, and a hint above WithMaxRetryAfter's cap turns
	// the retry into Fail. Its key is left out of JSON when it is 0.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}
