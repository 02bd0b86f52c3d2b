package reflectiontemporal

import (
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// ErrNoQuestion rejects an answer to a call that has no question waiting
// for one (not asking, already answered, or ended). A rejected Update
// leaves no trace in the workflow's history.
var ErrNoQuestion = errors.New("reflectiontemporal: no question is waiting for an answer")

// validateAnswer is the Update's validator: it accepts ans only while the
// call waits for one, and only when the machine would use it as it stands
// (reflection.Recovery.CheckAnswer: an approved input must be a JSON object
// within the corrected-input cap, with no key repeated, that the input
// check accepts for the tool it would run on), so the history never records
// an approval whose input would be dropped. It changes nothing the workflow
// reads.
func (c *callState) validateAnswer(ans reflection.Answer) error {
	if c.status.State != StateAsking || c.answered {
		return fmt.Errorf("%w (call %q)", ErrNoQuestion, c.status.CallID)
	}
	if err := c.rec.CheckAnswer(ans); err != nil {
		return fmt.Errorf("reflectiontemporal: call %q: %w", c.status.CallID, err)
	}
	return nil
}

// answerUpdate is the Update's handler: it hands ans to the waiting call.
func (c *callState) answerUpdate(_ workflow.Context, ans reflection.Answer) error {
	// Two answers accepted in the same workflow task both passed the
	// validator; the first one wins. A replay, which runs no validator,
	// checks the answer here.
	if err := c.validateAnswer(ans); err != nil {
		return err
	}
	c.answer, c.answered = ans, true
	return nil
}
