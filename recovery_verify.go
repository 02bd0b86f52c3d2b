package reflection

import (
	"context"
	"strconv"
	"time"
)

// Verdict is a verifier's answer about a failed attempt that may have acted
// (WithVerifier).
type Verdict int

// The verdicts a verifier gives.
const (
	VerdictUnknown    Verdict = iota // cannot tell: the guard asks, as without a verifier
	VerdictNotApplied                // the failed attempt certainly did not act: it may be retried
	VerdictApplied                   // it did act: the call ends succeeded with the verifier's result
)

var verdictNames = [...]string{"unknown", "not_applied", "applied"}

// String returns "unknown", "not_applied" or "applied".
func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// VerifyStep asks the runtime to look up whether Call's failed attempt
// acted, with the Driver's verifier (WithVerifier), and report the answer
// with Recovery.Verified. Call is the call whose ambiguous failure is in
// question, as that dispatch ran; Key is its idempotency key, "" when it
// has none, for the verifier's ctx. A runtime that cannot verify answers
// VerdictUnknown.
type VerifyStep struct {
	Call ToolCall
	Key  string
}

func (VerifyStep) isStep() {}

// verifyFunc is the verifier WithVerifier gives.
type verifyFunc = func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error)

// RememberedCall is what an EffectMemory keeps of a call that may have
// acted without succeeding.
type RememberedCall struct {
	ID      string    // the earlier call's ToolCall.ID
	Ran     ToolCall  // the earlier call as its last ambiguous dispatch ran: what a verifier looks up
	Failure string    // the earlier call's last failure text
	Key     string    // its idempotency key, "" when it had none
	At      time.Time // when it ended
}
