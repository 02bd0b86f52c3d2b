package reflection_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine behind: Run
// must never start one that outlives it, not even after a cancelled wait.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
