package reflectiontemporal

import (
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// verify performs the machine's VerifyStep as VerifyActivity: the worker's
// verifier (WithWorkerVerifier) looks up whether the failed attempt in
// question acted, under the call's idempotency key. As under Driver.Run, a
// verdict that comes back after the workflow was cancelled is not used, and
// an activity that fails is an error: the guard asks.
func (rt *runtime) verify(step reflection.VerifyStep) {
	if rt.stopped() {
		return
	}
	attempt := rt.rec.Attempt()
	rt.enter(StateVerifying, attempt)
	opts := rt.cfg.reflector
	if opts.Summary == "" {
		opts.Summary = fmt.Sprintf("verify %s (call %s, attempt %d)", step.Call.Name, rt.state.status.CallID, attempt)
	}
	if rt.v2 {
		opts.ActivityID = rt.activityID(attempt, pointVerify)
	}
	key := step.Key
	if key == "" {
		key = rt.key // the failed attempt in question is this call's
	}
	var out verifyOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(rt.ctx, opts), VerifyActivity,
		verifyInput{Call: NewCall(step.Call), Key: key}).Get(rt.ctx, &out)
	if rt.stopped() {
		return
	}
	if err != nil {
		rt.rec.Verified(reflection.VerdictUnknown, reflection.ToolResult{}, fmt.Errorf("reflectiontemporal: the verifier activity failed: %w", err))
		return
	}
	rt.rec.Verified(out.Verdict, out.Result, out.Err.Rebuild())
}
