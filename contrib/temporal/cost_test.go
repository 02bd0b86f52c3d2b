package reflectiontemporal_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
)

// cost is what one workflow run wrote to history and what Temporal Cloud
// bills for it.
type cost struct {
	events  int
	actions int
}

// cloudActions counts the Temporal Cloud actions a history records, by the
// rules of Temporal Cloud's documentation (Temporal Cloud Actions): the
// workflow's start; each activity attempt (started or retried: the attempt
// number of its last ActivityTaskStarted); each timer started; each side
// effect recorded; each Update accepted; each signal; each search
// attribute upsert but the TemporalChangeVersion one that
// workflow.GetVersion makes. A Version marker is not listed as an action
// (an older list counted it). Heartbeats and queries leave no event: the
// calls measured here send none (their tools return within half the
// heartbeat timeout) and make no query.
func cloudActions(t *testing.T, hist *historypb.History) int {
	t.Helper()
	n := 0
	attempts := map[int64]int32{} // scheduled event ID -> attempts
	for _, e := range hist.Events {
		switch e.EventType {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
			enumspb.EVENT_TYPE_TIMER_STARTED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			n++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			attempts[e.EventId] = 1
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := e.GetActivityTaskStartedEventAttributes()
			attempts[a.ScheduledEventId] = max(attempts[a.ScheduledEventId], a.Attempt)
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if e.GetMarkerRecordedEventAttributes().MarkerName != "Version" {
				n++
			}
		case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
			fields := e.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
			if _, ok := fields["TemporalChangeVersion"]; !ok || len(fields) > 1 {
				n++
			}
		}
	}
	for _, a := range attempts {
		n += int(a)
	}
	return n
}

// costOf returns what the run id wrote to history.
func costOf(ctx context.Context, t *testing.T, c client.Client, id string) cost {
	t.Helper()
	hist := fetchHistory(ctx, t, c, id, "")
	return cost{events: len(hist.Events), actions: cloudActions(t, hist)}
}

