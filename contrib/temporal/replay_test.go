package reflectiontemporal_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestReplayCommittedHistory replays the history that version 1 of Run
// recorded on the dev server (two calls at once: an InputFix after a
// Retry-After wait, a question approved by Update with a human's input, a
// jittered backoff): today's code must make the same decisions, or
// workflows in flight would break on the next deployment.
func TestReplayCommittedHistory(t *testing.T) {
	require.NoError(t, replay(historyFile))
}

// TestReplayDetectsAChangedStepOrder shows that the replay test has teeth:
// the same history replayed against a workflow that no longer asks the
// human (AskUser then ends the call at once) is a determinism error.
func TestReplayDetectsAChangedStepOrder(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.5).WithRandSource(rt.RandSource(ctx))
		d := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithRecoveryNotes())
		outs := make([]callOutput, len(historyCalls))
		wg := workflow.NewWaitGroup(ctx)
		for i, call := range historyCalls {
			wg.Add(1)
			workflow.Go(ctx, func(ctx workflow.Context) {
				defer wg.Done()
				outs[i] = output(rt.Run(ctx, call, rt.WithDriver(d), rt.WithTask(task)))
			})
		}
		wg.Wait(ctx)
		return outs, nil
	}, workflow.RegisterOptions{Name: historyWorkflow})
	err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nondeterministic")
}

// TestCommittedHistoryRecordsTheVersion checks what the committed history
// holds: the version marker of Run's step order, the durable timers, and
// the accepted Update.
func TestCommittedHistoryRecordsTheVersion(t *testing.T) {
	f, err := os.Open(historyFile)
	require.NoError(t, err)
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)

	dc := converter.GetDefaultDataConverter()
	var versions []string
	var timers []time.Duration
	var updates []string
	for _, e := range hist.Events {
		switch e.EventType {
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			a := e.GetMarkerRecordedEventAttributes()
			if a.MarkerName != "Version" {
				continue
			}
			var id string
			var v workflow.Version
			require.NoError(t, dc.FromPayloads(a.Details["change-id"], &id))
			require.NoError(t, dc.FromPayloads(a.Details["version"], &v))
			versions = append(versions, id+"="+versionText(v))
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			timers = append(timers, e.GetTimerStartedEventAttributes().StartToFireTimeout.AsDuration())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			updates = append(updates, e.GetWorkflowExecutionUpdateAcceptedEventAttributes().AcceptedRequest.Input.Name)
		}
	}
	assert.Equal(t, []string{"github.com/loopctl-go/reflection/contrib/temporal=1"}, versions)
	assert.Contains(t, timers, 2*time.Second, "the search call's Retry-After wait")
	assert.Contains(t, timers, time.Hour, "the question's timeout")
	assert.Equal(t, []string{rt.UpdateName("call_search")}, updates)
}

func versionText(v workflow.Version) string {
	if v == workflow.DefaultVersion {
		return "default"
	}
	return strconv.Itoa(int(v))
}

// TestReplayReproducesTheResult replays the committed history and compares
// what the calls returned during the replay with the result the original
// run recorded: reports, results and the jittered wait, drawn from
// RandSource, all come out the same. A jitter source of the workflow's own
// making would not: Temporal does not compare a timer's duration on replay,
// so only this test sees such a draw change.
func TestReplayReproducesTheResult(t *testing.T) {
	recorded := recordedResult(t)
	for _, tc := range []struct {
		name   string
		source func(ctx workflow.Context) rand.Source
		same   bool
	}{
		{"RandSource", func(ctx workflow.Context) rand.Source { return rt.RandSource(ctx) }, true},
		{"a seeded source", func(workflow.Context) rand.Source { return rand.NewPCG(7, 9) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var replayed []callOutput
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
				outs, err := agentWithSource(ctx, task, tc.source(ctx))
				replayed = outs
				return outs, err
			}, workflow.RegisterOptions{Name: historyWorkflow})
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile))
			got, err := json.Marshal(replayed)
			require.NoError(t, err)
			if tc.same {
				assert.JSONEq(t, string(recorded), string(got))
			} else {
				assert.NotEqual(t, compactJSON(t, recorded), compactJSON(t, got))
			}
		})
	}
}

// recordedResult returns the result the committed history's run completed
// with, as JSON.
func recordedResult(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open(historyFile)
	require.NoError(t, err)
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	last := hist.Events[len(hist.Events)-1]
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, last.EventType)
	payloads := last.GetWorkflowExecutionCompletedEventAttributes().Result.Payloads
	require.Len(t, payloads, 1)
	return payloads[0].Data
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, b))
	return buf.String()
}
