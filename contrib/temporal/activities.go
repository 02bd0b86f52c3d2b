package reflectiontemporal

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// The names under which Register registers the activities Run schedules.
const (
	// DispatchActivity runs one attempt of a tool call through the
	// DispatchFunc given to Register.
	DispatchActivity = "reflection.Dispatch"
	// AnalyzeActivity asks the Reflector given to Register about one failure.
	AnalyzeActivity = "reflection.Analyze"
	// VerifyActivity asks the verifier given to Register (WithWorkerVerifier)
	// whether a failed attempt acted.
	VerifyActivity = "reflection.Verify"
)

// errNilRegistry is returned by Register for a nil registry.
var errNilRegistry = errors.New("reflectiontemporal: nil activity registry")

// Register registers on reg (a worker.Worker, or a test environment) the
// activities Run schedules: DispatchActivity, which runs one attempt through
// dispatch (the host's own dispatch, routing by tool name), AnalyzeActivity,
// which asks reflector about a failure, and VerifyActivity, which asks the
// verifier of WithWorkerVerifier whether a failed attempt acted. A nil
// reflector means reflection.NoopReflector, as for a Driver; a nil dispatch
// is an error that matches reflection.ErrNilDispatch. opts put a circuit
// breaker (WithWorkerHealth) and a verifier on the worker.
//
// Register takes no Driver: it runs no call. The Driver of a call is built
// in workflow code and given to Run, where its settings decide; the tool and
// the Reflector run here, on the worker, where they may do I/O.
//
// Both activities return what the tool and the Reflector answered, errors
// included, as data; the activity itself fails only when Temporal cannot
// run it. The tool's context carries the call's idempotency key
// (reflection.IdempotencyKey: the workflow ID and the call ID, joined by
// "/", the same for every attempt) and CallAttempt, and is the activity's
// own (activity.RecordHeartbeat works with it); while the tool runs, the
// activity heartbeats for it when the activity has a HeartbeatTimeout (see
// WithToolActivity). A panic in dispatch is a failure whose error is
// reflection.ToolPanic's; one in the Reflector is a *reflection.PanicError,
// as under Driver.Run. Both must be safe for concurrent use: the worker runs
// activities in parallel.
func Register(reg worker.ActivityRegistry, dispatch reflection.DispatchFunc, reflector reflection.Reflector, opts ...RegisterOption) error {
	if reg == nil {
		return errNilRegistry
	}
	if dispatch == nil {
		return fmt.Errorf("reflectiontemporal: register: %w", reflection.ErrNilDispatch)
	}
	if reflector == nil {
		reflector = reflection.NoopReflector{}
	}
	a := &activities{dispatch: dispatch, reflector: reflector}
	for _, opt := range opts {
		if opt != nil {
			opt(a)
		}
	}
	a.earlier.fetch = a.history
	reg.RegisterActivityWithOptions(a.runTool, activity.RegisterOptions{Name: DispatchActivity})
	reg.RegisterActivityWithOptions(a.analyze, activity.RegisterOptions{Name: AnalyzeActivity})
	reg.RegisterActivityWithOptions(a.verify, activity.RegisterOptions{Name: VerifyActivity})
	return nil
}

// activities are the activity functions Register registers.
type activities struct {
	dispatch  reflection.DispatchFunc
	reflector reflection.Reflector
	breaker   *workerBreaker // WithWorkerHealth; nil: none
	verifier  func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error)
	earlier   earlierCounter // counts a call's executions in earlier runs (see earlier_runs.go)
}

// history reads a run's history with the worker's client.
func (a *activities) history(ctx context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
	return clientHistory(activity.GetClient(ctx))(ctx, workflowID, runID)
}

// dispatchInput is the input of DispatchActivity.
type dispatchInput struct {
	Call    Call          `json:"call"`
	Attempt int           `json:"attempt"`
	Key     string        `json:"key"`
	Wait    time.Duration `json:"wait,omitempty"` // to wait before the tool runs (version 2)
	// Lookback asks the activity to count the call's executions in the
	// workflow's earlier runs first (a run a retry or a reset made), and
	// not to run the tool when they and Calls, the dispatches of this run
	// so far, reach the ceiling.
	Lookback bool `json:"lookback,omitempty"`
	Calls    int  `json:"calls,omitempty"`
	// Counted says a failure of this tool earlier in the call has counted
	// on a worker's breaker already (see worker_breaker.go).
	Counted bool `json:"counted,omitempty"`
}

// waitErrorType is the type of the error with which the first try of a
// tool activity that must wait asks Temporal to retry it after the wait.
const waitErrorType = "reflection.Wait"

// dispatchOutput is the result of DispatchActivity: what dispatch returned.
type dispatchOutput struct {
	Result reflection.ToolResult `json:"result"`
	Err    *ErrorData            `json:"err,omitempty"`
	// Earlier is the call's executions in the earlier runs, when the input
	// asked for them; Spent says the tool did not run because they and the
	// run's own reached the ceiling.
	Earlier *int `json:"earlier,omitempty"`
	Spent   bool `json:"spent,omitempty"`
	// Refused says the worker's breaker is open: the tool did not run, and
	// RetryIn is how long the breaker stays open. Counted says the tool's
	// failure counted on the breaker.
	Refused bool          `json:"refused,omitempty"`
	RetryIn time.Duration `json:"retry_in,omitempty"`
	Counted bool          `json:"counted,omitempty"`
}

