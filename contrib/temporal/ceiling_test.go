package reflectiontemporal_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// testCeilingAcrossRetries runs a call that is exhausted in a workflow with
// a RetryPolicy of three attempts, which returns Run's error how says: as
// it is (non-retryable: the workflow fails once), wrapped with %w or
// re-created as a plain error (both retryable: the policy runs the
// workflow three times). Whatever the workflow does, the tool runs six
// times in all: in the second and third runs the tool activity counts the
// six of the first run, and the call is refused before its tool runs.
func testCeilingAcrossRetries(t *testing.T, srv *testsuite.DevServer, how string) {
	c := srv.Client()
	policy := &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 3}
	st := startOnQueue(t, srv, "exhaust", client.StartWorkflowOptions{RetryPolicy: policy}, exhaustWorkflow, how)
	err := st.run.Get(st.ctx, nil)
	require.Error(t, err)
	executions := len(toolRuns(t, st.runs))
	runs := workflowRuns(st.ctx, t, c, st.id)
	t.Logf("observed: Run's error returned %s: %d tool executions over %d workflow runs under a RetryPolicy of 3 attempts",
		how, executions, len(runs))
	assert.Equal(t, reflection.MaxRecoveryAttempts+1, executions, "six executions in all")

	if how == returnAsIs {
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app)
		assert.True(t, app.NonRetryable())
		assert.Equal(t, rt.ErrorTypeExhausted, app.Type())
		assert.Len(t, runs, 1, "a non-retryable error: no second run")
		return
	}
	require.Len(t, runs, 3, "a retryable error: the policy ran the workflow three times")
	for _, run := range runs[1:] {
		assert.Equal(t, 0, dispatchesIn(st.ctx, t, c, st.id, run), "run %s ran the tool", run)
	}
	assert.ErrorContains(t, err, "already ran 6 times in earlier runs of the workflow")
}

// testCeilingAcrossReset runs a call that is exhausted, without a retry
// policy, then resets the workflow to the workflow task that completed
// after tools dispatches (0: the first workflow task) and lets the new run
// go. The new run replays the history up to the reset point and counts
// what the tool ran after it in the run it was reset from: the call still
// runs its tool six times in all, and the replay of the events before the
// reset point agrees with them.
func testCeilingAcrossReset(t *testing.T, srv *testsuite.DevServer, tools int) {
	c := srv.Client()
	st := startOnQueue(t, srv, "reset", client.StartWorkflowOptions{}, exhaustWorkflow, returnAsIs)
	require.Error(t, st.run.Get(st.ctx, nil))
	require.Len(t, toolRuns(t, st.runs), reflection.MaxRecoveryAttempts+1)

	point := resetPoint(st.ctx, t, c, st.id, st.run.GetRunID(), tools)
	resp, err := c.ResetWorkflowExecution(st.ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace:                 "default",
		WorkflowExecution:         &commonpb.WorkflowExecution{WorkflowId: st.id, RunId: st.run.GetRunID()},
		Reason:                    "the test runs the call again",
		WorkflowTaskFinishEventId: point,
		RequestId:                 fmt.Sprintf("reset-%d", time.Now().UnixNano()),
	})
	require.NoError(t, err)
	err = c.GetWorkflow(st.ctx, st.id, resp.GetRunId()).Get(st.ctx, nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "the reset run replays its history and ends")
	assert.Equal(t, rt.ErrorTypeExhausted, app.Type())
	executions := len(toolRuns(t, st.runs))
	t.Logf("observed: reset after %d tool activities (event %d): %d tool executions in all, %d in the new run",
		tools, point, executions, executions-(reflection.MaxRecoveryAttempts+1))
	assert.Equal(t, reflection.MaxRecoveryAttempts+1, executions, "six executions in all")
}

// resetPoint returns the ID of the WorkflowTaskCompleted event that follows
// the tools-th completion of a tool activity in the run (the first one for
// 0).
func resetPoint(ctx context.Context, t *testing.T, c client.Client, id, runID string, tools int) int64 {
	t.Helper()
	seen := 0
	for _, e := range fetchHistory(ctx, t, c, id, runID).Events {
		switch e.EventType {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			seen++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			if seen >= tools {
				return e.EventId
			}
		}
	}
	t.Fatalf("run %s has no workflow task after %d activities", runID, tools)
	return 0
}

// workflowRuns returns the run IDs of the workflow id, oldest first,
// following each run's retry link back from the latest.
func workflowRuns(ctx context.Context, t *testing.T, c client.Client, id string) []string {
	t.Helper()
	var runs []string
	run := ""
	for {
		hist := fetchHistory(ctx, t, c, id, run)
		if run == "" {
			desc, err := c.DescribeWorkflowExecution(ctx, id, "")
			require.NoError(t, err)
			run = desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		}
		runs = append([]string{run}, runs...)
		started := hist.Events[0].GetWorkflowExecutionStartedEventAttributes()
		if started.GetInitiator() != enumspb.CONTINUE_AS_NEW_INITIATOR_RETRY {
			return runs
		}
		run = started.GetContinuedExecutionRunId()
	}
}

// dispatchesIn counts the tool activities that ran the tool in a run: the
// ones that completed without saying the call was refused.
func dispatchesIn(ctx context.Context, t *testing.T, c client.Client, id, runID string) int {
	t.Helper()
	n := 0
	for _, e := range fetchHistory(ctx, t, c, id, runID).Events {
		if e.EventType != enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
			continue
		}
		payloads := e.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads()
		if len(payloads) == 1 && !strings.Contains(string(payloads[0].GetData()), `"spent":true`) {
			n++
		}
	}
	return n
}
