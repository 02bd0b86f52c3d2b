package reflection

import (
	"fmt"
	"time"
)

// RecoveryAction is what to do after a failure: one of Retry, Skip, AskUser
// or Fail. The set is closed (an unexported method seals it), and every
// variant is a comparable value type, so actions compare with ==:
//
//	RecoveryAction(Retry{Delay: time.Second}) == Retry{Delay: time.Second} // true
//
// Use a type switch to tell them apart. The Driver treats a pointer to a
// variant, such as *Retry, or a nil action as Fail.
type RecoveryAction interface {
	fmt.Stringer
	isRecoveryAction()
}

// Retry waits Delay, applies the analysis' correction, and runs the call
// again. A zero or negative Delay retries at once.
type Retry struct{ Delay time.Duration }

// Skip gives up on the call; the model sees the failure and the run goes on.
// Reason is logged.
type Skip struct{ Reason string }

// AskUser gives up on the call and tells the model that a human decision is
// needed; Prompt is appended to the failure text the model sees.
type AskUser struct{ Prompt string }

// Fail stops retrying; the model sees the failure as a soft error. Reason is
// logged.
type Fail struct{ Reason string }

// String returns "retry after " followed by the delay, as in "retry after 200ms".
func (r Retry) String() string { return "retry after " + r.Delay.String() }

// String returns "skip: " followed by the reason.
func (s Skip) String() string { return "skip: " + s.Reason }

// String returns "ask user: " followed by the prompt.
func (a AskUser) String() string { return "ask user: " + a.Prompt }

// String returns "fail: " followed by the reason.
func (f Fail) String() string { return "fail: " + f.Reason }

func (Retry) isRecoveryAction()   {}
func (Skip) isRecoveryAction()    {}
func (AskUser) isRecoveryAction() {}
func (Fail) isRecoveryAction()    {}
