package reflectiontemporal_test

import (
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

func TestRegisterRejectsNil(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	assert.EqualError(t, rt.Register(nil, tool.Dispatch, nil), "reflectiontemporal: nil activity registry")

	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	err := rt.Register(env, nil, nil)
	assert.ErrorIs(t, err, reflection.ErrNilDispatch, "the root's sentinel, as for Driver.Run")
	assert.EqualError(t, err, "reflectiontemporal: register: reflection: nil dispatch func")
}

// TestRegisterDefaultsToNoopReflector checks that a nil Reflector means
// NoopReflector, as for a Driver: a failure is not retried.
func TestRegisterDefaultsToNoopReflector(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Fail("boom"), reflectiontest.Succeed("ok"))
	h := newHarness(t, tool.Dispatch, nil)
	got := h.run(nil, readCall)

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeFailed)
	assert.Len(t, tool.Calls(), 1)
}

func TestRunWithoutContext(t *testing.T) {
	res, rep, err := rt.Run(nil, nil, readCall)
	requireHardError(t, err, rt.ErrorTypeStopped, "reflectiontemporal: nil workflow context")
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: "reflectiontemporal: nil workflow context", IsError: true}, res)
	reflectiontest.AssertOutcome(t, rep, reflection.OutcomeStopped)
	assert.Empty(t, rep.Attempts)
}
