package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
)

// notIdempotent says every tool may act again when it runs again.
func notIdempotent(string) reflection.Effect { return reflection.EffectNonIdempotent }

// TestVerificationEvent runs a charge that fails after it may have acted
// through a Driver with a verifier: the verdict is an event on the call's
// span, and a verifier that fails or panics is a broken component
// (error.type), after which the guard asks as without one.
func TestVerificationEvent(t *testing.T) {
	errLedger := errors.New("ledger unreachable")
	tests := []struct {
		name    string
		verify  func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error)
		outcome reflection.Outcome
		event   map[string]any
		status  codes.Code
	}{
		{
			name: "applied",
			verify: func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				return reflection.VerdictApplied, reflection.ToolResult{Content: "charged once"}, nil
			},
			outcome: reflection.OutcomeSucceeded,
			event:   map[string]any{"gen_ai.tool.name": "charge_card", "reflection.verdict": "applied"},
			status:  codes.Unset,
		},
		{
			name: "not applied",
			verify: func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
			},
			outcome: reflection.OutcomeSucceeded, // the retry ran and succeeded
			event:   map[string]any{"gen_ai.tool.name": "charge_card", "reflection.verdict": "not_applied"},
			status:  codes.Unset,
		},
		{
			name: "error",
			verify: func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				return reflection.VerdictUnknown, reflection.ToolResult{}, errLedger
			},
			outcome: reflection.OutcomeAskedUser,
			event: map[string]any{
				"gen_ai.tool.name": "charge_card", "reflection.verdict": "unknown",
				"error.type": "*errors.errorString", "reflection.error": "ledger unreachable",
			},
			status: codes.Error,
		},
		{
			name: "panic",
			verify: func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				panic("verifier bug")
			},
			outcome: reflection.OutcomeAskedUser,
			event: map[string]any{
				"gen_ai.tool.name": "charge_card", "reflection.verdict": "unknown",
				"error.type": "panic", "reflection.error": "verifier panicked: verifier bug",
			},
			status: codes.Error,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, reflectionotel.WithTexts(nil))
			d := h.driver(reflection.WithReflector(transient),
				reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
				reflection.WithEffects(notIdempotent),
				reflection.WithVerifier(tt.verify))
			tl := newTool(h.tp, bad("gateway timeout"), ok("charged"))
			call := reflection.ToolCall{ID: "c1", Name: "charge_card", Input: []byte(`{"cents":500}`)}
			rep, err := d.RunWithReport(context.Background(), call, tl.dispatch)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome)

			span := h.one(t, "reflection.run charge_card")
			assert.Equal(t, []map[string]any{tt.event}, eventsNamed(span, "reflection.verification"))
			assert.Equal(t, tt.status, span.Status().Code)
			assert.Empty(t, eventsNamed(span, "reflection.remembered"), "the memory was empty")
		})
	}
}

// TestRememberedEvent runs a charge that ends without success after it may
// have acted, then the model's re-issue of it ten seconds later: the
// Driver's effect memory holds the first call back, and the match is an
// event on the second call's span naming the earlier call, how long ago it
// ended and, with texts, its failure.
func TestRememberedEvent(t *testing.T) {
	for _, texts := range []bool{false, true} {
		t.Run(fmt.Sprintf("texts=%v", texts), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var opts []reflectionotel.Option
				if texts {
					opts = append(opts, reflectionotel.WithTexts(nil))
				}
				h := newHarness(t, opts...)
				d := h.driver(reflection.WithReflector(transient),
					reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
					reflection.WithEffects(notIdempotent))
				tl := newTool(h.tp, bad("gateway timeout"), ok("charged"))
				first := reflection.ToolCall{ID: "c1", Name: "charge_card", Input: []byte(`{"cents":500,"card":"x"}`)}
				rep, err := d.RunWithReport(context.Background(), first, tl.dispatch)
				require.NoError(t, err)
				require.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason)

				time.Sleep(10 * time.Second)
				reissue := reflection.ToolCall{ID: "c2", Name: "charge_card", Input: []byte(`{"card":"x","cents":500}`)}
				rep, err = d.RunWithReport(context.Background(), reissue, tl.dispatch)
				require.NoError(t, err)
				assert.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason)
				assert.Empty(t, rep.Attempts, "the re-issue was not dispatched")

				spans := h.named("reflection.run charge_card")
				require.Len(t, spans, 2)
				assert.Empty(t, eventsNamed(spans[0], "reflection.remembered"))
				want := map[string]any{
					"gen_ai.tool.name": "charge_card", "reflection.remembered.call_id": "c1",
					"reflection.remembered.age": 10.0,
				}
				if texts {
					want["reflection.failure"] = "gateway timeout"
				}
				assert.Equal(t, []map[string]any{want}, eventsNamed(spans[1], "reflection.remembered"))
			})
		})
	}
}

// TestUnanalyzedIsNoBrokenComponent runs a failure the Reflector skips
// (its error wraps reflection.ErrSkipped, as the stock rules do when no
// rule matches) and one a Reflector fails on: only the second puts an
// error.type on the analysis event. Both calls failed, so both call spans
// have an error status; their reasons tell them apart.
func TestUnanalyzedIsNoBrokenComponent(t *testing.T) {
	skip := fmt.Errorf("rules: no rule matched: %w", reflection.ErrSkipped)
	broken := fmt.Errorf("model: %w", reflection.ErrInternal)
	both := fmt.Errorf("chain: %w, %w", reflection.ErrSkipped, reflection.ErrInternal)
	tests := []struct {
		name     string
		err      error
		reason   string
		analysis map[string]any
	}{
		{"skipped", skip, "unanalyzed", map[string]any{
			"reflection.attempt": int64(0), "reflection.skipped": true, "reflection.failure": "boom",
			"reflection.error": "rules: no rule matched: reflection: reflector skipped analysis",
		}},
		{"broken", broken, "reflector_error", map[string]any{
			"reflection.attempt": int64(0), "error.type": "*errors.errorString", "reflection.failure": "boom", // named by what fmt wraps, as semconv names it
			"reflection.error": "model: reflection: internal reflector error",
		}},
		{"skipped and broken", both, "reflector_error", map[string]any{
			"reflection.attempt": int64(0), "error.type": "*fmt.wrapErrors", "reflection.failure": "boom",
			"reflection.error": "chain: reflection: reflector skipped analysis, reflection: internal reflector error",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, reflectionotel.WithTexts(nil))
			d := h.driver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, tt.err
			})))
			_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom")).dispatch)
			require.NoError(t, err)
			span := h.one(t, "reflection.run job")
			assert.Equal(t, []map[string]any{tt.analysis}, eventsNamed(span, "reflection.analysis"))
			assert.Equal(t, tt.reason, spanAttrs(span)["reflection.reason"])
			assert.Equal(t, codes.Error, span.Status().Code, "the call failed")
			assert.Equal(t, map[string]int64{tt.reason: 1}, sums(t, h.collect(t)["reflection.calls"], "reflection.reason"))
		})
	}
}
