package reflectiontemporal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestRetryAfterSetsTheTimer checks that a hint set inside the tool (an
// error with a RetryAfter method) crosses to the workflow and sets the
// durable timer: the next attempt starts that long after, on the
// workflow's clock, and the Query shows the wait meanwhile.
func TestRetryAfterSetsTheTimer(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Error(rateLimited{after: 45 * time.Second}), reflectiontest.Succeed("ok"))
	refl := reflectiontest.NewReflector(recoverable("rate limited"))
	h := newHarness(t, tool.Dispatch, refl)
	var waiting rt.Status
	h.at(10*time.Second, func() { waiting = h.query(readCall.ID) })
	got := h.run(nil, readCall)

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
	require.Len(t, got.rep.Attempts, 2)
	first, second := got.rep.Attempts[0], got.rep.Attempts[1]
	assert.Equal(t, &reflection.Wait{Delay: 45 * time.Second, Hint: 45 * time.Second}, first.Wait,
		"the hint beat the strategy's 100ms")
	assert.Equal(t, 45*time.Second, second.Start.Sub(first.End), "the timer held the retry back")
	assert.Equal(t, h.start, first.Start, "the report reads the workflow's clock")

	assert.Equal(t, rt.StateWaiting, waiting.State)
	assert.Equal(t, 0, waiting.Attempt)
	assert.Equal(t, 1, waiting.Calls)
	assert.Equal(t, &rt.WaitStatus{Delay: 45 * time.Second, Hint: 45 * time.Second, Until: h.start.Add(45 * time.Second)}, waiting.Wait)

	// The Reflector, in its activity, saw the hint and the status on the
	// rebuilt error.
	failures := refl.Failures()
	require.Len(t, failures, 1)
	var hinted interface{ RetryAfter() time.Duration }
	require.ErrorAs(t, failures[0].Err, &hinted)
	assert.Equal(t, 45*time.Second, hinted.RetryAfter())
	var coded interface{ StatusCode() int }
	require.ErrorAs(t, failures[0].Err, &coded)
	assert.Equal(t, 429, coded.StatusCode())
	assert.Equal(t, readCall.Input, failures[0].Input)
}

// TestWaitPastRunTimeoutIsRefused checks the deadline refusal: a wait that
// would end after the workflow run times out stops the call at once, with
// reflection.WaitPastDeadline's error.
func TestWaitPastRunTimeoutIsRefused(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Error(rateLimited{after: 50 * time.Second}), reflectiontest.Succeed("ok"))
	h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(recoverable("rate limited")))
	h.env.SetWorkflowRunTimeout(30 * time.Second)
	got := h.run(nil, readCall)

	require.ErrorIs(t, got.err, context.DeadlineExceeded)
	requireHardError(t, got.err, rt.ErrorTypeDeadline, "reflection: retry in 50s would end past the context deadline: context deadline exceeded")
	assert.Equal(t, reflection.ReasonDeadline, got.rep.Reason)
	require.NotNil(t, got.rep.Attempts[0].Wait)
	assert.True(t, got.rep.Attempts[0].Wait.Stopped, "the report says the wait was refused")
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: "429 too many requests (retry after 50s)", IsError: true}, got.res)
	assert.Len(t, tool.Calls(), 1)
}

func TestCancelDuringWait(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Error(rateLimited{after: time.Minute}), reflectiontest.Succeed("ok"))
	h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(recoverable("rate limited")))
	h.at(20*time.Second, h.env.CancelWorkflow)
	got := h.run(nil, readCall)

	require.ErrorIs(t, got.err, workflow.ErrCanceled)
	require.ErrorIs(t, got.err, context.Canceled)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Equal(t, reflection.ReasonCanceled, got.rep.Reason)
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: "429 too many requests (retry after 1m0s)", IsError: true}, got.res)
	assert.Len(t, tool.Calls(), 1, "the retry never ran")
	assert.Equal(t, h.start.Add(20*time.Second), h.env.Now().UTC(), "the cancel cut the wait short")
	require.NotNil(t, got.rep.Attempts[0].Wait)
	assert.True(t, got.rep.Attempts[0].Wait.Stopped, "the report says the wait was cut short, as Driver.Run's does")
	var canceled *temporal.CanceledError
	assert.ErrorAs(t, got.err, &canceled, "a cancel is returned as it is: the workflow that returns it ends canceled")
}

func TestCancelDuringQuestion(t *testing.T) {
	h, tool, _ := askingHarness(t, reflectiontest.Succeed("contents"))
	h.at(time.Minute, h.env.CancelWorkflow)
	got := h.run(nil, readCall, rt.WithAsk(time.Hour))

	require.ErrorIs(t, got.err, workflow.ErrCanceled)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Len(t, tool.Calls(), 1)
}

// TestCancelDuringActivity cancels the workflow while the tool runs: Run
// does not wait for the tool (the default WaitForCancellation is false)
// and stops with the cancel; the failure is not analysed.
func TestCancelDuringActivity(t *testing.T) {
	release := make(chan struct{})
	var env interface{ CancelWorkflow() }
	var calls sync.WaitGroup
	tool := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		env.CancelWorkflow() // the workflow is cancelled while this call runs
		<-release
		return reflection.ToolResult{}, errors.New("interrupted")
	}
	refl := reflectiontest.NewReflector(recoverable("should not be asked"))
	h := newHarness(t, func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		calls.Add(1)
		defer calls.Done()
		return tool(ctx, call)
	}, refl)
	env = h.env
	got := h.run(nil, readCall)
	close(release)
	calls.Wait()

	require.ErrorIs(t, got.err, workflow.ErrCanceled)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Empty(t, got.rep.Attempts, "the attempt never reported back")
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: got.err.Error(), IsError: true}, got.res)
	assert.Empty(t, refl.Failures())
}

// TestCancelDuringAnalysis cancels the workflow while the Reflector
// activity runs: its answer never comes, so none is reported, and the call
// stops with the cancel (ReasonCanceled), as Driver.Run stops once its ctx
// has ended whatever the Reflector said.
func TestCancelDuringAnalysis(t *testing.T) {
	release := make(chan struct{})
	var env interface{ CancelWorkflow() }
	var running sync.WaitGroup
	refl := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		running.Add(1)
		defer running.Done()
		env.CancelWorkflow()
		<-release
		return recoverable("too late"), nil
	})
	tool := reflectiontest.NewTool(reflectiontest.Fail("busy"), reflectiontest.Succeed("ok"))
	h := newHarness(t, tool.Dispatch, refl)
	env = h.env
	got := h.run(nil, readCall)
	close(release)
	running.Wait()

	require.ErrorIs(t, got.err, workflow.ErrCanceled)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeStopped)
	assert.Equal(t, reflection.ReasonCanceled, got.rep.Reason)
	require.Len(t, got.rep.Attempts, 1)
	assert.Nil(t, got.rep.Attempts[0].Analysis, "no answer came")
	assert.Empty(t, got.rep.Attempts[0].ReflectorError)
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: "busy", IsError: true}, got.res)
	assert.Len(t, tool.Calls(), 1)
}
