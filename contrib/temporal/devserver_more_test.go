package reflectiontemporal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// testCrashDuringTool kills the worker while the tool runs. The tool
// activity heartbeats by itself, so the server notices the dead worker a
// heartbeat timeout later (DefaultToolHeartbeatTimeout), not at the end of
// the attempt's 5-minute timeout; the attempt fails as a timeout, and the
// retry runs in a new worker.
func testCrashDuringTool(t *testing.T, srv *testsuite.DevServer) {
	st := startOnQueue(t, srv, "tool", client.StartWorkflowOptions{}, toolWorkflow, hangCall)
	ctx, queue, runs, id, first, run := st.ctx, st.queue, st.runs, st.id, st.first, st.run

	awaitToolRuns(t, runs, 1) // the tool runs in the first worker
	first.kill()
	killed := time.Now()
	second := startWorker(t, srv, queue, runs)

	var out callOutput
	require.NoError(t, run.Get(ctx, &out))
	recovered := time.Since(killed)
	assert.Empty(t, out.Error)
	assert.Equal(t, reflection.ToolResult{ID: hangCall.ID, Content: "Q3 report ready"}, out.Result)
	reflectiontest.AssertOutcome(t, out.Report, reflection.OutcomeSucceeded)
	require.Len(t, out.Report.Attempts, 2)
	assert.Equal(t, `tool "slow_report" timed out: no heartbeat from its worker for 10s`, out.Report.Attempts[0].Failure)

	key := id + "/" + hangCall.ID
	assert.Equal(t, []string{
		fmt.Sprintf("%d slow_report %s 0", first.pid(), key),
		fmt.Sprintf("%d slow_report %s 1", second.pid(), key),
	}, toolRuns(t, runs), "the attempt the dead worker ran, and one retry")
	assert.Less(t, recovered, rt.DefaultToolHeartbeatTimeout+20*time.Second,
		"the dead worker was noticed by its missing heartbeats, not at the end of the 5-minute timeout")
	t.Logf("observed: worker killed during the tool; the call succeeded %s later (heartbeat timeout %s); "+
		"%d tool executions (%q)", recovered.Round(100*time.Millisecond), rt.DefaultToolHeartbeatTimeout,
		len(toolRuns(t, runs)), toolRuns(t, runs))
}

// testCancelDuringWait cancels a workflow while its call waits on a
// Retry-After hint, a wait the next tool activity holds as its retry
// delay: the server cancels the activity at once, and the tool never runs
// again, not even when the wait would have ended.
func testCancelDuringWait(t *testing.T, srv *testsuite.DevServer) {
	c := srv.Client()
	st := startOnQueue(t, srv, "cancel", client.StartWorkflowOptions{}, waitWorkflow, quoteCall)
	ctx, runs, id, run := st.ctx, st.runs, st.id, st.run

	waiting := awaitState(t, c, id, quoteCall.ID, rt.StateWaiting)
	require.NoError(t, c.CancelWorkflow(ctx, id, ""))
	var out callOutput
	require.NoError(t, run.Get(ctx, &out), "the test workflow returns the call's outcome")
	assert.Contains(t, out.Error, "canceled")
	reflectiontest.AssertOutcome(t, out.Report, reflection.OutcomeStopped)
	require.NotNil(t, out.Report.Attempts[0].Wait)
	assert.True(t, out.Report.Attempts[0].Wait.Stopped)

	time.Sleep(time.Until(waiting.Wait.Until) + 2*time.Second) // past the end of the wait
	assert.Len(t, toolRuns(t, runs), 1, "the retry never ran")
}

