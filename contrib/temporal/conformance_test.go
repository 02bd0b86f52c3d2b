package reflectiontemporal_test

import (
	"context"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestConformance runs the generated scenarios of reflectiontest's suite
// through Run, in the SDK's test environment, and checks every rule of
// recovery against the same model Driver.Run is checked against. What a
// workflow cannot do as a Go program does is declared: no synctest bubble
// (the environment has its own clock), a cancel of the workflow's own
// only where it lands where the ctx's does under Driver.Run (while the
// tool runs, while the Reflector activity runs, while a human is asked:
// the strategy runs in workflow code, where a cancel only arrives at the
// next step), no Observer (workflow code calls none), and what crosses an
// activity must survive JSON. A human answers through the Update, as a
// host would.
func TestConformance(t *testing.T) {
	reflectiontest.Conformance(t, runInWorkflow,
		reflectiontest.WithoutBubble(),
		reflectiontest.CancelAt(reflectiontest.CancelInDispatch, reflectiontest.CancelInReflector, reflectiontest.CancelInAsker),
		reflectiontest.WithoutObserver(), reflectiontest.OverJSON(), reflectiontest.Scenarios(300))
}

// runInWorkflow runs one scenario's call through Run in a workflow of its
// own: the tool, the Reflector and the verifier as the registered
// activities, the run timeout from the scenario's deadline, and the
// scenario's human answering each question by Update once the analysis
// (or the verification) before it has completed. When the scenario
// cancels (the ctx ends while the tool, the Reflector or the human
// works), the workflow is cancelled: by the workflow code itself as soon
// as the activity's result is in (an interceptor of the activities'
// futures), or instead of the human's answer.
func runInWorkflow(cancel context.Context, t *testing.T, s *reflectiontest.Scenario) reflectiontest.Ran {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := suite.NewTestWorkflowEnvironment()
	var cancelWorkflow workflow.CancelFunc
	env.SetWorkerOptions(worker.Options{
		DeadlockDetectionTimeout: deadlockTimeout,
		Interceptors: []interceptor.WorkerInterceptor{&afterActivity{then: func() {
			if cancel.Err() != nil && cancelWorkflow != nil {
				cancelWorkflow()
			}
		}}},
	})
	env.SetTestTimeout(30 * time.Second)
	if d, ok := s.Deadline(); ok {
		env.SetWorkflowRunTimeout(d)
	}
	// The scenario's verifier, when it has one, is the worker's: the
	// Driver's only turns verification on.
	if err := rt.Register(env, s.Dispatch, s.Reflector(), rt.WithWorkerVerifier(s.Driver().RuntimeOptions().Verifier)); err != nil {
		t.Fatal(err)
	}
	opts := []rt.Option{rt.WithTask(s.Task)}
	if asker := s.Asker(); asker != nil {
		opts = append(opts, rt.WithAsk(10*time.Microsecond))
		answered := map[int]bool{}
		env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
			if info.ActivityType.Name != rt.AnalyzeActivity && info.ActivityType.Name != rt.VerifyActivity {
				return // a question follows an analysis, or a verification that could not tell
			}
			env.RegisterDelayedCallback(func() {
				v, err := env.QueryWorkflow(rt.QueryName(s.Call.ID))
				if err != nil {
					return
				}
				var st rt.Status
				if v.Get(&st) != nil || st.State != rt.StateAsking || st.Ask == nil || answered[st.Attempt] {
					return
				}
				answered[st.Attempt] = true
				ans, err := askSafely(asker, st.Ask.Question.Rebuild())
				if cancel.Err() != nil {
					env.CancelWorkflow() // the human's answer came after the cancel: unused
					return
				}
				if err != nil {
					return // nobody answers: the question times out
				}
				env.UpdateWorkflow(rt.UpdateName(s.Call.ID), "", &testsuite.TestUpdateCallback{
					OnAccept: func() {}, OnReject: func(error) {}, OnComplete: func(any, error) {},
				}, ans)
			}, time.Microsecond)
		})
	}
	var res reflection.ToolResult
	var rep reflection.Report
	var err error
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx, cancelWorkflow = workflow.WithCancel(ctx)
		res, rep, err = rt.Run(ctx, s.Driver(), s.Call, opts...)
		return nil
	}, workflow.RegisterOptions{Name: "one-call"})
	env.ExecuteWorkflow("one-call")
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("the workflow did not complete: %v", env.GetWorkflowError())
	}
	var waited time.Duration
	for _, a := range rep.Attempts {
		if a.Wait != nil && !a.Wait.Stopped {
			waited += a.Wait.Delay
		}
	}
	return reflectiontest.Ran{Result: res, Err: err, Report: &rep, Elapsed: waited}
}

// afterActivity is a worker interceptor that calls then in workflow code
// each time the workflow has read an activity's result: where a test
// cancels the workflow exactly after the tool or the Reflector returned.
type afterActivity struct {
	interceptor.WorkerInterceptorBase
	then func()
}

func (a *afterActivity) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &afterActivityInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, then: a.then}
}

type afterActivityInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	then func()
}

func (i *afterActivityInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&afterActivityOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, then: i.then})
}

type afterActivityOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	then func()
}

func (o *afterActivityOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return thenFuture{Future: o.Next.ExecuteActivity(ctx, activityType, args...), then: o.then}
}

// thenFuture is an activity's future whose Get calls then once the result
// is read.
type thenFuture struct {
	workflow.Future
	then func()
}

func (f thenFuture) Get(ctx workflow.Context, valuePtr any) error {
	err := f.Future.Get(ctx, valuePtr)
	f.then()
	return err
}

// askSafely asks the scenario's human, turning a panic into an error: that
// human then does not answer, and the question times out.
func askSafely(a reflection.Asker, q reflection.Question) (ans reflection.Answer, err error) {
	defer func() {
		if v := recover(); v != nil {
			ans, err = reflection.Answer{}, &reflection.PanicError{Where: "asker", Value: v}
		}
	}()
	return a.Ask(context.Background(), q)
}
