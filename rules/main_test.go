package rules_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind. The
// rules start none; the typed-error tests run real loopback connections.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
