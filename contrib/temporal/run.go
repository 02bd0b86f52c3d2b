package reflectiontemporal

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// The version of the order in which Run performs the machine's steps, as
// workflow.GetVersion records it in every workflow that calls Run. A later
// release that changes what Run records in history branches on it, so that
// workflows in flight replay as they ran.
const (
	changeID     = "github.com/loopctl-go/reflection/contrib/temporal"
	stepsVersion = workflow.Version(1)
)

// errNilContext is Run's error for a nil workflow.Context.
var errNilContext = errors.New("reflectiontemporal: nil workflow context")

// errNoHuman answers an AskStep when Run may not ask (no WithAsk): the
// Driver has an Asker, which workflow code cannot call.
var errNoHuman = errors.New("reflectiontemporal: no human can be asked (see WithAsk)")

// Run runs call with recovery inside a workflow, following the rules of
// reflection.Recovery exactly as Driver.Run does: the tool runs as the
// DispatchActivity (one attempt per activity), the Reflector as the
// AnalyzeActivity (its answer is recorded in history, so a replay never asks
// it again), waits are durable timers, and, with WithAsk, AskUser waits for
// a human's answer sent as an Update. Register the activities on the worker
// with Register.
//
// It returns what Driver.Run returns (the result and the error) and the
// call's Report. The error is nil but for three cases: the workflow was
// cancelled (the error matches workflow.ErrCanceled and context.Canceled), a
// wait would end past the workflow run's timeout (it matches
// context.DeadlineExceeded), or the sixth call failed and the strategy still
// said Retry (*reflection.ToolRecoveryExhaustedError).
//
// While it runs, the Query named QueryName(call.ID) returns its Status, and
// the Update named UpdateName(call.ID) answers its question. Several calls
// may run at once in one workflow (workflow.Go), as long as their IDs
// differ. A nil ctx ends the call at once with an error.
func Run(ctx workflow.Context, call reflection.ToolCall, opts ...Option) (reflection.ToolResult, reflection.Report, error) {
	cfg := newConfig(opts)
	rec := cfg.driver.NewRecovery(reflection.ContextWithTask(context.Background(), cfg.task), call)
	if ctx == nil {
		rec.Stop(errNilContext)
		return finish(rec)
	}
	if cfg.askTimeout > 0 {
		rec.EnableAsk()
	}
	rt := &runtime{
		ctx:   ctx,
		cfg:   &cfg,
		rec:   rec,
		state: &callState{status: Status{CallID: call.ID, State: StateDispatching}},
		key:   workflow.GetInfo(ctx).WorkflowExecution.ID + "/" + call.ID,
	}
	workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, stepsVersion)
	if err := rt.register(); err != nil {
		rec.Stop(err)
	}
	for {
		switch step := rec.Next().(type) {
		case reflection.DispatchStep:
			rt.dispatch(step)
		case reflection.AnalyzeStep:
			rt.analyze(step)
		case reflection.WaitStep:
			rt.wait(step)
		case reflection.AskStep:
			rt.ask(step)
		case reflection.DoneStep:
			rt.state.status = Status{
				CallID: call.ID, State: StateDone, Attempt: rec.Attempt(), Calls: rec.Calls(),
				Outcome: rec.Outcome(), Result: &step.Result,
			}
			return step.Result, rec.Report(), step.Err
		}
	}
}

// finish returns what a Recovery that has ended returns.
func finish(rec *reflection.Recovery) (reflection.ToolResult, reflection.Report, error) {
	done := rec.Next().(reflection.DoneStep)
	return done.Result, rec.Report(), done.Err
}

// runtime performs the steps of one call's Recovery in workflow code.
type runtime struct {
	ctx   workflow.Context
	cfg   *config
	rec   *reflection.Recovery
	state *callState
	key   string // the idempotency key
}

// callState is what the call's Query and Update see.
type callState struct {
	status   Status
	answered bool              // an answer to the current question was accepted
	answer   reflection.Answer // that answer
}

// register sets the call's Query and Update handlers.
func (rt *runtime) register() error {
	st, id := rt.state, rt.state.status.CallID
	err := workflow.SetQueryHandlerWithOptions(rt.ctx, QueryName(id),
		func() (Status, error) { return st.status, nil },
		workflow.QueryHandlerOptions{Description: "What tool call " + strconv.Quote(id) + " is doing"})
	if err != nil {
		return fmt.Errorf("reflectiontemporal: set the Query handler: %w", err)
	}
	err = workflow.SetUpdateHandlerWithOptions(rt.ctx, UpdateName(id), st.answerUpdate,
		workflow.UpdateHandlerOptions{
			Validator:   st.validateAnswer,
			Description: "Answer the question of tool call " + strconv.Quote(id),
		})
	if err != nil {
		return fmt.Errorf("reflectiontemporal: set the Update handler: %w", err)
	}
	return nil
}

// stopped reports whether the workflow has been cancelled, and then stops
// the machine.
func (rt *runtime) stopped() bool {
	err := rt.ctx.Err()
	if err == nil {
		return false
	}
	rt.rec.Stop(&stopError{cause: err})
	return true
}

