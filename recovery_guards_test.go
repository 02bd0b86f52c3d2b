package reflection_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The loop guard inside one call (WithLoopGuard), through RunWithReport.

// sfLoopCase is a call whose Reflector proposes corrections in order; each
// dispatch fails with its own text until the last outcome.
type sfLoopCase struct {
	name        string
	call        reflection.ToolCall
	corrections []*reflection.Correction // one per failure, in order
	failures    int                      // failing dispatches before a success
}

func (c sfLoopCase) run(t *testing.T, opts ...reflection.Option) (reflection.Report, *reflectiontest.Tool, time.Duration, []time.Duration) {
	t.Helper()
	answers := make([]reflection.FailureAnalysis, len(c.corrections))
	for i, corr := range c.corrections {
		answers[i] = sfRecoverable(corr)
	}
	outcomes := make([]reflectiontest.Outcome, 0, c.failures+1)
	for i := 0; i < c.failures; i++ {
		outcomes = append(outcomes, reflectiontest.Fail("failure "+string(rune('1'+i))))
	}
	tool := reflectiontest.NewTool(append(outcomes, reflectiontest.Succeed("ok"))...)
	var waits sfWaits
	d := reflection.NewDriver(append([]reflection.Option{
		reflection.WithReflector(reflectiontest.NewReflector(answers...)),
		reflection.WithStrategy(sfRetry(time.Second)),
		reflection.WithSchemas(sfKnown("a", "b", "c")),
		reflection.WithObserver(waits.observer()),
	}, opts...)...)
	start := time.Now()
	rep, err := d.RunWithReport(context.Background(), c.call, tool.Dispatch)
	require.NoError(t, err)
	return rep, tool, time.Since(start), waits.all()
}

// TestLoopGuardEndsCircles checks that a correction leading back to a pair
// that failed and that a correction had left ends the call at the decision:
// the latest failure text, OutcomeFailed, ReasonCorrectionLoop, no wait.
func TestLoopGuardEndsCircles(t *testing.T) {
	tests := []struct {
		sfLoopCase
		calls int // dispatches before the guard ends the call
	}{
		{sfLoopCase{
			name:        "A → B → A by ToolChange",
			call:        sfCall("a", `{"q":1}`),
			corrections: []*reflection.Correction{sfToolChange("b"), sfToolChange("a")},
			failures:    3,
		}, 2},
		{sfLoopCase{
			name: "input 1 → 2 → 1, keys reordered and spaced",
			call: sfCall("a", `{"city":"Lisbon","days":[1,2],"unit":{"t":"c"}}`),
			corrections: []*reflection.Correction{
				sfInputFix(`{"city":"Porto","days":[1,2],"unit":{"t":"c"}}`),
				sfInputFix("{ \"unit\" : { \"t\" : \"c\" },\n\t\"days\" : [ 1 , 2 ], \"city\" : \"Lisbon\" }"),
			},
			failures: 3,
		}, 2},
		{sfLoopCase{
			name: "input 1 → 2 → 1, a string escaped",
			call: sfCall("a", `{"city":"Lisbon"}`),
			corrections: []*reflection.Correction{
				sfInputFix(`{"city":"Porto"}`),
				sfInputFix(`{"city":"Lisb\u006fn"}`),
			},
			failures: 3,
		}, 2},
		{sfLoopCase{
			name: "A(1) → B(1) → B(2) → A(2) → A(1)",
			call: sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{
				sfToolChange("b"), sfInputFix(`{"n":2}`), sfToolChange("a"), sfInputFix(`{"n":1}`),
			},
			failures: 5,
		}, 4},
		{sfLoopCase{
			name:        "back after a plain retry",
			call:        sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{sfInputFix(`{"n":2}`), nil, sfInputFix(`{"n":1}`)},
			failures:    4,
		}, 3},
		{sfLoopCase{
			name:        "to a tool left earlier, through a third",
			call:        sfCall("a", `{}`),
			corrections: []*reflection.Correction{sfToolChange("b"), sfToolChange("c"), sfToolChange("a")},
			failures:    4,
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rep, tool, waited, waits := tt.run(t, reflection.WithLoopGuard())
				assert.Len(t, tool.Calls(), tt.calls, "dispatches")
				want := "failure " + string(rune('0'+tt.calls))
				assert.Equal(t, reflection.ToolResult{ID: tt.call.ID, Content: want, IsError: true}, rep.Result, "the latest failure text")
				assert.Equal(t, reflection.OutcomeFailed, rep.Outcome)
				assert.Equal(t, reflection.ReasonCorrectionLoop, rep.Reason)
				assert.Len(t, waits, tt.calls-1, "waits begun: none for the loop")
				assert.Equal(t, time.Duration(tt.calls-1)*time.Second, waited, "virtual time waited")
			})
			synctest.Test(t, func(t *testing.T) {
				rep, tool, _, _ := tt.run(t)
				assert.NotEqual(t, reflection.ReasonCorrectionLoop, rep.Reason, "without WithLoopGuard")
				assert.Len(t, tool.Calls(), tt.calls+1, "without WithLoopGuard the circle runs")
			})
		})
	}
}

