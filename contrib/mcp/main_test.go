package reflectionmcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: neither
// the adapter nor a closed MCP session may keep one running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
