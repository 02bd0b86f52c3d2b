package reflection

import (
	"context"
	"encoding/json"
)

// Asker puts a question to a human when a strategy answers AskUser, and
// returns the answer. Ask must return when ctx ends. Implementations must be
// safe for concurrent use: one Driver asks from every goroutine that runs a
// call.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// AskerFunc adapts an ordinary function to the Asker interface.
type AskerFunc func(ctx context.Context, q Question) (Answer, error)

// Ask calls fn(ctx, q).
func (fn AskerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return fn(ctx, q) }

// Question is what a human is asked after a failure: the call as it last
// ran, what the Reflector was told and what it answered, and the strategy's
// prompt. The analysis' Correction is what an approved retry applies.
type Question struct {
	Call     ToolCall        // the call as it last ran
	Failure  Failure         // what the Reflector was asked
	Analysis FailureAnalysis // what it answered
	Prompt   string          // the AskUser prompt

	// Dispatches is how many times the call has been dispatched so far, and
	// MayHaveActed how many of those dispatches failed in a way that does
	// not tell whether the tool, one that is not idempotent, acted
	// (WithEffects): what an approval may repeat.
	Dispatches   int
	MayHaveActed int
}

// Answer is a human's reply to a Question.
type Answer struct {
	// Approve retries the call now, with the analysis' correction applied.
	Approve bool `json:"approve"`
	// Input, set together with Approve, replaces the call's input with the
	// human's own. It must be a JSON object and passes the same checks as an
	// InputFix; one that fails them is dropped and the retry runs without it.
	Input json.RawMessage `json:"input,omitempty"`
	// Reply, when the call is not approved, is added to what the model sees.
	Reply string `json:"reply,omitempty"`
}

// Sentences the Driver adds to the failure text the model sees when a call
// ends on AskUser.
const (
	humanDecisionNeeded = "A human decision is needed before this call can be retried"
	humanDeclined       = "A human declined to retry this call."
)

// humanDecision is the sentence AskUser appends to the failure text.
func humanDecision(prompt string) string {
	if prompt == "" {
		return humanDecisionNeeded + "."
	}
	return humanDecisionNeeded + ": " + prompt
}
