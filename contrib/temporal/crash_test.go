package reflectiontemporal_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// updateHistory makes TestDevServer write the history it records over the
// committed one (historyFile).
var updateHistory = flag.Bool("update-history", false, "write the history recorded on the dev server to "+historyFile)

// The committed histories of historyWorkflow, recorded on the dev server.
const (
	historyV1File = "testdata/history-v1.json" // with version 1 of Run's steps
	historyFile   = "testdata/history-v2.json" // with version 2, today's
)

// TestDevServer runs calls on a real Temporal server, the CLI's dev
// server, one for the whole test, with workers in child processes that
// are killed (SIGKILL) in the middle of a call: the call must go on in a
// new worker, with no tool execution lost or repeated. It also measures
// what calls cost (see testCost), and what a RetryPolicy, a cancel and an
// answer sent while no worker runs do. The subtests run in parallel, each
// on its own task queue.
func TestDevServer(t *testing.T) {
	srv := startDevServer(t)
	c := srv.Client()

	t.Run("events and actions per retry", func(t *testing.T) {
		t.Parallel()
		testCost(t, srv)
	})
	t.Run("a worker killed during the tool", func(t *testing.T) {
		t.Parallel()
		testCrashDuringTool(t, srv)
	})
	for _, how := range []string{returnAsIs, returnWrapped, returnRecreate} {
		t.Run("a RetryPolicy does not run the recovery again: Run's error returned "+how, func(t *testing.T) {
			t.Parallel()
			testCeilingAcrossRetries(t, srv, how)
		})
	}
	for _, tools := range []int{0, 3} {
		t.Run(fmt.Sprintf("a reset after %d tool activities does not run the recovery again", tools), func(t *testing.T) {
			t.Parallel()
			testCeilingAcrossReset(t, srv, tools)
		})
	}
	t.Run("a cancel during a wait runs no tool", func(t *testing.T) {
		t.Parallel()
		testCancelDuringWait(t, srv)
	})
	t.Run("an answer sent while no worker runs", func(t *testing.T) {
		t.Parallel()
		testAnswerWithoutWorker(t, srv)
	})
	t.Run("the same call ID twice in a row", func(t *testing.T) {
		t.Parallel()
		testSameCallTwice(t, srv)
	})

	t.Run("a worker killed during a Retry-After wait", func(t *testing.T) {
		t.Parallel()
		st := startOnQueue(t, srv, "wait", client.StartWorkflowOptions{}, waitWorkflow, quoteCall)
		ctx, queue, runs, id, first, run := st.ctx, st.queue, st.runs, st.id, st.first, st.run

		waiting := awaitState(t, c, id, quoteCall.ID, rt.StateWaiting)
		first.kill() // mid-wait: the wait is on the server now
		require.NotNil(t, waiting.Wait)
		assert.Equal(t, 5*time.Second, waiting.Wait.Delay)
		assert.Equal(t, 5*time.Second, waiting.Wait.Hint)
		second := startWorker(t, srv, queue, runs)

		var out callOutput
		require.NoError(t, run.Get(ctx, &out))
		assert.Empty(t, out.Error)
		assert.Equal(t, reflection.ToolResult{ID: quoteCall.ID, Content: "TMPRL 42.00"}, out.Result)
		reflectiontest.AssertOutcome(t, out.Report, reflection.OutcomeSucceeded)
		require.Len(t, out.Report.Attempts, 2)
		assert.Equal(t, &reflection.Wait{Delay: 5 * time.Second, Hint: 5 * time.Second}, out.Report.Attempts[0].Wait)
		gap := out.Report.Attempts[1].Start.Sub(out.Report.Attempts[0].End)
		assert.GreaterOrEqual(t, gap, 5*time.Second, "the retry ran before the wait ended")

		key := id + "/" + quoteCall.ID
		assert.Equal(t, []string{
			fmt.Sprintf("%d fetch_quote %s 0", first.pid(), key),
			fmt.Sprintf("%d fetch_quote %s 1", second.pid(), key),
		}, toolRuns(t, runs), "one execution per attempt, the retry in the new worker")
		t.Logf("observed: %d tool executions (%q), wait %s (hint %s), workflow clock gap %s, result %q",
			len(toolRuns(t, runs)), toolRuns(t, runs), out.Report.Attempts[0].Wait.Delay, out.Report.Attempts[0].Wait.Hint,
			gap, out.Result.Content)
	})

	t.Run("a worker killed while a question waits", func(t *testing.T) {
		t.Parallel()
		st := startOnQueue(t, srv, "question", client.StartWorkflowOptions{}, questionWorkflow, fileCall)
		ctx, queue, runs, id, first, run := st.ctx, st.queue, st.runs, st.id, st.first, st.run

		awaitState(t, c, id, fileCall.ID, rt.StateAsking)
		first.kill()
		second := startWorker(t, srv, queue, runs)

		// The new worker rebuilds the call from history: the question is
		// still there, and decodes into the question the machine asked.
		asking := awaitState(t, c, id, fileCall.ID, rt.StateAsking)
		require.NotNil(t, asking.Ask)
		q := asking.Ask.Question.Rebuild()
		assert.Equal(t, fileCall, q.Call)
		assert.Equal(t, permissionDenied, q.Analysis)
		assert.Equal(t, askPrompt, q.Prompt)
		assert.ErrorIs(t, q.Failure.Err, os.ErrPermission)
		assert.EqualError(t, q.Failure.Err, "open /srv/report.txt: permission denied")

		err := rt.SendAnswer(ctx, c, id, "", fileCall.ID, reflection.Answer{Approve: true, Input: []byte(`["/srv/public/report.txt"]`)})
		assert.ErrorContains(t, err, reflection.ErrAnswerInput.Error(), "the validator rejects an input that is not an object")
		err = rt.SendAnswer(ctx, c, id, "", fileCall.ID, reflection.Answer{Approve: true, Input: []byte(`{"path":"/a","Path":"/b"}`)})
		assert.ErrorContains(t, err, "duplicate keys", "the validator rejects an input the machine would drop")
		err = rt.SendAnswer(ctx, c, id, "", "call_other", reflection.Answer{Approve: true})
		assert.Error(t, err, "no call has that ID")
		require.NoError(t, rt.SendAnswer(ctx, c, id, "", fileCall.ID, reflection.Answer{Approve: true, Input: humanFix}))

		var out callOutput
		require.NoError(t, run.Get(ctx, &out))
		assert.Empty(t, out.Error)
		assert.Equal(t, reflection.ToolResult{ID: fileCall.ID, Content: "report for " + string(humanFix)}, out.Result)
		reflectiontest.AssertOutcome(t, out.Report, reflection.OutcomeSucceeded)
		require.Len(t, out.Report.Attempts, 2)
		assert.Equal(t, &reflection.Answer{Approve: true, Input: humanFix}, out.Report.Attempts[0].Ask.Answer)

		key := id + "/" + fileCall.ID
		assert.Equal(t, []string{
			fmt.Sprintf("%d read_file %s 0", first.pid(), key),
			fmt.Sprintf("%d read_file %s 1", second.pid(), key),
		}, toolRuns(t, runs))
		t.Logf("observed: %d tool executions (%q), answered after the restart, result %q",
			len(toolRuns(t, runs)), toolRuns(t, runs), out.Result.Content)
	})

	t.Run("an attempt that times out is retried under the same key", func(t *testing.T) {
		t.Parallel()
		st := startOnQueue(t, srv, "timeout", client.StartWorkflowOptions{}, timeoutWorkflow, slowCall)
		ctx, runs, id, run := st.ctx, st.runs, st.id, st.run

		var out callOutput
		require.NoError(t, run.Get(ctx, &out))
		key := id + "/" + slowCall.ID
		assert.Equal(t, reflection.ToolResult{ID: slowCall.ID, Content: "charge " + key + " already made; nothing charged twice"}, out.Result)
		require.Len(t, out.Report.Attempts, 2)
		assert.Equal(t, `tool "charge_card" timed out after 1s`, out.Report.Attempts[0].Failure)
		runsSeen := toolRuns(t, runs)
		require.Len(t, runsSeen, 2, "the attempt whose completion was lost ran once (Temporal did not retry it), and so did the retry")
		assert.Contains(t, runsSeen[0], key+" 0")
		assert.Contains(t, runsSeen[1], key+" 1")
	})

	t.Run("a history with corrections, a wait and an approval replays", func(t *testing.T) {
		t.Parallel()
		st := startOnQueue(t, srv, "history", client.StartWorkflowOptions{}, historyWorkflow, "find how Temporal keeps a retry's wait")
		ctx, runs, id, run := st.ctx, st.runs, st.id, st.run

		awaitState(t, c, id, "call_search", rt.StateAsking)
		require.NoError(t, rt.SendAnswer(ctx, c, id, "", "call_search", reflection.Answer{Approve: true, Input: scopeFix}))
		var outs []callOutput
		require.NoError(t, run.Get(ctx, &outs))
		require.Len(t, outs, 2)
		search, fetch := outs[0], outs[1]
		reflectiontest.AssertOutcome(t, search.Report, reflection.OutcomeSucceeded)
		reflectiontest.AssertOutcome(t, fetch.Report, reflection.OutcomeSucceeded)
		require.Len(t, search.Report.Attempts, 3)
		assert.Equal(t, 2*time.Second, search.Report.Attempts[0].Wait.Hint)
		assert.True(t, search.Report.Attempts[0].Corrections[0].Applied, "the InputFix applied")
		assert.True(t, search.Report.Attempts[1].Corrections[0].Human, "the human's input applied")
		assert.JSONEq(t, string(scopeFix), string(search.Report.Attempts[2].Call.Input))
		assert.Contains(t, search.Result.Content, "Recovery note: ")
		assert.Len(t, toolRuns(t, runs), 5)

		hist := fetchHistory(ctx, t, c, id, run.GetRunID())
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
		require.NoError(t, err)
		recorded := filepath.Join(t.TempDir(), "history.json")
		require.NoError(t, os.WriteFile(recorded, append(b, '\n'), 0o644))
		require.NoError(t, replay(recorded), "the history just recorded does not replay")
		if *updateHistory {
			require.NoError(t, os.WriteFile(historyFile, append(b, '\n'), 0o644))
			t.Logf("wrote %s (%d events)", historyFile, len(hist.Events))
		}
	})
}

// fetchHistory returns the whole history of a closed workflow run.
func fetchHistory(ctx context.Context, t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	hist := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, e)
	}
	return hist
}

// replay replays the history in the JSON file name against the test
// workflows, in process: it fails on any nondeterminism.
func replay(name string) error {
	r := newReplayer()
	registerWorkflows(r)
	return r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), name)
}
