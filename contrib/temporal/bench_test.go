package reflectiontemporal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// benchFailure is a failure as a Reflector activity receives it.
var benchFailure = reflection.Failure{
	Error:       "get quote: 429 too many requests (retry after 30s)",
	Tool:        "fetch_quote",
	Input:       json.RawMessage(`{"symbol":"TMPRL","currency":"USD"}`),
	Task:        "write the morning brief",
	Attempt:     1,
	MaxAttempts: 6,
	Err:         fmt.Errorf("get quote: %w", rateLimited{after: 30 * time.Second}),
}

// BenchmarkErrorData measures an error's trip: recorded as data, encoded,
// decoded and rebuilt.
func BenchmarkErrorData(b *testing.B) {
	err := &os.PathError{Op: "open", Path: "/srv/report.txt", Err: os.ErrPermission}
	b.ReportAllocs()
	for b.Loop() {
		d := rt.NewErrorData(err)
		buf, _ := json.Marshal(d)
		var back rt.ErrorData
		_ = json.Unmarshal(buf, &back)
		_ = back.Rebuild()
	}
}

// BenchmarkFailureRoundTrip measures what the wire form adds to an
// analysis: the failure to the Reflector activity and the analysis back,
// as the JSON payload converter encodes them.
func BenchmarkFailureRoundTrip(b *testing.B) {
	a := rt.Analysis{FailureAnalysis: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "rate limited",
		Severity: reflection.SeverityLow, RetryAfter: 30 * time.Second}}
	b.ReportAllocs()
	for b.Loop() {
		buf, _ := json.Marshal(rt.NewFailure(benchFailure))
		var f rt.Failure
		_ = json.Unmarshal(buf, &f)
		_ = f.Rebuild()
		buf, _ = json.Marshal(a)
		var back rt.Analysis
		_ = json.Unmarshal(buf, &back)
	}
}

// BenchmarkRunInTestEnvironment measures one call that fails once and is
// retried after a 100ms durable timer, in the SDK's test environment (its
// clock skips the wait): the cost of the runtime plus that of the test
// environment, for scale.
func BenchmarkRunInTestEnvironment(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var suite testsuite.WorkflowTestSuite
		suite.SetLogger(quietLogger())
		env := newTestEnv(&suite)
		tool := reflectiontest.NewTool(reflectiontest.Fail("busy"), reflectiontest.Succeed("ok"))
		if err := rt.Register(env, tool.Dispatch, reflectiontest.NewReflector(recoverable("busy"))); err != nil {
			b.Fatal(err)
		}
		env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
			_, _, err := rt.Run(ctx, nil, readCall)
			return err
		}, workflow.RegisterOptions{Name: "bench"})
		env.ExecuteWorkflow("bench")
		if err := env.GetWorkflowError(); err != nil {
			b.Fatal(err)
		}
	}
}
