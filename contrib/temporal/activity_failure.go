package reflectiontemporal

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// activityFailure turns the error of a tool activity that did not complete
// into the failure of the attempt. An attempt that outlived its
// StartToCloseTimeout or ScheduleToCloseTimeout is Driver.Run's attempt
// timeout: a *reflection.AttemptTimeoutError with that limit, whose tool
// error, lost with the attempt, stands as context.DeadlineExceeded. One
// whose worker stopped heartbeating (it died or hung: the activity
// heartbeats by itself while the tool runs) reads `tool "<name>" timed out:
// no heartbeat from its worker for <d>` and matches
// context.DeadlineExceeded too, so the Reflector can call both transient.
// An attempt no worker started in its ScheduleToStartTimeout never ran the
// tool, and matches reflection.ErrNoEffect as well. Anything else says the
// tool could not run, with Temporal's words.
func activityFailure(tool string, err error, o workflow.ActivityOptions) error {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		switch te.TimeoutType() {
		case enumspb.TIMEOUT_TYPE_HEARTBEAT:
			return &lostWorkerError{tool: tool, limit: o.HeartbeatTimeout}
		case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
			return &notStartedError{tool: tool, limit: o.ScheduleToStartTimeout}
		case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
			return &reflection.AttemptTimeoutError{Tool: tool, Limit: o.ScheduleToCloseTimeout, Err: context.DeadlineExceeded}
		default:
			return &reflection.AttemptTimeoutError{Tool: tool, Limit: o.StartToCloseTimeout, Err: context.DeadlineExceeded}
		}
	}
	cause := err
	var ae *temporal.ActivityError
	if errors.As(err, &ae) && ae.Unwrap() != nil {
		cause = ae.Unwrap()
	}
	return &notRunError{tool: tool, cause: cause}
}

// lostWorkerError is the failure of an attempt whose worker stopped
// heartbeating. The tool may have acted before it was lost.
type lostWorkerError struct {
	tool  string
	limit time.Duration
}

func (e *lostWorkerError) Error() string {
	return "tool " + strconv.Quote(e.tool) + " timed out: no heartbeat from its worker for " + e.limit.String()
}
func (e *lostWorkerError) Is(target error) bool { return target == context.DeadlineExceeded }
func (e *lostWorkerError) Timeout() bool        { return true }

// notStartedError is the failure of an attempt that no worker started in
// time: the tool never ran, so it had no effect.
type notStartedError struct {
	tool  string
	limit time.Duration
}

func (e *notStartedError) Error() string {
	return "tool " + strconv.Quote(e.tool) + " did not start within " + e.limit.String()
}
func (e *notStartedError) Is(target error) bool {
	return target == context.DeadlineExceeded || target == reflection.ErrNoEffect
}
func (e *notStartedError) Timeout() bool { return true }

// notRunError is the failure of an attempt that Temporal could not run to
// its end for another reason; it unwraps to Temporal's error.
type notRunError struct {
	tool  string
	cause error
}

func (e *notRunError) Error() string {
	return "tool " + strconv.Quote(e.tool) + " could not run: " + errchain.Text(e.cause)
}
func (e *notRunError) Unwrap() error { return e.cause }
