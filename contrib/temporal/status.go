package reflectiontemporal

import (
	"time"

	"github.com/loopctl-go/reflection"
)

// State says what a call running under Run is doing.
type State string

// The states of a call.
const (
	StateDispatching State = "dispatching" // the tool activity runs
	StateAnalyzing   State = "analyzing"   // the Reflector runs
	StateWaiting     State = "waiting"     // a durable wait before the next attempt, then the attempt itself (its tool activity holds the wait)
	StateAsking      State = "asking"      // the call waits for a human's answer
	StateVerifying   State = "verifying"   // the verifier looks up whether a failed attempt acted
	StateDone        State = "done"        // the call has ended
)

// Status is what a call is doing, as the Query named QueryName(call ID)
// returns it (see QueryStatus).
type Status struct {
	CallID  string `json:"call_id"`
	State   State  `json:"state"`
	Attempt int    `json:"attempt"` // the current attempt: 0 for the original call
	Calls   int    `json:"calls"`   // tool attempts that have returned

	Wait *WaitStatus `json:"wait,omitempty"` // set while waiting
	Ask  *AskStatus  `json:"ask,omitempty"`  // set while asking

	Outcome reflection.Outcome     `json:"outcome,omitzero"` // set when done
	Result  *reflection.ToolResult `json:"result,omitempty"` // set when done: what Run returns
}

// WaitStatus is a wait before the next attempt.
type WaitStatus struct {
	Delay time.Duration `json:"delay"`          // the whole wait
	Hint  time.Duration `json:"hint,omitempty"` // the rate-limit hint behind it
	Until time.Time     `json:"until"`          // when it ends, on the workflow's clock
}

// AskStatus is a question waiting for a human's answer.
type AskStatus struct {
	Question Question  `json:"question"` // Rebuild gives the reflection.Question
	Until    time.Time `json:"until"`    // when the question times out, on the workflow's clock
}

// The prefixes of the names of a call's Query and Update.
const (
	queryPrefix  = "reflection.status:"
	updatePrefix = "reflection.answer:"
)

// QueryName returns the name of the Query that returns the Status of the
// call callID: "reflection.status:" followed by the ID.
func QueryName(callID string) string { return queryPrefix + callID }

// UpdateName returns the name of the Update that answers the question of
// the call callID: "reflection.answer:" followed by the ID. It takes one
// argument, a reflection.Answer.
func UpdateName(callID string) string { return updatePrefix + callID }
