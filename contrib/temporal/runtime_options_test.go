package reflectiontemporal_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestToolActivityTimeouts checks the timeouts a tool attempt runs with:
// the Driver's attempt timeout maps to the activity's StartToCloseTimeout
// unless WithToolActivity sets a timeout, and every attempt heartbeats
// with DefaultToolHeartbeatTimeout unless WithToolActivity says otherwise.
func TestToolActivityTimeouts(t *testing.T) {
	timed := reflection.NewDriver(reflection.WithAttemptTimeout(3 * time.Second))
	tests := []struct {
		name          string
		driver        *reflection.Driver
		opts          []rt.Option
		wantStart     time.Duration
		wantHeartbeat time.Duration
	}{
		{name: "defaults", wantStart: rt.DefaultToolTimeout, wantHeartbeat: rt.DefaultToolHeartbeatTimeout},
		{
			name:      "the Driver's attempt timeout",
			driver:    timed,
			wantStart: 3 * time.Second, wantHeartbeat: rt.DefaultToolHeartbeatTimeout,
		},
		{
			name:   "WithToolActivity's timeouts win",
			driver: timed,
			opts: []rt.Option{
				rt.WithToolActivity(workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 2 * time.Second}),
			},
			wantStart: time.Minute, wantHeartbeat: 2 * time.Second,
		},
		{
			name:      "a negative heartbeat timeout means none",
			opts:      []rt.Option{rt.WithToolActivity(workflow.ActivityOptions{HeartbeatTimeout: -1})},
			wantStart: rt.DefaultToolTimeout, wantHeartbeat: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []*activity.Info
			var mu sync.Mutex
			tool := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				info := activity.GetInfo(ctx)
				mu.Lock()
				seen = append(seen, &info)
				mu.Unlock()
				return reflection.ToolResult{Content: "ok"}, nil
			}
			h := newHarness(t, tool, nil)
			got := h.run(tt.driver, readCall, tt.opts...)
			require.NoError(t, got.err)
			require.Len(t, seen, 1)
			assert.Equal(t, tt.wantStart, seen[0].StartToCloseTimeout)
			assert.Equal(t, tt.wantHeartbeat, seen[0].HeartbeatTimeout)
		})
	}
}

// TestToolActivityHeartbeats runs a tool longer than its heartbeat
// timeout: the activity heartbeats for it, and stops when it returns. The
// test runs in a synctest bubble: the tool's 600ms pass at once.
func TestToolActivityHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		beats := 0
		tool := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			time.Sleep(600 * time.Millisecond) // the bubble's clock
			return reflection.ToolResult{Content: "done"}, nil
		}
		h := newHarness(t, tool, nil)
		h.env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) {
			mu.Lock()
			beats++
			mu.Unlock()
		})
		got := h.run(nil, readCall, rt.WithToolActivity(workflow.ActivityOptions{HeartbeatTimeout: 200 * time.Millisecond}))
		require.NoError(t, got.err)
		reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
		mu.Lock()
		defer mu.Unlock()
		assert.GreaterOrEqual(t, beats, 4, "a heartbeat about every 100ms while the tool ran 600ms")
	})
}

// TestDriverRuntimePartsAreNotCalled gives Run a Driver with a Reflector
// (not the rules package's), an Asker, an Observer, a logger, a redactor
// and a Health (as reflection.Driver.RuntimeOptions lists them): none is
// called or consulted from workflow code, and Run says so in a warning
// through the workflow's logger.
func TestDriverRuntimePartsAreNotCalled(t *testing.T) {
	var called []string
	d := reflection.NewDriver(
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			called = append(called, "Reflector")
			return reflection.FailureAnalysis{}, nil
		})),
		reflection.WithAsker(reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
			called = append(called, "Asker")
			return reflection.Answer{}, nil
		})),
		reflection.WithObserver(reflection.Observer{DispatchStart: func(context.Context, int, reflection.ToolCall) {
			called = append(called, "Observer")
		}}),
		reflection.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		reflection.WithRedactor(func(s string) string {
			called = append(called, "redactor")
			return s
		}),
		reflection.WithHealth(reflection.NewHealth(1, time.Hour)),
	)
	logs := &warnings{}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(logs)
	env := newTestEnv(&suite)
	tool := reflectiontest.NewTool(reflectiontest.Fail("boom"), reflectiontest.Succeed("ok"))
	require.NoError(t, rt.Register(env, tool.Dispatch, reflectiontest.NewReflector(recoverable("transient"))))
	var got ran
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		got.res, got.rep, got.err = rt.Run(ctx, d, readCall)
		return nil
	}, workflow.RegisterOptions{Name: "extras"})
	env.ExecuteWorkflow("extras")
	require.NoError(t, env.GetWorkflowError())

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
	assert.Empty(t, called, "workflow code called the Driver's own hooks")
	assert.Equal(t, []string{"reflectiontemporal: Run does not call the Driver's Reflector, Asker, Observer, logger, redactor, Health " +
		"(Register's Reflector or WithWorkflowReflector analyses, WithAsk asks, Register's WithWorkerHealth is the circuit breaker, " +
		"the Report and the history record)"},
		logs.messages())
}

// TestPlainDriverWarnsNothing: a Driver with none of the parts Run does not
// call gives no warning; the rules package's Reflector is called (in
// workflow code).
func TestPlainDriverWarnsNothing(t *testing.T) {
	logs := &warnings{}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(logs)
	env := newTestEnv(&suite)
	require.NoError(t, rt.Register(env, reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch, nil))
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		_, _, err := rt.Run(ctx, reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)),
			reflection.WithAttemptTimeout(time.Second), reflection.WithRecoveryNotes()), readCall)
		return err
	}, workflow.RegisterOptions{Name: "plain"})
	env.ExecuteWorkflow("plain")
	require.NoError(t, env.GetWorkflowError())
	assert.Empty(t, logs.messages())
}

// warnings is a logger that keeps the messages of Warn records from this
// package.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Debug(string, ...any) {}
func (w *warnings) Info(string, ...any)  {}
func (w *warnings) Error(string, ...any) {}
func (w *warnings) Warn(msg string, _ ...any) {
	if !strings.HasPrefix(msg, "reflectiontemporal:") {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

func (w *warnings) messages() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

var _ log.Logger = (*warnings)(nil)
