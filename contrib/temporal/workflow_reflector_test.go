package reflectiontemporal_test

import "testing"

// TestWorkflowReflectorMatchesDriver runs every scenario with the Reflector
// in workflow code (WithWorkflowReflector): Run must still return what
// Driver.RunWithReport returns, and the Reflector activity must never run.
func TestWorkflowReflectorMatchesDriver(t *testing.T) { matchDriver(t, true) }
