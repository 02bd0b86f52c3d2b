package reflectiontemporal

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Run runs call with recovery inside a workflow, following the rules of
// reflection.Recovery exactly as d.Run does: the tool runs as the
// DispatchActivity (one tool execution per activity); the Reflector runs in
// workflow code when d's is the rules package's (or with
// WithWorkflowReflector), else as the AnalyzeActivity (its answer is
// recorded in history, so a replay never asks it again); a verification is
// the VerifyActivity; a wait is durable (the delay of the next tool
// activity's retry, held by the server); and, with WithAsk, AskUser waits
// for a human's answer sent as an Update. Register the activities on the
// worker with Register.
//
// d's settings run in workflow code and must be deterministic (see the
// package documentation): its strategy, schema lookup, tool-change filter,
// input check, effect func, caps, recovery notes, loop guard and a
// *rules.Reflector (given the workflow's clock). Its attempt timeout
// becomes the tool activity's StartToCloseTimeout when WithToolActivity
// sets no timeout. Its other Reflector, Asker, Observer, logger, redactor
// and Health are not called (Run says so in a warning through
// workflow.GetLogger: the breaker is the worker's, WithWorkerHealth); a d
// given WithRetryBudget or WithLoopDetection is refused (ErrProcessState).
// A nil d means reflection.NewDriver().
//
// It returns what d.Run returns (the result and the error) and the call's
// Report. The error is nil but for three cases, each of which ends the
// workflow for good when the workflow returns it as it is: the workflow was
// cancelled (the error matches workflow.ErrCanceled and context.Canceled,
// and the workflow then ends canceled); a wait would end past the workflow
// run's timeout (a non-retryable *temporal.ApplicationError of type
// ErrorTypeDeadline that wraps a *reflection.WaitPastDeadlineError); the
// sixth call failed and the strategy still said Retry, in this run or
// counting the earlier runs of a workflow retried or reset (type
// ErrorTypeExhausted, wrapping a *reflection.ToolRecoveryExhaustedError).
// The call may also stop when it cannot go on (type ErrorTypeStopped).
// Whatever the workflow does with the error (returns it, wraps it, makes a
// new one of its text), a workflow RetryPolicy or a reset never runs the
// call's tool more than six times in all (see the package documentation,
// Errors).
//
// While it runs, the Query named QueryName(call.ID) returns its Status, and
// the Update named UpdateName(call.ID) answers its question. Several calls
// may run at once in one workflow (workflow.Go), as long as their IDs
// differ. A nil ctx ends the call at once with an error.
func Run(ctx workflow.Context, d *reflection.Driver, call reflection.ToolCall, opts ...Option) (reflection.ToolResult, reflection.Report, error) {
	cfg := newConfig(d, opts)
	stratCtx := reflection.ContextWithTask(context.Background(), cfg.task)
	rec := d.NewRecovery(stratCtx, call)
	stop := errNilContext
	if ctx != nil {
		stop = cfg.runtime.refusal()
	}
	if stop != nil {
		// Before anything reaches the history: a replay ends here too.
		rec.Stop(stop)
		done := rec.Next().(reflection.DoneStep)
		return done.Result, rec.Report(), hardError(done.Err)
	}
	if cfg.askTimeout > 0 {
		rec.EnableAsk()
	}
	if r, ok := cfg.inWorkflow.(*rules.Reflector); ok {
		// The one clock the rules read, the workflow's: a replay decides alike.
		cfg.inWorkflow = r.WithClock(func() time.Time { return workflow.Now(ctx) })
	}
	rt := &runtime{
		ctx:      ctx,
		cfg:      &cfg,
		rec:      rec,
		call:     call,
		stratCtx: stratCtx,
		state:    &callState{rec: rec, status: Status{CallID: call.ID, State: StateDispatching}},
		key:      workflow.GetInfo(ctx).WorkflowExecution.ID + "/" + call.ID,
	}
	rt.v2 = workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, stepsV2) >= stepsV2
	rt.began = workflow.Now(ctx)
	rt.earlier = -1
	if info := workflow.GetInfo(ctx); rt.v2 && (info.Attempt > 1 || info.OriginalRunID != "" && info.OriginalRunID != info.WorkflowExecution.RunID) {
		rt.lookback = true // a retry or a reset made this run (see earlier_runs.go)
	}
	rt.warnIgnored()
	if err := rt.register(); err != nil {
		rec.Stop(err)
	}
	rt.recall()
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
		case reflection.VerifyStep:
			rt.verify(step)
		case reflection.DoneStep:
			return rt.done(step)
		}
	}
}