// enter records that the call has moved to state.
func (rt *runtime) enter(state State, attempt int) {
	rt.state.status = Status{CallID: rt.state.status.CallID, State: state, Attempt: attempt, Calls: rt.rec.Calls()}
}

// dispatch runs one attempt as the tool activity and reports it.
func (rt *runtime) dispatch(step reflection.DispatchStep) {
	if rt.stopped() {
		return
	}
	rt.enter(StateDispatching, step.Attempt)
	opts := rt.cfg.tool
	if opts.Summary == "" {
		opts.Summary = fmt.Sprintf("%s (call %s, attempt %d)", step.Call.Name, rt.state.status.CallID, step.Attempt)
	}
	in := dispatchInput{Call: NewCall(step.Call), Attempt: step.Attempt, Key: rt.key}
	start := workflow.Now(rt.ctx).UTC()
	var out dispatchOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(rt.ctx, opts), DispatchActivity, in).Get(rt.ctx, &out)
	end := workflow.Now(rt.ctx).UTC()
	if err != nil {
		if rt.stopped() {
			return
		}
		out = dispatchOutput{Err: activityFailure(step.Call.Name, err, opts)}
	}
	rt.rec.DispatchedAt(out.Result, out.Err.Rebuild(), start, end)
	rt.stopped() // cancelled meanwhile: a failure is not analysed
}

// analyze asks the Reflector activity about the failure and reports its
// answer.
func (rt *runtime) analyze(step reflection.AnalyzeStep) {
	rt.enter(StateAnalyzing, step.Failure.Attempt)
	opts := rt.cfg.reflector
	if opts.Summary == "" {
		opts.Summary = fmt.Sprintf("analyse %s (call %s, attempt %d)", step.Failure.Tool, rt.state.status.CallID, step.Failure.Attempt)
	}
	var out analyzeOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(rt.ctx, opts), AnalyzeActivity, NewFailure(step.Failure)).Get(rt.ctx, &out)
	if rt.stopped() {
		return
	}
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

// wait runs the wait before the next attempt as a durable timer, which a
// cancel interrupts. A wait that would end past the run's timeout is
// refused at once, as Driver.Run refuses one past ctx's deadline.
func (rt *runtime) wait(step reflection.WaitStep) {
	if step.Delay > 0 {
		if rt.stopped() {
			return
		}
		now := workflow.Now(rt.ctx)
		if end, ok := rt.runEnd(); ok && !end.After(now.Add(step.Delay)) {
			rt.rec.Stop(&deadlineError{delay: step.Delay})
			return
		}
		rt.enter(StateWaiting, step.Attempt)
		rt.state.status.Wait = &WaitStatus{Delay: step.Delay, Hint: rt.rec.Hint(), Until: now.Add(step.Delay).UTC()}
		summary := fmt.Sprintf("wait before retrying call %s (attempt %d failed)", rt.state.status.CallID, step.Attempt)
		err := workflow.NewTimerWithOptions(rt.ctx, step.Delay, workflow.TimerOptions{Summary: summary}).Get(rt.ctx, nil)
		if err != nil {
			if !rt.stopped() {
				rt.rec.Stop(fmt.Errorf("reflectiontemporal: the wait failed: %w", err))
			}
			return
		}
	}
	rt.rec.Waited()
}

// runEnd returns when the workflow run times out, if it has a timeout.
func (rt *runtime) runEnd() (time.Time, bool) {
	info := workflow.GetInfo(rt.ctx)
	if info.WorkflowRunTimeout <= 0 {
		return time.Time{}, false
	}
	return info.WorkflowStartTime.Add(info.WorkflowRunTimeout), true
}

// ask shows the question through the Query and waits, durably and at most
// the ask timeout, for an answer sent as the Update.
func (rt *runtime) ask(step reflection.AskStep) {
	if rt.stopped() {
		return
	}
	timeout := rt.cfg.askTimeout
	if timeout <= 0 {
		rt.rec.Answered(reflection.Answer{}, errNoHuman)
		return
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

// stopError ends a call whose workflow was cancelled. It matches the
// workflow context's error (workflow.ErrCanceled) and context.Canceled.
type stopError struct{ cause error }

func (e *stopError) Error() string        { return "reflectiontemporal: call stopped: " + e.cause.Error() }
func (e *stopError) Unwrap() error        { return e.cause }
func (e *stopError) Is(target error) bool { return target == context.Canceled }

// deadlineError refuses a wait that would end past the run's timeout. It
// matches context.DeadlineExceeded.
type deadlineError struct{ delay time.Duration }

func (e *deadlineError) Error() string {
	return "reflectiontemporal: retry in " + e.delay.String() + " would end past the workflow run's timeout"
}
func (e *deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// askTimeoutError is the answer to a question nobody answered in time.
type askTimeoutError struct{ timeout time.Duration }

func (e *askTimeoutError) Error() string {
	return "reflectiontemporal: no answer within " + e.timeout.String()
}
