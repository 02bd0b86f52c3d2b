package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	reflectiontemporal "github.com/loopctl-go/reflection/contrib/temporal"
)

// A workflow runs each tool call of the model through Run; the worker
// registers the tool and the Reflector as activities. Here the SDK's test
// environment stands in for the worker and the server.
func ExampleRun() {
	// Worker side: the host's own dispatch, and a Reflector.
	attempts := 0
	dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		attempts++
		if attempts == 1 {
			return reflection.ToolResult{}, rateLimited{after: 2 * time.Second}
		}
		return reflection.ToolResult{Content: "EUR/USD 1.08"}, nil
	}
	reflector := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		var hinted interface{ RetryAfter() time.Duration }
		transient := errors.As(f.Err, &hinted) // the tool's error, rebuilt in the activity
		return reflection.FailureAnalysis{IsRecoverable: transient, RootCause: f.Error, Severity: reflection.SeverityLow}, nil
	})

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute}) // a test on a loaded machine
	if err := reflectiontemporal.Register(env, dispatch, reflector); err != nil {
		fmt.Println(err)
		return
	}

	// Workflow side: the strategy runs here, so its jitter draws from the
	// workflow's deterministic random stream.
	agent := func(ctx workflow.Context, call reflection.ToolCall) (string, error) {
		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.2).WithRandSource(reflectiontemporal.RandSource(ctx))
		driver := reflection.NewDriver(reflection.WithStrategy(backoff))
		res, rep, err := reflectiontemporal.Run(ctx, driver, call, reflectiontemporal.WithTask("convert the invoice total"))
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s after %d attempts, waited %s: %s",
			rep.Outcome, len(rep.Attempts), rep.Attempts[0].Wait.Delay, res.Content), nil
	}
	env.RegisterWorkflowWithOptions(agent, workflow.RegisterOptions{Name: "agent"})
	env.ExecuteWorkflow("agent", reflection.ToolCall{ID: "call_1", Name: "fx_rate", Input: json.RawMessage(`{"pair":"EURUSD"}`)})

	var out string
	if err := env.GetWorkflowResult(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output:
	// succeeded after 2 attempts, waited 2s: EUR/USD 1.08
}

// With WithAsk, an AskUser decision waits for a human: the Query shows the
// question and the Update carries the answer (a client uses QueryStatus
// and SendAnswer).
func ExampleWithAsk() {
	attempts := 0
	dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		attempts++
		if attempts == 1 {
			return reflection.ToolResult{}, &os.PathError{Op: "open", Path: "/srv/report.txt", Err: os.ErrPermission}
		}
		return reflection.ToolResult{Content: "read " + string(call.Input)}, nil
	}
	reflector := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "no access to the private report", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "use the public copy"},
		}, nil
	})

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute}) // a test on a loaded machine
	if err := reflectiontemporal.Register(env, dispatch, reflector); err != nil {
		fmt.Println(err)
		return
	}
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, call reflection.ToolCall) (string, error) {
		res, _, err := reflectiontemporal.Run(ctx, nil, call, reflectiontemporal.WithAsk(24*time.Hour))
		return res.Content, err
	}, workflow.RegisterOptions{Name: "agent"})

	// A human looks at the question an hour later and approves a retry
	// with an input of their own.
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(reflectiontemporal.QueryName("call_1"))
		if err != nil {
			fmt.Println(err)
			return
		}
		var status reflectiontemporal.Status
		if err := v.Get(&status); err != nil {
			fmt.Println(err)
			return
		}
		q := status.Ask.Question.Rebuild()
		fmt.Println("asked:", q.Prompt)
		fmt.Println("permission error:", errors.Is(q.Failure.Err, os.ErrPermission))
		env.UpdateWorkflow(reflectiontemporal.UpdateName("call_1"), "", &testsuite.TestUpdateCallback{},
			reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/srv/public/report.txt"}`)})
	}, time.Hour)
	env.ExecuteWorkflow("agent", reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"/srv/report.txt"}`)})

	var out string
	if err := env.GetWorkflowResult(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output:
	// asked: high-severity failure with correction available: no access to the private report
	// permission error: true
	// read {"path":"/srv/public/report.txt"}
}

// An error crosses Temporal as data; the other side rebuilds an error that
// answers the typed checks a Reflector makes.
func ExampleNewErrorData() {
	err := fmt.Errorf("fetch quote: %w", &os.PathError{Op: "open", Path: "/run/key", Err: os.ErrPermission})
	data := reflectiontemporal.NewErrorData(err)
	b, _ := json.Marshal(data)
	fmt.Println(string(b))

	rebuilt := data.Rebuild()
	fmt.Println(rebuilt)
	fmt.Println(errors.Is(rebuilt, os.ErrPermission))
	// Output:
	// {"text":"fetch quote: open /run/key: permission denied","is":["permission"]}
	// fetch quote: open /run/key: permission denied
	// true
}
