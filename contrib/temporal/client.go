package reflectiontemporal

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/client"
)

// errNilClient is the error of QueryStatus and SendAnswer for a nil client.
var errNilClient = errors.New("reflectiontemporal: nil client")

// QueryStatus returns the Status of the call callID in the workflow
// workflowID (runID "" means its latest run), through the call's Query. A
// question it shows rebuilds into a reflection.Question with
// Status.Ask.Question.Rebuild().
func QueryStatus(ctx context.Context, c client.Client, workflowID, runID, callID string) (Status, error) {
	if c == nil {
		return Status{}, errNilClient
	}
	v, err := c.QueryWorkflow(ctx, workflowID, runID, QueryName(callID))
	if err != nil {
		return Status{}, fmt.Errorf("reflectiontemporal: query call %q: %w", callID, err)
	}
	var s Status
	if err := v.Get(&s); err != nil {
		return Status{}, fmt.Errorf("reflectiontemporal: decode the status of call %q: %w", callID, err)
	}
	return s, nil
}

// SendAnswer answers the question of the call callID in the workflow
// workflowID (runID "" means its latest run), through the call's Update,
// and returns once the workflow has taken the answer. It returns an error
// matching nothing in particular when the workflow rejects the answer (its
// text says why: ErrNoQuestion's words, or reflection.ErrAnswerInput's for
// an approved input the machine would not use) or cannot be reached. An
// input that is not valid JSON cannot be encoded: SendAnswer fails before
// anything reaches the server.
//
// A worker validates and takes the answer: while none runs (all stopped,
// or a deployment under way), SendAnswer waits for one, silently, as long
// as ctx allows. Bound it with a ctx deadline: when ctx ends first, the
// error matches ctx's error and says that no worker took the answer. The
// answer is not lost then: the server holds it and hands it to the next
// worker, which takes it if the question still waits (a later SendAnswer
// for the same question is then rejected with ErrNoQuestion). The server
// holds it in memory only (an Update is durable once a worker accepts it):
// if the server restarts first, send the answer again.
func SendAnswer(ctx context.Context, c client.Client, workflowID, runID, callID string, ans reflection.Answer) error {
	if c == nil {
		return errNilClient
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		RunID:        runID,
		UpdateName:   UpdateName(callID),
		Args:         []any{ans},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	// The SDK may give up a moment before ctx itself ends (its deadline for
	// the request is a little earlier), with a timeout error or a stream
	// the server cancelled: the error then matches what ctx's error is
	// about to be.
	var gaveUp *client.WorkflowUpdateServiceTimeoutOrCanceledError
	if err != nil && ctx.Err() == nil && errors.As(err, &gaveUp) {
		ending := context.Canceled
		if _, ok := ctx.Deadline(); ok {
			ending = context.DeadlineExceeded
		}
		return fmt.Errorf("reflectiontemporal: answer call %q: no worker took the answer before ctx ended: %w (%w)", callID, ending, err)
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("reflectiontemporal: answer call %q: no worker took the answer before ctx ended: %w (%w)", callID, ctx.Err(), err)
	}
	if err != nil {
		return fmt.Errorf("reflectiontemporal: answer call %q: %w", callID, err)
	}
	return nil
}
