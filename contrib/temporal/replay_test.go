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
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestReplayCommittedHistory replays the histories that versions 1 and 2
// of Run recorded on the dev server (two calls at once: an InputFix after a
// Retry-After wait, a question approved by Update with a human's input, a
// jittered backoff): today's code must make the same decisions, or
// workflows in flight would break on the next deployment.
func TestReplayCommittedHistory(t *testing.T) {
	for _, file := range []string{historyV1File, historyFile} {
		t.Run(file, func(t *testing.T) { require.NoError(t, replay(file)) })
	}
}

// TestReplayDetectsAChangedStepOrder shows that the replay test has teeth:
// the same history replayed against a workflow that no longer asks the
// human (AskUser then ends the call at once) is a determinism error.
func TestReplayDetectsAChangedStepOrder(t *testing.T) {
	r := newReplayer()
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.5).WithRandSource(rt.RandSource(ctx))
		d := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithRecoveryNotes())
		outs := make([]callOutput, len(historyCalls))
		wg := workflow.NewWaitGroup(ctx)
		for i, call := range historyCalls {
			wg.Add(1)
			workflow.Go(ctx, func(ctx workflow.Context) {
				defer wg.Done()
				outs[i] = output(rt.Run(ctx, d, call, rt.WithTask(task)))
			})
		}
		wg.Wait(ctx)
		return outs, nil
	}, workflow.RegisterOptions{Name: historyWorkflow})
	err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nondeterministic")
}

// recorded is what a committed history holds.
type recorded struct {
	versions   []string        // change ID=version of each Version marker
	timers     []time.Duration // each timer's duration
	updates    []string        // each accepted Update's name
	sideEffect int             // side effect markers
	activities []string        // each activity's ID
	waits      []time.Duration // the InitialInterval of each activity whose retry is a wait
}

func readHistory(t *testing.T, file string) recorded {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)

	dc := converter.GetDefaultDataConverter()
	var r recorded
	for _, e := range hist.Events {
		switch e.EventType {
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			a := e.GetMarkerRecordedEventAttributes()
			if a.MarkerName != "Version" {
				r.sideEffect++
				continue
			}
			var id string
			var v workflow.Version
			require.NoError(t, dc.FromPayloads(a.Details["change-id"], &id))
			require.NoError(t, dc.FromPayloads(a.Details["version"], &v))
			r.versions = append(r.versions, id+"="+versionText(v))
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			r.timers = append(r.timers, e.GetTimerStartedEventAttributes().StartToFireTimeout.AsDuration())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			r.updates = append(r.updates, e.GetWorkflowExecutionUpdateAcceptedEventAttributes().AcceptedRequest.Input.Name)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes()
			r.activities = append(r.activities, a.ActivityId)
			if p := a.RetryPolicy; p.GetMaximumAttempts() == 2 {
				r.waits = append(r.waits, p.GetInitialInterval().AsDuration())
			}
		}
	}
	return r
}

// TestCommittedHistoryRecordsTheVersion checks what the committed histories
// hold. Version 1: its version marker, a durable timer per wait, the
// accepted Update. Version 2: its version marker, each wait as the retry
// delay of the next tool activity (no timer but the question's timeout),
// activities named after the call, the attempt and the digest of the
// decisions, and the digests recorded before the question and at the end
// of the corrected call.
func TestCommittedHistoryRecordsTheVersion(t *testing.T) {
	v1 := readHistory(t, historyV1File)
	assert.Equal(t, []string{"github.com/loopctl-go/reflection/contrib/temporal=1"}, v1.versions)
	assert.Contains(t, v1.timers, 2*time.Second, "the search call's Retry-After wait")
	assert.Contains(t, v1.timers, time.Hour, "the question's timeout")
	assert.Equal(t, []string{rt.UpdateName("call_search")}, v1.updates)
	assert.Zero(t, v1.sideEffect)

	v2 := readHistory(t, historyFile)
	assert.Equal(t, []string{"github.com/loopctl-go/reflection/contrib/temporal=2"}, v2.versions)
	assert.Equal(t, []time.Duration{time.Hour}, v2.timers, "the question's timeout, and no timer for a wait")
	assert.Contains(t, v2.waits, 2*time.Second, "the search call's Retry-After wait, held by the retry")
	assert.Len(t, v2.waits, 2, "the search call's wait, and the fetch call's jittered one")
	assert.Equal(t, []string{rt.UpdateName("call_search")}, v2.updates)
	assert.Equal(t, 2, v2.sideEffect, "the digests before the question and at the end of the corrected call")
	require.Len(t, v2.activities, 8)
	for _, id := range v2.activities {
		assert.Regexp(t, `^call_(search|fetch)/[0-9]/(tool|reflect)/[0-9a-f]{16}$`, id)
	}
}

func versionText(v workflow.Version) string {
	if v == workflow.DefaultVersion {
		return "default"
	}
	return strconv.Itoa(int(v))
}

// TestReplayReproducesTheResult replays the committed histories and
// compares what the calls returned during the replay with the result the
// original run recorded: reports, results and the jittered wait, drawn from
// RandSource, all come out the same. A jitter source of the workflow's own
// making draws another wait. Temporal does not compare a timer's duration
// on replay, so the history of version 1 replays into a different report
// (only this comparison sees it); from version 2 on, the wait is in the
// digest that names the next activity, and the replay fails.
func TestReplayReproducesTheResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   string
		source func(ctx workflow.Context) rand.Source
		want   string // "same", "different" or "fails"
	}{
		{"version 1, RandSource", historyV1File, func(ctx workflow.Context) rand.Source { return rt.RandSource(ctx) }, "same"},
		{"version 1, a seeded source", historyV1File, func(workflow.Context) rand.Source { return rand.NewPCG(7, 9) }, "different"},
		{"version 2, RandSource", historyFile, func(ctx workflow.Context) rand.Source { return rt.RandSource(ctx) }, "same"},
		{"version 2, a seeded source", historyFile, func(workflow.Context) rand.Source { return rand.NewPCG(7, 9) }, "fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorded := recordedResult(t, tc.file)
			var replayed []callOutput
			r := newReplayer()
			r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
				outs, err := agentWithSource(ctx, task, tc.source(ctx))
				replayed = outs
				return outs, err
			}, workflow.RegisterOptions{Name: historyWorkflow})
			err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), tc.file)
			if tc.want == "fails" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "nondeterministic")
				return
			}
			require.NoError(t, err)
			got, err := json.Marshal(replayed)
			require.NoError(t, err)
			if tc.want == "same" {
				assert.JSONEq(t, string(recorded), string(got))
			} else {
				assert.NotEqual(t, compactJSON(t, recorded), compactJSON(t, got))
			}
		})
	}
}

// recordedResult returns the result the run of a committed history
// completed with, as JSON.
func recordedResult(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
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
