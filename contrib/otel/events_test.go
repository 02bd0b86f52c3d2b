package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// TestEventsOfARecovery checks the events a recovery by InputFix leaves on
// the run span, in order, with what each says.
func TestEventsOfARecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		tl := newTool(h.tp, okWhen(`{"city":"Lisbon"}`, "19°C"))
		d := h.driver(
			reflection.WithReflector(reflectiontest.NewReflector(analysis("misspelled city", inputFix(`{"city":"Lisbon"}`)))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(100*time.Millisecond)),
		)
		_, err := d.Run(context.Background(), reflection.ToolCall{Name: "weather", Input: []byte(`{"city":"Lisbn"}`)}, tl.dispatch)
		require.NoError(t, err)

		runSpan := h.one(t, "reflection.run weather")
		assert.Equal(t, []string{"reflection.analysis", "reflection.decision", "reflection.wait", "reflection.correction"}, eventNames(runSpan))
		assert.Equal(t, []map[string]any{{
			"reflection.attempt":         int64(0),
			"reflection.recoverable":     true,
			"reflection.severity":        "low",
			"reflection.correction.type": "input_fix",
		}}, eventsNamed(runSpan, "reflection.analysis"))
		assert.Equal(t, []map[string]any{{
			"reflection.attempt":     int64(0),
			"reflection.action":      "retry",
			"reflection.retry.delay": 0.1,
		}}, eventsNamed(runSpan, "reflection.decision"))
		assert.Equal(t, []map[string]any{{
			"reflection.attempt":    int64(0),
			"reflection.wait.delay": 0.1,
		}}, eventsNamed(runSpan, "reflection.wait"))
		assert.Equal(t, []map[string]any{{
			"reflection.attempt":            int64(0),
			"reflection.correction.type":    "input_fix",
			"reflection.correction.applied": true,
		}}, eventsNamed(runSpan, "reflection.correction"))

		// The events carry the times they happened at: the correction comes
		// after the wait, when the retry begins.
		ev := runSpan.Events()
		assert.Equal(t, 100*time.Millisecond, ev[3].Time.Sub(ev[2].Time))
	})
}

// TestEventsOfDecisions checks the decision event for each action, and the
// analysis event of a reflector that fails.
func TestEventsOfDecisions(t *testing.T) {
	errDown := errors.New("model is down")
	tests := []struct {
		name      string
		reflector reflection.Reflector
		strategy  reflection.RecoveryStrategy
		analysis  map[string]any
		decision  map[string]any
	}{
		{
			name:      "skip",
			reflector: reflectiontest.NewReflector(analysis("flaky", nil)),
			strategy:  reflectiontest.NewStrategy(reflection.Skip{Reason: "later"}),
			analysis:  map[string]any{"reflection.attempt": int64(0), "reflection.recoverable": true, "reflection.severity": "low"},
			decision:  map[string]any{"reflection.attempt": int64(0), "reflection.action": "skip"},
		},
		{
			name: "ask user",
			reflector: reflectiontest.NewReflector(reflection.FailureAnalysis{
				RootCause: "needs approval", Severity: reflection.SeverityHigh,
				Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask the owner"},
			}),
			strategy: reflectiontest.NewStrategy(reflection.AskUser{Prompt: "may I?"}),
			analysis: map[string]any{
				"reflection.attempt": int64(0), "reflection.recoverable": false, "reflection.severity": "high",
				"reflection.correction.type": "escalate",
			},
			decision: map[string]any{"reflection.attempt": int64(0), "reflection.action": "ask_user"},
		},
		{
			name:      "fail",
			reflector: reflectiontest.NewReflector(reflection.FailureAnalysis{RootCause: "gone", Severity: reflection.SeverityCritical}),
			strategy:  reflection.NewExponentialBackoff(3),
			analysis:  map[string]any{"reflection.attempt": int64(0), "reflection.recoverable": false, "reflection.severity": "critical"},
			decision:  map[string]any{"reflection.attempt": int64(0), "reflection.action": "fail"},
		},
		{
			name: "reflector error",
			reflector: reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, errDown
			}),
			strategy: reflection.NewExponentialBackoff(3),
			analysis: map[string]any{"reflection.attempt": int64(0), "error.type": semconv.ErrorType(errDown).Value.AsString()},
			decision: map[string]any{"reflection.attempt": int64(0), "reflection.action": "fail"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tl := newTool(h.tp, bad("boom"))
			d := h.driver(reflection.WithReflector(tt.reflector), reflection.WithStrategy(tt.strategy))
			res, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
			require.NoError(t, err)
			assert.True(t, res.IsError, "a soft end")
			runSpan := h.one(t, "reflection.run job")
			assert.Equal(t, []string{"reflection.analysis", "reflection.decision"}, eventNames(runSpan))
			assert.Equal(t, []map[string]any{tt.analysis}, eventsNamed(runSpan, "reflection.analysis"))
			assert.Equal(t, []map[string]any{tt.decision}, eventsNamed(runSpan, "reflection.decision"))
		})
	}
}

