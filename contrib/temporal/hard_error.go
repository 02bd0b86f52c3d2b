package reflectiontemporal

import (
	"context"
	"errors"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/temporal"
)

// The types of the non-retryable application errors Run returns (see
// hardError). A workflow's RetryPolicy never retries them, so the ceiling
// of six calls holds; they may also be listed in a RetryPolicy's
// NonRetryableErrorTypes, or checked with temporal.ApplicationError's Type.
const (
	// ErrorTypeExhausted: the sixth call failed and the strategy still said
	// Retry. The error wraps a *reflection.ToolRecoveryExhaustedError.
	ErrorTypeExhausted = "reflection.ToolRecoveryExhausted"
	// ErrorTypeDeadline: a wait would have ended past the workflow run's
	// timeout. The error wraps a *reflection.WaitPastDeadlineError and
	// matches context.DeadlineExceeded.
	ErrorTypeDeadline = "reflection.WaitPastRunTimeout"
	// ErrorTypeStopped: the call could not go on (a nil workflow context, a
	// Driver that holds state shared across a process, a call ID already
	// running in the workflow, no worker with the tool activity registered,
	// a failed wait). The error then matches ErrProcessState for such a
	// Driver, and reflection.ErrNilDispatch when no worker has the tool
	// activity.
	ErrorTypeStopped = "reflection.CallStopped"
)

// hardError returns the error of a call as Run returns it. A cancel stays
// as it is: it matches workflow.ErrCanceled, and a workflow that returns it
// ends canceled, which no retry policy re-runs. Any other error becomes a
// non-retryable *temporal.ApplicationError whose cause is err, so that
// errors.Is and errors.As still find what err matches, and a workflow that
// returns it as it is fails for good.
func hardError(err error) error {
	if err == nil {
		return nil
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return err
	}
	var exhausted *reflection.ToolRecoveryExhaustedError
	switch {
	case errors.As(err, &exhausted):
		return temporal.NewNonRetryableApplicationError("reflectiontemporal: recovery exhausted", ErrorTypeExhausted, err)
	case errors.Is(err, context.DeadlineExceeded):
		return temporal.NewNonRetryableApplicationError("reflectiontemporal: wait refused", ErrorTypeDeadline, err)
	}
	return temporal.NewNonRetryableApplicationError("reflectiontemporal: call stopped", ErrorTypeStopped, err)
}

// errNilContext is Run's error for a nil workflow.Context.
var errNilContext = errors.New("reflectiontemporal: nil workflow context")

// errNoHuman answers an AskStep when Run may not ask (no WithAsk): the
// Driver has an Asker, which workflow code cannot call.
var errNoHuman = errors.New("reflectiontemporal: no human can be asked (see WithAsk)")

// stopError ends a call whose workflow was cancelled. It matches the
// workflow context's error (workflow.ErrCanceled) and context.Canceled.
type stopError struct{ cause error }

func (e *stopError) Error() string        { return "reflectiontemporal: call stopped: " + e.cause.Error() }
func (e *stopError) Unwrap() error        { return e.cause }
func (e *stopError) Is(target error) bool { return target == context.Canceled }

// noDispatchError ends a call whose tool activity no worker has registered.
// It matches reflection.ErrNilDispatch.
type noDispatchError struct{ cause error }

func (e *noDispatchError) Error() string {
	return "reflectiontemporal: no worker has the tool activity " + DispatchActivity + " registered (see Register): " + e.cause.Error()
}
func (e *noDispatchError) Unwrap() error        { return e.cause }
func (e *noDispatchError) Is(target error) bool { return target == reflection.ErrNilDispatch }

// askTimeoutError is the answer to a question nobody answered in time.
type askTimeoutError struct{ timeout time.Duration }

func (e *askTimeoutError) Error() string {
	return "reflectiontemporal: no answer within " + e.timeout.String()
}
