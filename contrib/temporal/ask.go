package reflectiontemporal

import (
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// ask shows the question through the Query and waits, durably and at most
// the ask timeout, for an answer sent as the Update. From version 2 on, the
// decisions that led to the question are recorded first (see
// checkDecisions): the wait can last hours, and a deployment can come in
// between.
func (rt *runtime) ask(step reflection.AskStep) {
	if rt.stopped() {
		return
	}
	timeout := rt.cfg.askTimeout
	if timeout <= 0 {
		rt.rec.Answered(reflection.Answer{}, errNoHuman)
		return
	}
	if rt.v2 {
		rep := rt.rec.Report()
		rt.checkDecisions(&rep, pointAsk)
	}
	st := rt.state
	now := workflow.Now(rt.ctx)
	rt.enter(StateAsking, step.Question.Failure.Attempt)
	st.status.Ask = &AskStatus{Question: NewQuestion(step.Question), Until: now.Add(timeout).UTC()}
	st.answered, st.answer = false, reflection.Answer{}
	ok, err := workflow.AwaitWithOptions(rt.ctx, workflow.AwaitOptions{
		Timeout:      timeout,
		TimerOptions: workflow.TimerOptions{Summary: "question for call " + st.status.CallID},
	}, func() bool { return st.answered })
	if err != nil {
		if !rt.stopped() {
			rt.rec.Stop(fmt.Errorf("reflectiontemporal: the wait for an answer failed: %w", err))
		}
		return
	}
	if !ok {
		rt.rec.Answered(reflection.Answer{}, &askTimeoutError{timeout: timeout})
		return
	}
	rt.rec.Answered(st.answer, nil)
}