// testCost measures, on the dev server, the events, actions and heartbeats
// of one call that succeeds at once, after one retry and after three: with
// the first release's steps (a worker that records version 1: "before"),
// with the Reflector as an activity, with the stock set-up (the Driver's
// Reflector is the rules package's, which runs in workflow code), and with
// the stock set-up and no waits; and, beside them, one activity whose
// RetryPolicy retries it as often. A last row is one call whose tool runs
// long enough to heartbeat. The numbers are the README's table: a change
// to them is a change of what a call costs.
func testCost(t *testing.T, srv *testsuite.DevServer) {
	c := srv.Client()
	base := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	before, after, slow := base+"-v1", base+"-v2", base+"-slow"
	runs := filepath.Join(t.TempDir(), "tool.log")
	beats := map[string]string{}
	for _, q := range []string{before, after, slow} {
		beats[q] = filepath.Join(t.TempDir(), "heartbeats.log")
	}
	startWorker(t, srv, before, runs, envWorkerSteps+"=1", envWorkerHeartbeats+"="+beats[before])
	startWorker(t, srv, after, runs, envWorkerHeartbeats+"="+beats[after])
	startWorker(t, srv, slow, runs, envWorkerHeartbeats+"="+beats[slow])

	type column struct {
		name  string
		queue string
		input func(failures int) (string, any)
	}
	call := func(in costInput) func(int) (string, any) {
		return func(failures int) (string, any) {
			in.Failures = failures
			return costWorkflow, in
		}
	}
	columns := []column{
		{"before: the first release (steps version 1)", before, call(costInput{})},
		{"the Reflector as an activity (`Register`'s)", after, call(costInput{})},
		{"the stock set-up: the Driver's `rules` Reflector, in workflow code", after, call(costInput{Rules: true})},
		{"the stock set-up, a strategy without waits", after, call(costInput{Rules: true, NoWait: true})},
		{"beside them: one activity with a `RetryPolicy`", after, func(failures int) (string, any) { return plainWorkflow, failures }},
	}
	retries := []int{0, 1, 3}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(queue, wf string, arg any) (string, client.WorkflowRun) {
		id := fmt.Sprintf("cost-%s-%d", queue, time.Now().UnixNano())
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, wf, arg)
		require.NoError(t, err)
		return id, run
	}
	slowID, slowRun := start(slow, costWorkflow, costInput{Tool: "slow_beat", Rules: true})
	ids := make([][]string, len(columns))
	runsOf := make([][]client.WorkflowRun, len(columns))
	for i, col := range columns {
		for _, n := range retries {
			wf, arg := col.input(n)
			id, run := start(col.queue, wf, arg)
			ids[i] = append(ids[i], id)
			runsOf[i] = append(runsOf[i], run)
		}
	}
	got := make([][]cost, len(columns))
	for i := range columns {
		for j, run := range runsOf[i] {
			require.NoError(t, run.Get(ctx, nil), "%s, %d retries", columns[i].name, retries[j])
			got[i] = append(got[i], costOf(ctx, t, c, ids[i][j]))
		}
	}
	require.NoError(t, slowRun.Get(ctx, nil))
	slowCost := costOf(ctx, t, c, slowID)
	slowBeats := countLines(t, beats[slow])
	quickBeats := countLines(t, beats[before]) + countLines(t, beats[after])

	var table strings.Builder
	table.WriteString("| one call | success at once | one retry | three retries | per retry |\n| --- | --- | --- | --- | --- |\n")
	for i, col := range columns {
		g := got[i]
		fmt.Fprintf(&table, "| %s | %d / %d / 0 | %d / %d / 0 | %d / %d / 0 | %s |\n", col.name,
			g[0].events, g[0].actions, g[1].events, g[1].actions, g[2].events, g[2].actions,
			perRetry(g[1], g[2]))
	}
	fmt.Fprintf(&table, "| the stock set-up, a tool that runs %s | %d / %d / %d | | | |\n",
		slowBeat, slowCost.events, slowCost.actions, slowBeats)
	t.Logf("events / actions / heartbeats, measured on the dev server:\n%s", table.String())

	want := [][]cost{
		{{13, 2}, {30, 5}, {64, 11}}, // the measurement of the first release
		{{13, 2}, {25, 5}, {49, 11}},
		{{13, 2}, {21, 4}, {33, 8}},
		{{13, 2}, {21, 3}, {33, 5}},
		{{11, 2}, {11, 3}, {11, 5}},
	}
	for i, col := range columns {
		if !assert.Equal(t, want[i], got[i], col.name) {
			for j := range ids[i] {
				t.Logf("%s, %d retries: %s", col.name, retries[j], eventTypes(ctx, t, c, ids[i][j]))
			}
		}
	}
	assert.Equal(t, 0, quickBeats, "tools that return within half the heartbeat timeout send no heartbeat")
	assert.Equal(t, cost{13, 2}, slowCost, "a heartbeat leaves no event, and the history bills none")
	assert.Equal(t, 1, slowBeats, "a 12s tool: the heartbeat at 5s is sent, the one at 10s held back past the end")
}

// countLines returns the number of lines of the file name; 0 when it does
// not exist.
func countLines(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

// eventTypes lists the types of the events of the run id, for a failure's
// message.
func eventTypes(ctx context.Context, t *testing.T, c client.Client, id string) string {
	t.Helper()
	var types []string
	for _, e := range fetchHistory(ctx, t, c, id, "").Events {
		types = append(types, strings.TrimPrefix(e.EventType.String(), "EVENT_TYPE_"))
	}
	return strings.Join(types, " ")
}

// perRetry is what a retry adds: the difference between three retries and
// one, halved.
func perRetry(one, three cost) string {
	return fmt.Sprintf("+%d / +%d / +0", (three.events-one.events)/2, (three.actions-one.actions)/2)
}
