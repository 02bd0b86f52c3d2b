package reflectiontemporal_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind. Run
// again with the worker environment (see startWorker), the test binary is a
// worker process of the dev-server tests instead; with envServe, the guard
// of their dev server (see devServerMain).
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envWorkerHostPort) != "":
		os.Exit(workerMain())
	case os.Getenv(envServe) != "":
		os.Exit(devServerMain())
	}
	goleak.VerifyTestMain(m,
		// The SDK's test environment holds an activity that was cancelled
		// during its retry delay (a wait, here) on a goroutine until the
		// delay's callback fires, which it never does once the workflow has
		// completed. A real server cancels such an activity at once.
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).executeActivityWithRetryForTest"),
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).ExecuteActivity.func2"),
	)
}