// runTool is DispatchActivity. When the workflow asks for a wait before the
// tool runs, the activity's first try only fails with a retryable error
// whose NextRetryDelay is the wait, and the retry Temporal schedules after
// it runs the tool: the wait is held by the server, durably, and the tool
// still runs once per activity. What the tool returns after the
// activity's deadline, the SDK drops: the workflow sees the activity time
// out (see activityFailure).
func (a *activities) runTool(ctx context.Context, in dispatchInput) (dispatchOutput, error) {
	if in.Wait > 0 && activity.GetInfo(ctx).Attempt <= 1 {
		return dispatchOutput{}, temporal.NewApplicationErrorWithOptions(
			"reflectiontemporal: waiting "+in.Wait.String()+" before attempt "+strconv.Itoa(in.Attempt)+" of the call",
			waitErrorType, temporal.ApplicationErrorOptions{
				NextRetryDelay: in.Wait,
				// Expected: the worker logs it at Debug, not as an error, and
				// its metrics do not count it as a failure.
				Category: temporal.ApplicationErrorCategoryBenign,
			})
	}
	ctx = reflection.ContextWithIdempotencyKey(ctx, in.Key)
	ctx = withCallAttempt(ctx, in.Attempt)
	stop := heartbeat(ctx)
	defer stop()
	call := in.Call.Rebuild()
	var out dispatchOutput
	if in.Lookback {
		wf := activity.GetInfo(ctx).WorkflowExecution
		n, err := a.earlier.count(ctx, wf.ID, wf.RunID, in.Call.ID)
		if err != nil {
			return dispatchOutput{Err: NewErrorData(&lookbackError{tool: call.Name, cause: err})}, nil
		}
		out.Earlier = &n
		if n+in.Calls >= reflection.MaxRecoveryAttempts+1 {
			out.Spent = true
			return out, nil
		}
	}
	if a.breaker != nil {
		b := a.breaker.run(ctx, a.dispatch, call, in.Counted)
		out.Refused, out.RetryIn, out.Counted = b.refused, b.retryIn, b.counted
		out.Result, out.Err = b.res, NewErrorData(b.err)
		return out, nil
	}
	res, err := callTool(ctx, a.dispatch, call)
	out.Result, out.Err = res, NewErrorData(err)
	return out, nil
}

// verifyInput is the input of VerifyActivity: the call whose failed attempt
// is in question, as it ran, and its idempotency key.
type verifyInput struct {
	Call Call   `json:"call"`
	Key  string `json:"key,omitempty"`
}

// verifyOutput is the result of VerifyActivity: the verifier's answer.
type verifyOutput struct {
	Verdict reflection.Verdict    `json:"verdict"`
	Result  reflection.ToolResult `json:"result"`
	Err     *ErrorData            `json:"err,omitempty"`
}

// errNoVerifier answers a verification on a worker without a verifier.
var errNoVerifier = errors.New("reflectiontemporal: the worker has no verifier (see WithWorkerVerifier)")

// verify is VerifyActivity. A panic in the verifier is an error, and the
// guard then asks, as under Driver.Run.
func (a *activities) verify(ctx context.Context, in verifyInput) (verifyOutput, error) {
	if a.verifier == nil {
		return verifyOutput{Err: NewErrorData(errNoVerifier)}, nil
	}
	if in.Key != "" {
		ctx = reflection.ContextWithIdempotencyKey(ctx, in.Key)
	}
	v, res, err := callVerifier(ctx, a.verifier, in.Call.Rebuild())
	return verifyOutput{Verdict: v, Result: res, Err: NewErrorData(err)}, nil
}

// callVerifier calls verify, turning a panic into the *reflection.PanicError
// Driver.Run makes of one.
func callVerifier(ctx context.Context, verify func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error),
	call reflection.ToolCall) (v reflection.Verdict, res reflection.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, res, err = reflection.VerdictUnknown, reflection.ToolResult{}, &reflection.PanicError{Where: "verifier", Value: p}
		}
	}()
	return verify(ctx, call)
}

// callTool calls dispatch, turning a panic into reflection.ToolPanic's
// error, as Driver.Run does.
func callTool(ctx context.Context, dispatch reflection.DispatchFunc, call reflection.ToolCall) (res reflection.ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = reflection.ToolResult{}, reflection.ToolPanic(call.Name, v)
		}
	}()
	return dispatch(ctx, call)
}

// analyzeOutput is the result of AnalyzeActivity: the Reflector's analysis
// or its error.
type analyzeOutput struct {
	Analysis *Analysis  `json:"analysis,omitempty"`
	Err      *ErrorData `json:"err,omitempty"`
}

// analyze is AnalyzeActivity.
func (a *activities) analyze(ctx context.Context, f Failure) (analyzeOutput, error) {
	an, err := callReflector(ctx, a.reflector, f.Rebuild())
	if err != nil {
		return analyzeOutput{Err: NewErrorData(err)}, nil
	}
	return analyzeOutput{Analysis: &Analysis{an}}, nil
}

// callReflector calls r, turning a panic into the *reflection.PanicError
// Driver.Run makes of one.
func callReflector(ctx context.Context, r reflection.Reflector, f reflection.Failure) (a reflection.FailureAnalysis, err error) {
	defer func() {
		if v := recover(); v != nil {
			a, err = reflection.FailureAnalysis{}, &reflection.PanicError{Where: "reflector", Value: v}
		}
	}()
	return r.Analyze(ctx, f)
}