// testAnswerWithoutWorker answers a question while no worker runs: the
// Update waits for a worker, so SendAnswer returns only when its ctx ends,
// with an error that says so. The answer is not lost: the server hands it
// to the next worker, which takes it.
func testAnswerWithoutWorker(t *testing.T, srv *testsuite.DevServer) {
	c := srv.Client()
	st := startOnQueue(t, srv, "answer", client.StartWorkflowOptions{}, questionWorkflow, fileCall)
	ctx, queue, runs, id, first, run := st.ctx, st.queue, st.runs, st.id, st.first, st.run
	awaitState(t, c, id, fileCall.ID, rt.StateAsking)
	first.kill()

	bounded, stop := context.WithTimeout(ctx, 3*time.Second)
	defer stop()
	sent := time.Now()
	err := rt.SendAnswer(bounded, c, id, "", fileCall.ID, reflection.Answer{Approve: true, Input: humanFix})
	waited := time.Since(sent)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline"), "%v", err)
	assert.Contains(t, err.Error(), "no worker took the answer")
	assert.Less(t, waited, 6*time.Second, "SendAnswer returned when its ctx ended")

	second := startWorker(t, srv, queue, runs)
	var out callOutput
	require.NoError(t, run.Get(ctx, &out))
	reflectiontest.AssertOutcome(t, out.Report, reflection.OutcomeSucceeded)
	assert.Equal(t, &reflection.Answer{Approve: true, Input: humanFix}, out.Report.Attempts[0].Ask.Answer,
		"the answer sent while no worker ran was taken by the next one")
	key := id + "/" + fileCall.ID
	assert.Equal(t, []string{
		fmt.Sprintf("%d read_file %s 0", first.pid(), key),
		fmt.Sprintf("%d read_file %s 1", second.pid(), key),
	}, toolRuns(t, runs))
	t.Logf("observed: SendAnswer with no worker returned after %s (its ctx's 3s) with %q; the next worker took the answer",
		waited.Round(100*time.Millisecond), err)
}

// testSameCallTwice runs one call ID twice in a row in a workflow, the
// second Run starting in the workflow task that ends the first: the two
// calls' activities must not share an ID.
func testSameCallTwice(t *testing.T, srv *testsuite.DevServer) {
	call := reflection.ToolCall{ID: "call_0", Name: "flaky", Input: []byte(`{"failures":0}`)}
	st := startOnQueue(t, srv, "twice", client.StartWorkflowOptions{}, twiceWorkflow, call)
	ctx, runs, run := st.ctx, st.runs, st.run
	var outs []callOutput
	require.NoError(t, run.Get(ctx, &outs))
	require.Len(t, outs, 2)
	for _, out := range outs {
		assert.Empty(t, out.Error)
		assert.Equal(t, reflection.ToolResult{ID: "call_0", Content: "ok after 0 retries"}, out.Result)
	}
	assert.Len(t, toolRuns(t, runs), 2)
}

// onQueue is a workflow started on a task queue of the test's own, with a
// worker process serving the queue.
type onQueue struct {
	ctx   context.Context // ends two minutes after the start, or with the test
	queue string          // the task queue, named after the test
	runs  string          // the tool log of the queue's workers, for toolRuns
	id    string          // the workflow ID: the prefix and the clock
	first *workerProcess  // the worker started with the workflow
	run   client.WorkflowRun
}

// startOnQueue starts a worker on a task queue named after t, then the
// workflow wf(args...) on that queue, with opts as given but for its ID
// (prefix and the clock) and task queue.
func startOnQueue(t *testing.T, srv *testsuite.DevServer, prefix string, opts client.StartWorkflowOptions, wf any, args ...any) onQueue {
	t.Helper()
	q := onQueue{queue: queueName(t), runs: filepath.Join(t.TempDir(), "tool.log")}
	q.first = startWorker(t, srv, q.queue, q.runs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	q.ctx, q.id = ctx, fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	opts.ID, opts.TaskQueue = q.id, q.queue
	run, err := srv.Client().ExecuteWorkflow(ctx, opts, wf, args...)
	require.NoError(t, err)
	q.run = run
	return q
}

// queueName is a task queue of the test's own.
func queueName(t *testing.T) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
}

// awaitToolRuns polls the tool log until it has n lines.
func awaitToolRuns(t *testing.T, name string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(name); err == nil && strings.Count(string(b), "\n") >= n {
			return
		}
		time.Sleep(100 * time.Millisecond) // an integration test polls a real server
	}
	t.Fatalf("the tool log %s never had %d lines", name, n)
}