// TestEventOfADroppedCorrection checks a ToolChange to a tool the Driver
// does not know: dropped, and the retry runs the same tool.
func TestEventOfADroppedCorrection(t *testing.T) {
	h := newHarness(t)
	tl := newTool(h.tp, bad("boom"), ok("fine"))
	d := h.driver(
		reflection.WithReflector(reflectiontest.NewReflector(analysis("wrong tool", toolChange("rm_rf")))),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(schemas("job")),
	)
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
	require.NoError(t, err)
	runSpan := h.one(t, "reflection.run job")
	assert.Equal(t, []map[string]any{{
		"reflection.attempt":            int64(0),
		"reflection.correction.type":    "tool_change",
		"reflection.correction.applied": false,
	}}, eventsNamed(runSpan, "reflection.correction"))
	assert.Len(t, h.named("execute_tool job"), 2)
	assert.Empty(t, eventsNamed(runSpan, "reflection.wait"), "an immediate retry is no wait")
}

// TestEventOfARateLimitHint checks that the wait event says the wait taken,
// the longer of the strategy's delay and the service's hint, under a name of
// its own: the decision's delay is the strategy's.
func TestEventOfARateLimitHint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		tl := newTool(h.tp, bad("429 too many requests"), ok("fine"))
		limited := analysis("rate limited", nil)
		limited.RetryAfter = 2 * time.Second
		d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(limited)),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(100*time.Millisecond)))
		_, err := d.Run(context.Background(), reflection.ToolCall{Name: "api"}, tl.dispatch)
		require.NoError(t, err)
		runSpan := h.one(t, "reflection.run api")
		assert.Equal(t, 2.0, eventsNamed(runSpan, "reflection.analysis")[0]["reflection.retry_after"])
		assert.Equal(t, 0.1, eventsNamed(runSpan, "reflection.decision")[0]["reflection.retry.delay"])
		assert.Equal(t, 2.0, eventsNamed(runSpan, "reflection.wait")[0]["reflection.wait.delay"])
	})
}

