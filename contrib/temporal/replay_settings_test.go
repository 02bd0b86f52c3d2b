package reflectiontemporal_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// changedSettings are the Drivers of a deployment that changed, without a
// workflow.GetVersion, a setting of the one that recorded the committed
// histories (a backoff with jitter 0.5 drawn from RandSource, recovery
// notes).
func changedSettings() []struct {
	name   string
	driver func(ctx workflow.Context) *reflection.Driver
} {
	backoff := func(ctx workflow.Context) reflection.ExponentialBackoff {
		return reflection.NewExponentialBackoff(3).WithJitter(0.5).WithRandSource(rt.RandSource(ctx))
	}
	refuseLimit := func(_ string, input json.RawMessage) error {
		if strings.Contains(string(input), "limit") {
			return errors.New("no limit allowed")
		}
		return nil
	}
	return []struct {
		name   string
		driver func(ctx workflow.Context) *reflection.Driver
	}{
		{"the backoff's base delay", func(ctx workflow.Context) *reflection.Driver {
			return reflection.NewDriver(reflection.WithStrategy(backoff(ctx).WithBaseDelay(time.Second)), reflection.WithRecoveryNotes())
		}},
		{"the jitter", func(ctx workflow.Context) *reflection.Driver {
			return reflection.NewDriver(reflection.WithStrategy(backoff(ctx).WithJitter(0.1)), reflection.WithRecoveryNotes())
		}},
		{"the recovery notes", func(ctx workflow.Context) *reflection.Driver {
			return reflection.NewDriver(reflection.WithStrategy(backoff(ctx)))
		}},
		{"an input check", func(ctx workflow.Context) *reflection.Driver {
			return reflection.NewDriver(reflection.WithStrategy(backoff(ctx)), reflection.WithRecoveryNotes(),
				reflection.WithInputCheck(refuseLimit))
		}},
		{"the Retry-After cap", func(ctx workflow.Context) *reflection.Driver {
			return reflection.NewDriver(reflection.WithStrategy(backoff(ctx)), reflection.WithRecoveryNotes(),
				reflection.WithMaxRetryAfter(time.Second))
		}},
	}
}

// replayWith replays file against historyWorkflow run with driver, and
// returns the replay's error and what the calls returned during it.
func replayWith(t *testing.T, file string, driver func(ctx workflow.Context) *reflection.Driver) ([]callOutput, error) {
	t.Helper()
	var replayed []callOutput
	r := newReplayer()
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
		outs, err := agentWithDriver(ctx, task, driver(ctx))
		replayed = outs
		return outs, err
	}, workflow.RegisterOptions{Name: historyWorkflow})
	return replayed, r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), file)
}

// TestReplayWithChangedSettings replays the committed history of version 2
// with each setting changed between deployments: every replay fails with a
// nondeterminism error (the activity whose ID holds the changed decision,
// or the digest recorded at the end of the call), instead of rebuilding a
// report of waits, corrections or results that never happened.
func TestReplayWithChangedSettings(t *testing.T) {
	for _, tc := range changedSettings() {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replayWith(t, historyFile, tc.driver)
			requireNondeterminism(t, err)
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

// requireNondeterminism checks that a replay failed as Temporal fails a
// replay that does not match its history: with the SDK's nondeterminism
// error (TMPRL1100), or with Run's own.
func requireNondeterminism(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err, "the replay went through with another setting")
	if !strings.Contains(err.Error(), "TMPRL1100") {
		assert.Contains(t, err.Error(), "reflectiontemporal: nondeterministic replay")
	}
}

// TestReplayMidWaitWithChangedSettings is the deployment the issue
// describes: a worker with a new backoff takes over a workflow while its
// call waits. The history ends where the wait began (version 2: the tool
// activity that holds the wait is scheduled). The replay fails: the wait
// the new backoff decides is not the one the history holds.
func TestReplayMidWaitWithChangedSettings(t *testing.T) {
	hist := loadHistory(t, historyFile)
	cut := -1
	for i, e := range hist.Events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && strings.HasPrefix(a.ActivityId, "call_fetch/1/tool/") {
			cut = i
			break
		}
	}
	require.Positive(t, cut, "the fetch call's retry, which holds its wait, is in the history")
	hist.Events = hist.Events[:cut+1]

	for _, tc := range changedSettings()[:2] { // the backoff and the jitter: they decide the wait
		t.Run(tc.name, func(t *testing.T) {
			r := newReplayer()
			r.RegisterWorkflowWithOptions(func(ctx workflow.Context, task string) ([]callOutput, error) {
				return agentWithDriver(ctx, task, tc.driver(ctx))
			}, workflow.RegisterOptions{Name: historyWorkflow})
			requireNondeterminism(t, r.ReplayWorkflowHistory(quietLogger(), hist))
		})
	}
	t.Run("unchanged", func(t *testing.T) {
		r := newReplayer()
		registerWorkflows(r)
		require.NoError(t, r.ReplayWorkflowHistory(quietLogger(), hist))
	})
}

// loadHistory reads a committed history.
func loadHistory(t *testing.T, file string) *historypb.History {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return hist
}

// TestReplayV1WithChangedSettings shows what version 1 did, and still does
// for the workflows it recorded: the same changes replay without an error
// into a result that differs from the one the run recorded (the issue this
// version fixed). Histories of version 1 keep replaying as they ran.
func TestReplayV1WithChangedSettings(t *testing.T) {
	recorded := compactJSON(t, recordedResult(t, historyV1File))
	for _, tc := range changedSettings() {
		t.Run(tc.name, func(t *testing.T) {
			replayed, err := replayWith(t, historyV1File, tc.driver)
			if err != nil {
				t.Logf("%s: the replay failed: %v", tc.name, err)
				return
			}
			got, err := json.Marshal(replayed)
			require.NoError(t, err)
			assert.NotEqual(t, recorded, compactJSON(t, got), "the replay rebuilt the recorded result")
		})
	}
}
