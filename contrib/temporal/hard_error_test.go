package reflectiontemporal_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// requireHardError checks that err is what Run returns for a hard end: a
// non-retryable application error of type typ whose cause reads cause.
func requireHardError(t *testing.T, err error, typ, cause string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable(), "a workflow RetryPolicy must not run the call's recovery again")
	assert.Equal(t, typ, app.Type())
	require.Error(t, errors.Unwrap(err))
	assert.Equal(t, cause, errors.Unwrap(err).Error())
}

// TestExhaustionFailsTheWorkflowForGood returns Run's exhaustion error from
// the workflow as it is: the workflow fails with a non-retryable
// application error that still matches the root package's error.
func TestExhaustionFailsTheWorkflowForGood(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Fail("still down"))
	var analyses []reflection.FailureAnalysis
	for range reflection.MaxRecoveryAttempts + 1 {
		analyses = append(analyses, recoverable("down"))
	}
	h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(analyses...))
	driver := reflection.NewDriver(reflection.WithStrategy(alwaysRetry{}))
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		_, _, err := rt.Run(ctx, driver, readCall)
		return err
	}, workflow.RegisterOptions{Name: "exhaust"})
	h.env.ExecuteWorkflow("exhaust")

	require.True(t, h.env.IsWorkflowCompleted())
	err := h.env.GetWorkflowError()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable())
	assert.Equal(t, rt.ErrorTypeExhausted, app.Type())
	assert.Len(t, tool.Calls(), reflection.MaxRecoveryAttempts+1)
}

// TestNoDispatchActivityStopsTheCall: a worker without the tool activity
// is Driver.Run's nil dispatch: the call stops at once, and the error
// matches reflection.ErrNilDispatch.
func TestNoDispatchActivityStopsTheCall(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := newTestEnv(&suite)
	env.RegisterActivityWithOptions(func(context.Context) error { return nil },
		activity.RegisterOptions{Name: "some.other.activity"})
	var got ran
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		got.res, got.rep, got.err = rt.Run(ctx, nil, readCall)
		return nil
	}, workflow.RegisterOptions{Name: "no-dispatch"})
	env.ExecuteWorkflow("no-dispatch")
	require.NoError(t, env.GetWorkflowError())

	require.ErrorIs(t, got.err, reflection.ErrNilDispatch)
	var app *temporal.ApplicationError
	require.ErrorAs(t, got.err, &app)
	assert.Equal(t, rt.ErrorTypeStopped, app.Type())
	assert.True(t, app.NonRetryable())
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Equal(t, reflection.ReasonNilDispatch, got.rep.Reason, "as Driver.Run's nil dispatch")
	assert.Empty(t, got.rep.Attempts, "no attempt ran")
}
