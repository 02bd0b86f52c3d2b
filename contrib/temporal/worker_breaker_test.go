package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// scriptedTools routes each call by its ID to a scripted tool of its own,
// and records every dispatch.
type scriptedTools struct {
	mu    sync.Mutex
	tools map[string]*reflectiontest.Tool
	calls []string // the call IDs dispatched, in order
}

func newScriptedTools(script map[string][]reflectiontest.Outcome) *scriptedTools {
	s := &scriptedTools{tools: map[string]*reflectiontest.Tool{}}
	for id, outcomes := range script {
		s.tools[id] = reflectiontest.NewTool(outcomes...)
	}
	return s
}

func (s *scriptedTools) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, call.ID)
	tool := s.tools[call.ID]
	s.mu.Unlock()
	return tool.Dispatch(ctx, call)
}

// statusError is an HTTP client's error with a status.
type statusError struct{ status int }

func (e statusError) Error() string   { return fmt.Sprintf("api error: status %d", e.status) }
func (e statusError) StatusCode() int { return e.status }

// retryWhenAsked is a Reflector that calls a failure recoverable when the
// call's input asks for retries.
var retryWhenAsked = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if strings.Contains(string(f.Input), "retry") {
		return recoverable("transient"), nil
	}
	return reflection.FailureAnalysis{RootCause: "down", Severity: reflection.SeverityMedium}, nil
})

// breakerCall is a call of the tool "billing" with an ID and an input.
func breakerCall(id string, retry bool) reflection.ToolCall {
	in := `{"account":7}`
	if retry {
		in = `{"account":7,"retry":true}`
	}
	return reflection.ToolCall{ID: id, Name: "billing", Input: json.RawMessage(in)}
}