// TestEventsOfAsking checks the ask event for an approval with the human's
// own input (then a correction event), a refusal, and an Asker that fails.
func TestEventsOfAsking(t *testing.T) {
	errGone := errors.New("the human left")
	tests := []struct {
		name    string
		answer  reflection.Answer
		err     error
		ask     map[string]any
		events  []string
		outcome string
	}{
		{
			name:    "approved with input",
			answer:  reflection.Answer{Approve: true, Input: []byte(`{"ok":true}`)},
			ask:     map[string]any{"reflection.attempt": int64(0), "reflection.approved": true},
			events:  []string{"reflection.analysis", "reflection.decision", "reflection.ask", "reflection.correction"},
			outcome: "succeeded",
		},
		{
			name:    "declined",
			answer:  reflection.Answer{Reply: "not today"},
			ask:     map[string]any{"reflection.attempt": int64(0), "reflection.approved": false},
			events:  []string{"reflection.analysis", "reflection.decision", "reflection.ask"},
			outcome: "asked_user",
		},
		{
			name:    "asker failed",
			err:     errGone,
			ask:     map[string]any{"reflection.attempt": int64(0), "error.type": semconv.ErrorType(errGone).Value.AsString()},
			events:  []string{"reflection.analysis", "reflection.decision", "reflection.ask"},
			outcome: "asked_user",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tl := newTool(h.tp, okWhen(`{"ok":true}`, "done"))
			asker := reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
				return tt.answer, tt.err
			})
			d := h.driver(reflection.WithAsker(asker),
				reflection.WithReflector(reflectiontest.NewReflector(analysis("needs a human", nil))),
				reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: "may I?"})))
			rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{Name: "job", Input: []byte(`{}`)}, tl.dispatch)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome.String())
			runSpan := h.one(t, "reflection.run job")
			assert.Equal(t, tt.events, eventNames(runSpan))
			assert.Equal(t, []map[string]any{tt.ask}, eventsNamed(runSpan, "reflection.ask"))
		})
	}
}

// TestHostObserverSurvives joins a host's observer with the Telemetry's, in
// both orders: the host sees every step, and the call is traced.
func TestHostObserverSurvives(t *testing.T) {
	for _, hostFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("host first: ", hostFirst), func(t *testing.T) {
			h := newHarness(t)
			rec := reflectiontest.NewRecorder()
			obs := []reflection.Observer{rec.Observer(), h.tel.Observer()}
			if !hostFirst {
				obs[0], obs[1] = obs[1], obs[0]
			}
			typo := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return analysis("typo", inputFix(`{"n":2}`)), nil
			})
			d := reflection.NewDriver(
				reflection.WithReflector(typo),
				reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
				reflection.WithObserver(reflection.JoinObservers(obs...)),
			)
			tl := newTool(h.tp, okWhen(`{"n":2}`, "two"))
			_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job", Input: []byte(`{"n":1}`)}, tl.dispatch)
			require.NoError(t, err)
			assert.NotEmpty(t, rec.Events(), "the host's observer")
			assert.Equal(t, []string{"reflection.analysis", "reflection.decision", "reflection.correction"},
				eventNames(h.one(t, "reflection.run job")))
			assert.Equal(t, "reflection.run job\n  execute_tool job\n    job.work\n  execute_tool job\n    job.work\n", h.tree())
		})
	}
}

// TestTwoTelemetriesJoined joins two Telemetries in one Driver, each with
// its own tracer provider: each records the call once, with its own spans
// and events, in the order it was joined or the other.
func TestTwoTelemetriesJoined(t *testing.T) {
	for _, firstIsH := range []bool{true, false} {
		t.Run(fmt.Sprint("first is h: ", firstIsH), func(t *testing.T) {
			h, g := newHarness(t), newHarness(t)
			obs := []reflection.Observer{h.tel.Observer(), g.tel.Observer()}
			if !firstIsH {
				obs[0], obs[1] = obs[1], obs[0]
			}
			d := reflection.NewDriver(reflection.WithObserver(reflection.JoinObservers(obs...)),
				reflection.WithReflector(reflectiontest.NewReflector(analysis("typo", nil))),
				reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
			tl := newTool(h.tp, bad("boom"), ok("fine"))
			_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
			require.NoError(t, err)
			for _, x := range []*harness{h, g} {
				runSpan := x.one(t, "reflection.run job")
				assert.Equal(t, []string{"reflection.analysis", "reflection.decision"}, eventNames(runSpan))
				attempts := x.named("execute_tool job")
				require.Len(t, attempts, 2)
				for _, a := range attempts {
					assert.Equal(t, runSpan.SpanContext().SpanID(), a.Parent().SpanID())
				}
				assert.Equal(t, map[string]int64{"succeeded": 1}, sums(t, x.collect(t)["reflection.calls"], "reflection.outcome"))
			}
		})
	}
}
