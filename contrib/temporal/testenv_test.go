package reflectiontemporal_test

import (
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// deadlockTimeout is the deadlock detector's limit in the tests' workflow
// environments, replayers and workers. The SDK fails a workflow task whose
// code runs a second without yielding; on a loaded machine (the tests of
// several modules at once on two cores, beside a dev server) a goroutine
// can be held off the CPU that long, so the default makes a test depend on
// an idle machine. Run's workflow code yields within milliseconds (see
// BenchmarkRun); a minute still catches a loop that never yields.
const deadlockTimeout = time.Minute

// newTestEnv returns a workflow test environment of suite with the tests'
// deadlock limit.
func newTestEnv(suite *testsuite.WorkflowTestSuite) *testsuite.TestWorkflowEnvironment {
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: deadlockTimeout})
	return env
}

// newReplayer returns a workflow replayer without the deadlock detector
// (the replayer has no other setting of it): a replay that never yields
// runs into the test binary's timeout instead.
func newReplayer() worker.WorkflowReplayer {
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DisableDeadlockDetection: true})
	if err != nil {
		panic(err) // the options are fixed: this cannot happen
	}
	return r
}
