package reflectiontemporal

import (
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// activityNotRegistered is the type of the failure of an activity that the
// worker which took it has not registered.
const activityNotRegistered = "ActivityNotRegisteredError"

// dispatch runs one attempt as the tool activity and reports it. From
// version 2 on, a wait decided before this attempt is taken by the activity
// itself: its first try only asks Temporal to retry it after the wait, and
// the retry runs the tool (see runTool); the tool still runs once.
func (rt *runtime) dispatch(step reflection.DispatchStep) {
	wait := rt.pendingWait
	rt.pendingWait = 0
	if rt.stopped() {
		return
	}
	if rt.earlier >= 0 && rt.earlier+rt.rec.Calls() >= reflection.MaxRecoveryAttempts+1 {
		rt.refuseSpent()
		return
	}
	if wait == 0 {
		rt.enter(StateDispatching, step.Attempt)
	}
	opts := rt.cfg.tool
	if opts.Summary == "" {
		opts.Summary = fmt.Sprintf("%s (call %s, attempt %d)", step.Call.Name, rt.state.status.CallID, step.Attempt)
	}
	if rt.v2 {
		opts.ActivityID = rt.activityID(step.Attempt, pointTool)
		if wait > 0 {
			opts.RetryPolicy = &temporal.RetryPolicy{InitialInterval: wait, MaximumAttempts: 2}
			if opts.ScheduleToCloseTimeout > 0 {
				opts.ScheduleToCloseTimeout += wait
			}
		}
	}
	in := dispatchInput{Call: NewCall(step.Call), Attempt: step.Attempt, Key: rt.key, Wait: wait}
	if rt.lookback && rt.earlier < 0 {
		in.Lookback, in.Calls = true, rt.rec.Calls()
	}
	in.Counted = rt.counted[step.Call.Name]
	now := workflow.Now(rt.ctx).UTC()
	start := now.Add(wait)
	var out dispatchOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(rt.ctx, opts), DispatchActivity, in).Get(rt.ctx, &out)
	end := workflow.Now(rt.ctx).UTC()
	failure := out.Err.Rebuild()
	if err != nil {
		if rt.stopped() {
			rt.waitCutShort = end.Before(start)
			return
		}
		var app *temporal.ApplicationError
		if rt.v2 && errors.As(err, &app) && app.Type() == activityNotRegistered {
			rt.rec.Stop(&noDispatchError{cause: err})
			return
		}
		// The limits as the host set them, without the wait this
		// activity took first.
		out, failure = dispatchOutput{}, activityFailure(step.Call.Name, err, rt.cfg.tool)
	}
	if out.Earlier != nil {
		rt.earlier = *out.Earlier
	}
	if out.Spent {
		rt.refuseSpent()
		return
	}
	if out.Refused {
		rt.rec.Refuse(&breakerRefusal{retryIn: out.RetryIn})
		return
	}
	if out.Counted {
		if rt.counted == nil {
			rt.counted = map[string]bool{}
		}
		rt.counted[step.Call.Name] = true
	}
	if end.Before(start) { // a worker that knows no waits ran the tool at once
		start = now
	}
	rt.rec.DispatchedAt(out.Result, failure, start, end)
	if failure != nil || out.Result.IsError {
		rt.noteFailure(step.Call, failure)
	}
	rt.stopped() // cancelled meanwhile: a failure is not analysed
}

// refuseSpent refuses the dispatch of a call whose tool has run the
// ceiling's number of times across the workflow's runs (see
// earlier_runs.go): the call ends as the machine ends a refused dispatch,
// and Run returns an exhaustion error.
func (rt *runtime) refuseSpent() {
	rt.spent = &spentError{
		callID:    rt.state.status.CallID,
		earlier:   rt.earlier,
		exhausted: reflection.ToolRecoveryExhaustedError{Tool: rt.call.Name, Attempts: rt.earlier + rt.rec.Calls()},
	}
	rt.rec.Refuse(rt.spent)
}
