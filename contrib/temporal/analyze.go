package reflectiontemporal

import (
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// analyze asks the Reflector about the failure and reports its answer: in
// workflow code with WithWorkflowReflector or the Driver's rules (version
// 2, and the workflow records the choice), else as the Reflector activity.
// As under Driver.Run, the answer is reported (the strategy decides), and
// a workflow cancelled by the time the answer is in then stops the call,
// whatever was decided; an activity cut short by the cancel gave no
// answer, and none is reported.
func (rt *runtime) analyze(step reflection.AnalyzeStep) {
	rt.enter(StateAnalyzing, step.Failure.Attempt)
	if rt.inWorkflowReflector() {
		a, err := callReflector(rt.stratCtx, rt.cfg.inWorkflow, step.Failure)
		rt.rec.Analyzed(a, err)
		rt.stopped()
		return
	}
	opts := rt.cfg.reflector
	if opts.Summary == "" {
		opts.Summary = fmt.Sprintf("analyse %s (call %s, attempt %d)", step.Failure.Tool, rt.state.status.CallID, step.Failure.Attempt)
	}
	if rt.v2 {
		opts.ActivityID = rt.activityID(step.Failure.Attempt, pointReflect)
	}
	var out analyzeOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(rt.ctx, opts), AnalyzeActivity, NewFailure(step.Failure)).Get(rt.ctx, &out)
	if err != nil && rt.stopped() {
		return // the cancel cut the activity short: no answer
	}
	defer rt.stopped() // cancelled by the time the answer is in: the cancel wins, whatever was decided
	switch {
	case err != nil:
		rt.rec.Analyzed(reflection.FailureAnalysis{}, fmt.Errorf("reflectiontemporal: the Reflector activity failed: %w", err))
	case out.Err != nil:
		rt.rec.Analyzed(reflection.FailureAnalysis{}, out.Err.Rebuild())
	case out.Analysis == nil:
		rt.rec.Analyzed(reflection.FailureAnalysis{}, errors.New("reflectiontemporal: the Reflector activity returned no analysis"))
	default:
		rt.rec.Analyzed(out.Analysis.FailureAnalysis, nil)
	}
}

// inWorkflowReflector reports whether this call's analyses run in workflow
// code. The first call of a workflow that asks records the choice with
// workflow.GetVersion; a history without that marker ran the Reflector as
// an activity, and replays so.
func (rt *runtime) inWorkflowReflector() bool {
	if rt.cfg.inWorkflow == nil || !rt.v2 {
		return false
	}
	if rt.inWorkflow == 0 {
		rt.inWorkflow = workflow.GetVersion(rt.ctx, inWorkflowChangeID, workflow.DefaultVersion, inWorkflowV1)
	}
	return rt.inWorkflow >= inWorkflowV1
}
