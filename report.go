package reflection

import (
	"fmt"
	"time"
)

// Report is what one tool call went through: every attempt, what recovery
// made of it, and how the call ended. Driver.RunWithReport returns one;
// Driver.Run builds none. A Report encodes to JSON without fail and, when
// its inputs are JSON and its severities valid, decodes back to an equal
// Report.
type Report struct {
	Result   ToolResult `json:"result"`           // exactly what Run returns
	Outcome  Outcome    `json:"outcome"`          // how the call ended
	Attempts []Attempt  `json:"attempts"`         // one per dispatch, in order
	Error    string     `json:"error,omitempty"`  // the hard error's text, when there is one
	Reason   Reason     `json:"reason,omitempty"` // why the call ended; "" for a success
}

// Attempt is one dispatch of a call and what recovery made of it.
type Attempt struct {
	Call   ToolCall   `json:"call"`   // as dispatched: corrections applied
	Result ToolResult `json:"result"` // what dispatch returned (zero for a panic)
	Start  time.Time  `json:"start"`  // when dispatch was called (the runtime's clock; zero when it gave none)
	End    time.Time  `json:"end"`    // when it returned

	Failed        bool   `json:"failed"`                   // the attempt failed
	Failure       string `json:"failure,omitempty"`        // the failure text the Reflector was given
	DispatchError string `json:"dispatch_error,omitempty"` // the text of the error dispatch returned

	Analysis       *FailureAnalysis `json:"analysis,omitempty"`        // what the Reflector answered
	ReflectorError string           `json:"reflector_error,omitempty"` // or why it failed
	Action         RecoveryAction   `json:"action,omitempty"`          // what was decided, after the Driver's own rules

	Wait        *Wait              `json:"wait,omitempty"`        // the wait before the next attempt
	Ask         *Ask               `json:"ask,omitempty"`         // the question put to a human
	Corrections []CorrectionRecord `json:"corrections,omitempty"` // applied or dropped before the next attempt
}

// Wait is a wait between two attempts.
type Wait struct {
	Delay   time.Duration `json:"delay"`             // the wait to take: the strategy's delay or the hint, whichever is longer
	Hint    time.Duration `json:"hint,omitempty"`    // the rate-limit hint behind it; Delay is at least this
	Stopped bool          `json:"stopped,omitempty"` // the call stopped instead: the runtime refused the wait or its context ended during it
}

// Ask is a question put to a human (WithAsker) and what came back.
type Ask struct {
	Prompt string  `json:"prompt"`           // the AskUser prompt
	Answer *Answer `json:"answer,omitempty"` // the answer; nil when the Asker failed
	Error  string  `json:"error,omitempty"`  // the Asker's error
}

// CorrectionRecord is an InputFix or ToolChange before a retry: applied, or
// dropped and why.
type CorrectionRecord struct {
	Correction Correction `json:"correction"`
	Human      bool       `json:"human,omitempty"` // the input came with a human's approval
	Applied    bool       `json:"applied"`
	Why        string     `json:"why,omitempty"` // why it was dropped
}

// Outcome says how a tool call ended.
type Outcome int

// The six outcomes.
const (
	OutcomeSucceeded Outcome = iota + 1 // a call succeeded
	OutcomeSkipped                      // the strategy said Skip
	OutcomeAskedUser                    // AskUser ended the call (no Asker, the Asker failed, or the human declined)
	OutcomeFailed                       // Fail: the strategy's, a reflector error, an invalid action, a hint over the cap
	OutcomeExhausted                    // *ToolRecoveryExhaustedError
	OutcomeStopped                      // any other hard error: ctx ended, deadline refusal, nil dispatch
)

var outcomeNames = [...]string{"succeeded", "skipped", "asked_user", "failed", "exhausted", "stopped"}

func (o Outcome) valid() bool { return o >= OutcomeSucceeded && o <= OutcomeStopped }

// String returns "succeeded", "skipped", "asked_user", "failed", "exhausted"
// or "stopped", and "outcome(N)" for any other value.
func (o Outcome) String() string {
	if o.valid() {
		return outcomeNames[o-1]
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// MarshalText encodes o as one of the six words; it returns an error for any
// other value.
func (o Outcome) MarshalText() ([]byte, error) {
	if !o.valid() {
		return nil, fmt.Errorf("reflection: invalid outcome %d", int(o))
	}
	return []byte(outcomeNames[o-1]), nil
}

// UnmarshalText accepts exactly one of the six words (case-sensitive) and
// returns an error for anything else, leaving o as it was.
func (o *Outcome) UnmarshalText(b []byte) error {
	for i, name := range outcomeNames {
		if string(b) == name {
			*o = Outcome(i + 1)
			return nil
		}
	}
	return fmt.Errorf("reflection: unknown outcome %q", b)
}
