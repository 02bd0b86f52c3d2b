package reflectiontemporal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// Why the Update rejects an answer. A rejected Update leaves no trace in
// the workflow's history.
var (
	// ErrNoQuestion rejects an answer to a call that has no question
	// waiting for one (not asking, already answered, or ended).
	ErrNoQuestion = errors.New("reflectiontemporal: no question is waiting for an answer")
	// ErrInputNotObject rejects an approval whose Input is not a JSON object.
	ErrInputNotObject = errors.New("reflectiontemporal: the approved input is not a JSON object")
	// ErrInputWithoutApproval rejects an answer with an Input but no
	// Approve: the input would never run.
	ErrInputWithoutApproval = errors.New("reflectiontemporal: an input comes only with an approval")
)

// validateAnswer is the Update's validator: it accepts ans only while the
// call waits for one, and only when its Input, if any, is a JSON object that
// comes with an approval. It reads the call's state and changes nothing.
func (c *callState) validateAnswer(ans reflection.Answer) error {
	if c.status.State != StateAsking || c.answered {
		return fmt.Errorf("%w (call %q)", ErrNoQuestion, c.status.CallID)
	}
	if len(ans.Input) == 0 {
		return nil
	}
	if !ans.Approve {
		return ErrInputWithoutApproval
	}
	if !isJSONObject(ans.Input) {
		return ErrInputNotObject
	}
	return nil
}

// answerUpdate is the Update's handler: it hands ans to the waiting call.
func (c *callState) answerUpdate(_ workflow.Context, ans reflection.Answer) error {
	// Two answers accepted in the same workflow task both passed the
	// validator; the first one wins.
	if err := c.validateAnswer(ans); err != nil {
		return err
	}
	c.answer, c.answered = ans, true
	return nil
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