// TestLoopGuardLeavesPlainRetriesAlone checks what the guard does not touch:
// corrections that change nothing, plain retries, and fresh pairs.
func TestLoopGuardLeavesPlainRetriesAlone(t *testing.T) {
	tests := []sfLoopCase{
		{
			name:        "plain retries",
			call:        sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{nil, nil, nil},
			failures:    3,
		},
		{
			name: "no-op input fixes",
			call: sfCall("a", `{"n":1,"m":2}`),
			corrections: []*reflection.Correction{
				sfInputFix(`{"m":2,"n":1}`), sfInputFix(`{ "n" : 1, "m" : 2 }`), sfInputFix(`{"n":1,"m":2}`),
			},
			failures: 3,
		},
		{
			name:        "ToolChange to the failing tool",
			call:        sfCall("a", `{}`),
			corrections: []*reflection.Correction{sfToolChange("a"), sfToolChange("a"), sfToolChange("a")},
			failures:    3,
		},
		{
			name: "dropped corrections",
			call: sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{
				sfInputFix(`[1]`), sfToolChange("unknown_tool"), sfInputFix(`"not an object"`),
			},
			failures: 3,
		},
		{
			name:        "a dropped correction after a real one",
			call:        sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{sfInputFix(`{"n":2}`), sfInputFix(`[1]`), sfToolChange("unknown_tool")},
			failures:    3,
		},
		{
			name:        "a new pair each time",
			call:        sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{sfInputFix(`{"n":2}`), sfToolChange("b"), sfInputFix(`{"n":3}`), sfToolChange("a")},
			failures:    4,
		},
		{
			name: "advisory corrections",
			call: sfCall("a", `{"n":1}`),
			corrections: []*reflection.Correction{
				{Type: reflection.PrerequisiteFix, Guidance: "log in"},
				{Type: reflection.ApproachChange, Guidance: "try later"},
				{Type: reflection.Escalate, Guidance: "ask"},
			},
			failures: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rep, tool, _, _ := tt.run(t, reflection.WithLoopGuard())
				assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome, "reason %q", rep.Reason)
				assert.Len(t, tool.Calls(), tt.failures+1, "dispatches")
			})
		})
	}
}

// TestLoopGuardLeavesHumanInputAlone checks that an input a human approved
// runs, even when it is a pair that failed and was left by a correction.
func TestLoopGuardLeavesHumanInputAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		asker := &sfAsker{ans: reflection.Answer{Approve: true, Input: json.RawMessage(`{ "n": 1 }`)}}
		tool := reflectiontest.NewTool(reflectiontest.Fail("failure 1"), reflectiontest.Fail("failure 2"), reflectiontest.Succeed("ok"))
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(sfRecoverable(sfInputFix(`{"n":2}`)), sfRecoverable(nil))),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.AskUser{Prompt: "go back to n=1?"})),
			reflection.WithAsker(asker),
			reflection.WithLoopGuard(),
		)
		rep, err := d.RunWithReport(context.Background(), sfCall("a", `{"n":1}`), tool.Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome, "reason %q", rep.Reason)
		calls := tool.Calls()
		require.Len(t, calls, 3)
		assert.JSONEq(t, `{"n":1}`, string(calls[2].Input), "the human's input ran")
	})
}
