package agent_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	reflectiontemporal "github.com/loopctl-go/reflection/contrib/temporal"
	"github.com/loopctl-go/reflection/examples/temporal/agent"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestAgent runs the example's turn in the SDK's test environment: the
// weather call waits out its Retry-After, the report call asks a human, who
// approves the public copy.
func TestAgent(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := suite.NewTestWorkflowEnvironment()
	// The SDK's deadlock detector fails a workflow task whose code has not
	// yielded after a second of wall time. On a loaded machine (the tests
	// of several modules at once on two cores) the workflow's goroutine can
	// wait that long for a CPU: with six busy loops beside it, this test
	// failed 2 runs of 40 with the default second (the detector's panic,
	// then a race inside the SDK as it tore the workflow down), and passed
	// 40 of 40 with a minute. The workflow's own code yields within
	// milliseconds.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	if err := agent.Register(env); err != nil {
		t.Fatal(err)
	}
	var asked reflectiontemporal.Status
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(reflectiontemporal.QueryName("call_report"))
		if err != nil {
			t.Errorf("query: %v", err)
			return
		}
		if err := v.Get(&asked); err != nil {
			t.Errorf("decode: %v", err)
		}
		env.UpdateWorkflow(reflectiontemporal.UpdateName("call_report"), "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("answer rejected: %v", err) },
		}, reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/public/sales.txt"}`)})
	}, time.Minute)
	env.ExecuteWorkflow(agent.WorkflowName, agent.ExampleTurn())
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var results []agent.Result
	if err := env.GetWorkflowResult(&results); err != nil {
		t.Fatal(err)
	}
	want := []agent.Result{
		{CallID: "call_weather", Content: "Lisbon: 17°C, light rain", Outcome: "succeeded", Attempts: 2},
		{CallID: "call_report", Content: "Q3 sales: 1,204 units (public summary)", Outcome: "succeeded", Attempts: 2},
	}
	if len(results) != len(want) {
		t.Fatalf("results = %+v, want %+v", results, want)
	}
	for i := range want {
		// Recovery notes follow a corrected success: compare the output.
		if results[i].CallID != want[i].CallID || results[i].Outcome != want[i].Outcome ||
			results[i].Attempts != want[i].Attempts || !startsWith(results[i].Content, want[i].Content) {
			t.Errorf("result %d = %+v, want %+v", i, results[i], want[i])
		}
	}
	if asked.State != reflectiontemporal.StateAsking || asked.Ask == nil {
		t.Fatalf("status at the question = %+v", asked)
	}
	if q := asked.Ask.Question.Rebuild(); q.Analysis.Correction == nil || q.Analysis.Correction.Guidance == "" {
		t.Errorf("question = %+v, want the Reflector's guidance", q)
	}
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
