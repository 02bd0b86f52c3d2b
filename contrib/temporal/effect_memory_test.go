package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestEffectMemoryInAWorkflow runs the calls of one session, one after the
// other, through Driver.Run with a shared EffectMemory and through Run with
// a memory made in the workflow function (WithEffectMemory): a charge that
// timed out is remembered, so the model's re-issue of it (a new call ID,
// the same input) is not dispatched blindly but asked about first, naming
// the earlier call; once a human approves it and it succeeds, the memory
// forgets it and the next re-issue runs at once. Both runtimes end every
// call alike.
func TestEffectMemoryInAWorkflow(t *testing.T) {
	charge := func(id string) reflection.ToolCall {
		return reflection.ToolCall{ID: id, Name: "charge_card", Input: json.RawMessage(`{"cents":1200}`)}
	}
	script := map[string][]reflectiontest.Outcome{
		"call_1": {reflectiontest.Fail("the payment gateway timed out")},
		"call_2": {reflectiontest.Succeed("charged")},
		"call_3": {reflectiontest.Succeed("charged again, as asked")},
	}
	tests := []struct {
		name    string
		calls   []string
		answers []reflection.Answer // nil: nobody is asked
		ran     []string
	}{
		{"nobody to ask: the re-issue is held back", []string{"call_1", "call_2"}, nil, []string{"call_1"}},
		{"a human approves the re-issue", []string{"call_1", "call_2", "call_3"},
			[]reflection.Answer{{Reply: "do not retry now"}, {Approve: true}}, []string{"call_1", "call_2", "call_3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			driver := func(opts ...reflection.Option) *reflection.Driver {
				return reflection.NewDriver(append(opts, effectIs(reflection.EffectNonIdempotent))...)
			}
			var want []reflection.Report
			synctest.Test(t, func(t *testing.T) {
				tools := newScriptedTools(script)
				opts := []reflection.Option{
					reflection.WithEffectMemory(reflection.NewEffectMemory(0)),
					reflection.WithReflector(reflectiontest.NewReflector(recoverable("a timeout"))),
				}
				if tt.answers != nil {
					opts = append(opts, reflection.WithAsker(asker(tt.answers)))
				}
				d := driver(opts...)
				for _, id := range tt.calls {
					rep, err := d.RunWithReport(context.Background(), charge(id), tools.dispatch)
					require.NoError(t, err)
					want = append(want, withoutTimes(rep))
				}
				assert.Equal(t, tt.ran, tools.calls, "Driver.Run")
			})

			tools := newScriptedTools(script)
			h := newHarness(t, tools.dispatch, reflectiontest.NewReflector(recoverable("a timeout")))
			var opts []rt.Option
			if tt.answers != nil {
				opts = append(opts, rt.WithAsk(24*time.Hour))
				for i, ans := range tt.answers {
					id := tt.calls[i]
					h.at(time.Duration(i+1)*time.Hour, func() {
						if h.query(id).State == rt.StateAsking {
							h.answer(id, ans)
						}
					})
				}
			}
			var got []ran
			h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
				m := reflection.NewEffectMemory(0) // workflow state: made here, filled by the calls
				d := driver()
				for _, id := range tt.calls {
					var r ran
					r.res, r.rep, r.err = rt.Run(ctx, d, charge(id), append(opts, rt.WithEffectMemory(m))...)
					got = append(got, r)
				}
				return nil
			}, workflow.RegisterOptions{Name: "session"})
			h.env.ExecuteWorkflow("session")
			require.NoError(t, h.env.GetWorkflowError())
			require.Len(t, got, len(want))
			for i := range want {
				require.NoError(t, got[i].err)
				assert.Equal(t, want[i], withoutTimes(got[i].rep), "call %s", tt.calls[i])
			}
			assert.Equal(t, tt.ran, tools.calls)
			second := got[1].rep
			if tt.answers == nil {
				assert.Equal(t, reflection.OutcomeAskedUser, second.Outcome)
				assert.Equal(t, reflection.ReasonAmbiguousEffect, second.Reason)
				assert.Contains(t, second.Result.Content, `"call_1"`, "the question names the earlier call")
			} else {
				reflectiontest.AssertOutcome(t, second, reflection.OutcomeSucceeded)
				reflectiontest.AssertOutcome(t, got[2].rep, reflection.OutcomeSucceeded)
			}
		})
	}
}