// TestWorkerHealth runs calls one after the other through Run, on a worker
// whose tool activity consults a Health (WithWorkerHealth), and through
// Driver.Run with the same Health settings: both end every call alike, so
// the breaker counts failing calls, not failing dispatches, ignores
// failures that blame the input, refuses while open (saying when to retry,
// after the call's own failure for a refused retry), and keeps the tool
// from running meanwhile.
func TestWorkerHealth(t *testing.T) {
	fail := reflectiontest.Fail("503 service unavailable")
	tests := []struct {
		name   string
		calls  []reflection.ToolCall
		script map[string][]reflectiontest.Outcome
		ran    []string // the call IDs dispatched
		state  reflection.BreakerState
	}{
		{
			name:   "a call that fails three times and then succeeds leaves the breaker closed",
			calls:  []reflection.ToolCall{breakerCall("c1", true)},
			script: map[string][]reflectiontest.Outcome{"c1": {fail, fail, fail, reflectiontest.Succeed("billed")}},
			ran:    []string{"c1", "c1", "c1", "c1"},
			state:  reflection.BreakerClosed,
		},
		{
			name:  "three failing calls open it and the fourth is refused",
			calls: []reflection.ToolCall{breakerCall("c1", false), breakerCall("c2", false), breakerCall("c3", false), breakerCall("c4", false)},
			script: map[string][]reflectiontest.Outcome{
				"c1": {fail}, "c2": {fail}, "c3": {fail}, "c4": {reflectiontest.Succeed("billed")},
			},
			ran:   []string{"c1", "c2", "c3"},
			state: reflection.BreakerOpen,
		},
		{
			name:  "a retry refused keeps the call's failure",
			calls: []reflection.ToolCall{breakerCall("c1", false), breakerCall("c2", false), breakerCall("c3", true)},
			script: map[string][]reflectiontest.Outcome{
				"c1": {fail}, "c2": {fail}, "c3": {fail, reflectiontest.Succeed("billed")},
			},
			ran:   []string{"c1", "c2", "c3"},
			state: reflection.BreakerOpen,
		},
		{
			name:  "failures that blame the input do not count",
			calls: []reflection.ToolCall{breakerCall("c1", false), breakerCall("c2", false), breakerCall("c3", false), breakerCall("c4", false)},
			script: map[string][]reflectiontest.Outcome{
				"c1": {reflectiontest.Error(statusError{400})},
				"c2": {reflectiontest.Error(fmt.Errorf("bad account: %w", reflection.ErrInputRejected))},
				"c3": {reflectiontest.Error(statusError{404})},
				"c4": {reflectiontest.Succeed("billed")},
			},
			ran:   []string{"c1", "c2", "c3", "c4"},
			state: reflection.BreakerClosed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			driver := func(opts ...reflection.Option) *reflection.Driver {
				return reflection.NewDriver(append(opts, reflection.WithStrategy(reflection.NewExponentialBackoff(3)))...)
			}
			var want []reflection.Report
			synctest.Test(t, func(t *testing.T) {
				h := reflection.NewHealth(0, 0)
				tools := newScriptedTools(tt.script)
				d := driver(reflection.WithHealth(h), reflection.WithReflector(retryWhenAsked))
				for _, call := range tt.calls {
					rep, err := d.RunWithReport(context.Background(), call, tools.dispatch)
					require.NoError(t, err)
					want = append(want, withoutTimes(rep))
				}
				assert.Equal(t, tt.ran, tools.calls, "Driver.Run")
				assert.Equal(t, tt.state, h.State("billing"), "Driver.Run")
			})

			h := reflection.NewHealth(0, 0)
			tools := newScriptedTools(tt.script)
			hs := newHarness(t, tools.dispatch, retryWhenAsked, rt.WithWorkerHealth(h))
			var got []ran
			hs.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
				for _, call := range tt.calls {
					var r ran
					r.res, r.rep, r.err = rt.Run(ctx, driver(), call)
					got = append(got, r)
				}
				return nil
			}, workflow.RegisterOptions{Name: "calls"})
			hs.env.ExecuteWorkflow("calls")
			require.NoError(t, hs.env.GetWorkflowError())
			require.Len(t, got, len(want))
			for i := range want {
				require.NoError(t, got[i].err)
				assert.Equal(t, want[i], withoutTimes(got[i].rep), "call %s", tt.calls[i].ID)
				assert.Equal(t, want[i].Result, got[i].res)
			}
			assert.Equal(t, tt.ran, tools.calls)
			assert.Equal(t, tt.state, h.State("billing"))
			if last := got[len(got)-1].rep; tt.state == reflection.BreakerOpen {
				assert.Equal(t, reflection.ReasonCircuitOpen, last.Reason)
				assert.Contains(t, last.Result.Content, "tool temporarily unavailable: circuit breaker open; retry in about 60s")
			}
		})
	}
}

// TestWorkerHealthIsPerWorker: the Driver's own Health is not consulted in
// workflow code (a warning says so), and a worker without WithWorkerHealth
// has no breaker.
func TestWorkerHealthIsPerWorker(t *testing.T) {
	tools := newScriptedTools(map[string][]reflectiontest.Outcome{
		"c1": {reflectiontest.Fail("down")}, "c2": {reflectiontest.Fail("down")}, "c3": {reflectiontest.Succeed("billed")},
	})
	h := newHarness(t, tools.dispatch, nil)
	health := reflection.NewHealth(1, 0)
	var last ran
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		d := reflection.NewDriver(reflection.WithHealth(health))
		for _, id := range []string{"c1", "c2", "c3"} {
			last.res, last.rep, last.err = rt.Run(ctx, d, breakerCall(id, false))
		}
		return nil
	}, workflow.RegisterOptions{Name: "calls"})
	h.env.ExecuteWorkflow("calls")
	require.NoError(t, h.env.GetWorkflowError())
	require.NoError(t, last.err)
	reflectiontest.AssertOutcome(t, last.rep, reflection.OutcomeSucceeded)
	assert.Equal(t, []string{"c1", "c2", "c3"}, tools.calls)
	assert.Equal(t, reflection.BreakerClosed, health.State("billing"), "workflow code never touched the Driver's Health")
}
