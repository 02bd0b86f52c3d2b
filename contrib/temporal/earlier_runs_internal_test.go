package reflectiontemporal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
)

// history builds the events of a run, numbered from 1.
type history struct{ events []*historypb.HistoryEvent }

func (h *history) add(e *historypb.HistoryEvent) int64 {
	e.EventId = int64(len(h.events) + 1)
	h.events = append(h.events, e)
	return e.EventId
}

func (h *history) started(retryOf string) {
	a := &historypb.WorkflowExecutionStartedEventAttributes{}
	if retryOf != "" {
		a.Initiator, a.ContinuedExecutionRunId = enumspb.CONTINUE_AS_NEW_INITIATOR_RETRY, retryOf
	}
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: a}})
}

func (h *history) other(n int) {
	for range n {
		h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED})
	}
}

func (h *history) reset(base string) {
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED,
		Attributes: &historypb.HistoryEvent_WorkflowTaskFailedEventAttributes{WorkflowTaskFailedEventAttributes: &historypb.WorkflowTaskFailedEventAttributes{
			Cause: enumspb.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW, BaseRunId: base}}})
}

// activity adds an activity of type kind with ID id that ran attempts
// attempts (the first of two a wait when wait) and completed with out.
func (h *history) activity(kind, id string, wait bool, attempts int32, out dispatchOutput) {
	policy := &commonpb.RetryPolicy{MaximumAttempts: 1}
	if wait {
		policy.MaximumAttempts = 2
	}
	sched := h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
		Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
			ActivityId: id, ActivityType: &commonpb.ActivityType{Name: kind}, RetryPolicy: policy}}})
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED,
		Attributes: &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{
			ScheduledEventId: sched, Attempt: attempts}}})
	p, err := converter.GetDefaultDataConverter().ToPayload(out)
	if err != nil {
		panic(err)
	}
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
		Attributes: &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{
			ScheduledEventId: sched, Result: &commonpb.Payloads{Payloads: []*commonpb.Payload{p}}}}})
}

// copyUpTo returns a history that holds the events of h before event k.
func (h *history) copyUpTo(k int64) *history {
	return &history{events: append([]*historypb.HistoryEvent(nil), h.events[:k-1]...)}
}

// TestEarlierExecutions counts a call's tool executions across a chain of
// runs: r0 ran the tool three times (one of them after a wait), r1 was
// reset from r0 after the first and ran it once more, r2 retried r1 and was
// refused (spent), r3 retries r2.
func TestEarlierExecutions(t *testing.T) {
	var r0 history
	r0.started("")
	r0.other(2)
	r0.activity(DispatchActivity, "c/0/tool/aa", false, 1, dispatchOutput{})
	resetAt := int64(len(r0.events) + 1)
	r0.activity(DispatchActivity, "c/1/tool/bb", true, 2, dispatchOutput{})           // a wait, then the tool
	r0.activity(DispatchActivity, "c/2/tool/cc", false, 1, dispatchOutput{})          // after the reset point too
	r0.activity(AnalyzeActivity, "c/2/reflect/dd", false, 1, dispatchOutput{})        // not a tool
	r0.activity(DispatchActivity, "d/x/0/tool/ee", false, 1, dispatchOutput{})        // another call, with a "/" in its ID
	r0.activity("other-activity", "c/3/tool/ff", false, 1, dispatchOutput{})          // not ours
	r0.activity(DispatchActivity, "c/3/tool/gg", true, 1, dispatchOutput{})           // cancelled during its wait
	r0.activity(DispatchActivity, "c-not-this/0/tool/hh", false, 1, dispatchOutput{}) // another call

	r1 := r0.copyUpTo(resetAt)
	r1.reset("r0")
	r1.activity(DispatchActivity, "c/1/tool/ii", false, 1, dispatchOutput{})

	var r2 history
	r2.started("r1")
	spent := 6
	r2.activity(DispatchActivity, "c/0/tool/jj", false, 1, dispatchOutput{Earlier: &spent, Spent: true})

	var r3 history
	r3.started("r2")

	runs := map[string]*history{"r0": &r0, "r1": r1, "r2": &r2, "r3": &r3}
	fetched := map[string]int{}
	counter := &earlierCounter{fetch: func(_ context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
		assert.Equal(t, "wf", workflowID)
		fetched[runID]++
		h, ok := runs[runID]
		if !ok {
			return nil, errors.New("no run " + runID)
		}
		return h.events, nil
	}}
	tests := []struct {
		run, call string
		want      int
	}{
		{"r0", "c", 0},   // no earlier run
		{"r1", "c", 2},   // r0's after the reset point: the wait's run and the third
		{"r2", "c", 4},   // r1's (the first one, copied from r0, and its own) and r0's two after the reset point
		{"r3", "c", 4},   // r2 ran nothing: it was spent
		{"r3", "d/x", 1}, // r0's run of the other call, after the reset point
		{"r3", "e", 0},
	}
	for _, tt := range tests {
		got, err := counter.count(context.Background(), "wf", tt.run, tt.call)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "call %q before run %s", tt.call, tt.run)
	}
	assert.Equal(t, 2, fetched["r0"], "r0 read as the current run once, and once as an earlier run: then kept")

	long := strings.Repeat("x", maxCallIDInActivityID+1)
	var r4, r5 history
	r4.started("")
	r4.activity(DispatchActivity, digestCallID(long)+"/0/tool/kk", false, 1, dispatchOutput{})
	r5.started("r4")
	runs["r4"], runs["r5"] = &r4, &r5
	got, err := counter.count(context.Background(), "wf", "r5", long)
	require.NoError(t, err)
	assert.Equal(t, 1, got, "a long call ID is named by its digest")

	_, err = counter.count(context.Background(), "wf", "r-missing", "c")
	assert.ErrorContains(t, err, "no run r-missing")
	var r6 history
	r6.started("r-missing")
	runs["r6"] = &r6
	_, err = counter.count(context.Background(), "wf", "r6", "c")
	assert.ErrorContains(t, err, "read the history of run r-missing")
}

func TestParseActivityID(t *testing.T) {
	tests := []struct {
		id, call, point string
		ok              bool
	}{
		{"call_1/2/tool/9f86d081884c7d65", "call_1", "tool", true},
		{"a/b/0/reflect/9f86d081884c7d65", "a/b", "reflect", true},
		{"5", "", "", false},
		{"call/x/tool/9f86", "", "", false},
	}
	for _, tt := range tests {
		call, point, ok := parseActivityID(tt.id)
		assert.Equal(t, tt.ok, ok, tt.id)
		assert.Equal(t, tt.call, call, tt.id)
		assert.Equal(t, tt.point, point, tt.id)
	}
}
