package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestSeveralCallsAtOnce runs three calls in one workflow with workflow.Go:
// two ask a question each and one waits on a Retry-After. Each call has its
// own Query and Update, and an answer reaches only the call it names.
func TestSeveralCallsAtOnce(t *testing.T) {
	var mu sync.Mutex
	attempts := map[string]int{}
	tool := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		mu.Lock()
		n := attempts[call.ID]
		attempts[call.ID]++
		mu.Unlock()
		switch {
		case n > 0:
			return reflection.ToolResult{Content: call.Name + " ran with " + string(call.Input)}, nil
		case call.ID == "c_wait":
			return reflection.ToolResult{}, rateLimited{after: 20 * time.Second}
		}
		return reflection.ToolResult{}, &os.PathError{Op: "open", Path: call.Name, Err: os.ErrPermission}
	}
	refl := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		if f.Tool == "quote" {
			return recoverable("rate limited"), nil
		}
		return permissionDenied, nil
	})
	h := newHarness(t, tool, refl)
	calls := []reflection.ToolCall{
		{ID: "c_one", Name: "read_one", Input: json.RawMessage(`{"n":1}`)},
		{ID: "c_two", Name: "read_two", Input: json.RawMessage(`{"n":2}`)},
		{ID: "c_wait", Name: "quote", Input: json.RawMessage(`{"n":3}`)},
	}
	got := make([]ran, len(calls))
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		wg := workflow.NewWaitGroup(ctx)
		for i, call := range calls {
			wg.Add(1)
			workflow.Go(ctx, func(ctx workflow.Context) {
				defer wg.Done()
				got[i].res, got[i].rep, got[i].err = rt.Run(ctx, nil, call, rt.WithAsk(time.Hour))
			})
		}
		wg.Wait(ctx)
		return nil
	}, workflow.RegisterOptions{Name: "three-calls"})

	statuses := map[string]rt.Status{}
	var answers []*update
	h.at(10*time.Second, func() {
		for _, c := range calls {
			statuses[c.ID] = h.query(c.ID)
		}
		answers = append(answers,
			h.answer("c_two", reflection.Answer{Approve: true, Input: json.RawMessage(`{"n":22}`)}),
			h.answer("c_wait", reflection.Answer{Approve: true}), // waiting, not asking
		)
	})
	h.at(time.Minute, func() {
		answers = append(answers, h.answer("c_one", reflection.Answer{Reply: "not this one"}))
	})
	h.env.ExecuteWorkflow("three-calls")
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())

	assert.Equal(t, rt.StateAsking, statuses["c_one"].State)
	assert.Equal(t, rt.StateAsking, statuses["c_two"].State)
	assert.Equal(t, rt.StateWaiting, statuses["c_wait"].State)
	assert.Equal(t, calls[0], statuses["c_one"].Ask.Question.Rebuild().Call, "each Query shows its own call's question")
	assert.Equal(t, calls[1], statuses["c_two"].Ask.Question.Rebuild().Call)

	require.Len(t, answers, 3)
	assert.NoError(t, answers[0].err())
	assert.ErrorContains(t, answers[1].err(), rt.ErrNoQuestion.Error())
	assert.NoError(t, answers[2].err())

	for _, g := range got {
		require.NoError(t, g.err)
	}
	reflectiontest.AssertOutcome(t, got[0].rep, reflection.OutcomeAskedUser)
	assert.Contains(t, got[0].res.Content, "not this one")
	reflectiontest.AssertOutcome(t, got[1].rep, reflection.OutcomeSucceeded)
	assert.Equal(t, reflection.ToolResult{ID: "c_two", Content: `read_two ran with {"n":22}`}, got[1].res)
	reflectiontest.AssertOutcome(t, got[2].rep, reflection.OutcomeSucceeded)
	assert.Equal(t, &reflection.Wait{Delay: 20 * time.Second, Hint: 20 * time.Second}, got[2].rep.Attempts[0].Wait)
}

// TestIdempotencyKeyAndAttempt checks what the tool learns from its
// context: the same key (workflow ID and call ID) on every attempt, read
// with reflection.IdempotencyKey as under Driver.Run, and the call's
// attempt number, with CallAttempt. Temporal's own attempt of the activity
// says something else: a retry that waited (the default backoff waits)
// is the second attempt of its activity, the first one being the wait.
func TestIdempotencyKeyAndAttempt(t *testing.T) {
	type seen struct {
		key      string
		attempt  int
		activity int32 // activity.GetInfo(ctx).Attempt
	}
	var mu sync.Mutex
	var got []seen
	tool := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		key := reflection.IdempotencyKey(ctx)
		attempt, ok := rt.CallAttempt(ctx)
		assert.True(t, ok)
		mu.Lock()
		got = append(got, seen{key, attempt, activity.GetInfo(ctx).Attempt})
		mu.Unlock()
		if attempt < 2 {
			return reflection.ToolResult{Content: "busy", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "done"}, nil
	}
	h := newHarness(t, tool, reflectiontest.NewReflector(recoverable("busy"), recoverable("busy")))
	h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-1234"})
	out := h.run(nil, readCall)

	require.NoError(t, out.err)
	want := "order-1234/" + readCall.ID
	assert.Equal(t, []seen{{want, 0, 1}, {want, 1, 2}, {want, 2, 2}}, got)

	assert.Empty(t, reflection.IdempotencyKey(context.Background()), "no key outside the tool activity")
	_, ok := rt.CallAttempt(context.Background())
	assert.False(t, ok)
}
