package reflectiontemporal

import (
	"fmt"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// wait performs the wait before the next attempt. A wait that would end
// past the run's timeout is refused at once with
// reflection.WaitPastDeadline's error, as Driver.Run refuses one past ctx's
// deadline. From version 2 on, the next tool activity takes the wait
// (the server holds it as the delay of the activity's retry: durable, and
// with no timer or workflow task of its own); version 1 runs a durable
// timer. A cancel interrupts either.
func (rt *runtime) wait(step reflection.WaitStep) {
	if step.Delay > 0 {
		if rt.stopped() {
			return
		}
		now := workflow.Now(rt.ctx)
		if err := reflection.WaitPastDeadline(step.Delay, now, rt.runEnd()); err != nil {
			rt.rec.Stop(err)
			return
		}
		rt.enter(StateWaiting, step.Attempt)
		rt.state.status.Wait = &WaitStatus{Delay: step.Delay, Hint: rt.rec.Hint(), Until: now.Add(step.Delay).UTC()}
		if rt.v2 {
			rt.pendingWait = step.Delay
		} else if !rt.timer(step) {
			return
		}
	}
	rt.rec.Waited()
}

// timer waits step's delay on a durable timer (version 1), and reports
// whether the call goes on.
func (rt *runtime) timer(step reflection.WaitStep) bool {
	summary := fmt.Sprintf("wait before retrying call %s (attempt %d failed)", rt.state.status.CallID, step.Attempt)
	err := workflow.NewTimerWithOptions(rt.ctx, step.Delay, workflow.TimerOptions{Summary: summary}).Get(rt.ctx, nil)
	if err != nil {
		if !rt.stopped() {
			rt.rec.Stop(fmt.Errorf("reflectiontemporal: the wait failed: %w", err))
		}
		return false
	}
	return true
}

// runEnd returns when the workflow run times out: the deadline of the
// workflow code's calls. It is the zero time when the run has no timeout.
func (rt *runtime) runEnd() time.Time {
	info := workflow.GetInfo(rt.ctx)
	if info.WorkflowRunTimeout <= 0 {
		return time.Time{}
	}
	return info.WorkflowStartTime.Add(info.WorkflowRunTimeout)
}
