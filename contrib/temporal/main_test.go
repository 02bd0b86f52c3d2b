package reflectiontemporal_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind. Run
// again with the worker environment (see startWorker), the test binary is a
// worker process of the dev-server tests instead.
func TestMain(m *testing.M) {
	if os.Getenv(envWorkerHostPort) != "" {
		os.Exit(workerMain())
	}
	goleak.VerifyTestMain(m)
}