// runtime performs the steps of one call's Recovery in workflow code.
type runtime struct {
	ctx      workflow.Context
	cfg      *config
	rec      *reflection.Recovery
	call     reflection.ToolCall // as the model made it
	stratCtx context.Context     // what the strategy and an in-workflow Reflector receive
	state    *callState
	key      string    // the idempotency key
	v2       bool      // the history records version 2 of the steps (see version.go)
	began    time.Time // when Run began, on the workflow's clock

	inWorkflow   workflow.Version // the in-workflow Reflector's version; 0 until asked
	pendingWait  time.Duration    // v2: the wait the next tool activity takes before the tool runs
	waitCutShort bool             // v2: the call stopped during such a wait

	lookback bool        // a retry or a reset made this run: count the call's earlier executions
	earlier  int         // the call's executions in the earlier runs; -1 until counted
	spent    *spentError // the call was refused: its tool has run the ceiling's number of times across runs

	counted map[string]bool // the tools whose worker breaker a failure of this call has counted on

	// For the effect memory (WithEffectMemory).
	recalled  bool                 // the memory remembered an earlier call equal to this one
	ambiguous *reflection.ToolCall // the latest dispatch that failed after its tool may have acted, as it ran
	effect    reflection.Effect    // the effect of the call's own tool, as its first failure told
}

// callState is what the call's Query and Update see.
type callState struct {
	rec      *reflection.Recovery // the validator asks it whether an answer would be used
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

// done ends the call: it shows the result through the Query, checks the
// decisions where no activity follows them (version 2), and returns what
// Run returns.
func (rt *runtime) done(step reflection.DoneStep) (reflection.ToolResult, reflection.Report, error) {
	rep := rt.rec.Report()
	if rt.waitCutShort && len(rep.Attempts) > 0 {
		if w := rep.Attempts[len(rep.Attempts)-1].Wait; w != nil {
			w.Stopped = true // the cancel came during the wait the tool activity held
		}
	}
	if rt.v2 && rt.neededRecovery(&rep) {
		rt.checkDecisions(&rep, pointEnd)
	}
	rt.settleMemory(rep.Outcome)
	rt.state.status = Status{
		CallID: rt.state.status.CallID, State: StateDone, Attempt: rt.rec.Attempt(), Calls: rt.rec.Calls(),
		Outcome: rep.Outcome, Result: &step.Result,
	}
	if rt.spent != nil && step.Err == nil {
		return step.Result, rep, temporal.NewNonRetryableApplicationError("reflectiontemporal: recovery exhausted", ErrorTypeExhausted, rt.spent)
	}
	return step.Result, rep, hardError(step.Err)
}

// neededRecovery reports whether the end of the call rests on a decision
// that no activity ID covers: anything but a success whose result is the
// output of the call as the model made it.
func (rt *runtime) neededRecovery(rep *reflection.Report) bool {
	if rep.Outcome != reflection.OutcomeSucceeded || len(rep.Attempts) == 0 {
		return true
	}
	last := rep.Attempts[len(rep.Attempts)-1]
	return rep.Result.Content != last.Result.Content ||
		last.Call.Name != rt.call.Name || !bytes.Equal(last.Call.Input, rt.call.Input)
}
