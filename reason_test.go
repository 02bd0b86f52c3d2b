package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// Why a call ended, in a word: every Reason produced through the Driver (or,
// for ReasonRefused, which only a runtime's own Refuse gives, through the
// machine), read from the Report, the Observer's Ended hook and Run, and
// carried through the Report's JSON.

// sfReasonSetup is what one scenario runs: made afresh for each run, since
// scripted tools and strategies keep state.
type sfReasonSetup struct {
	ctx      context.Context
	opts     []reflection.Option
	call     reflection.ToolCall
	dispatch reflection.DispatchFunc
}

func TestReasonConstants(t *testing.T) {
	want := map[reflection.Reason]string{
		reflection.ReasonStrategy:        "strategy",
		reflection.ReasonReflectorError:  "reflector_error",
		reflection.ReasonInvalidAction:   "invalid_action",
		reflection.ReasonHintOverCap:     "hint_over_cap",
		reflection.ReasonCeiling:         "ceiling",
		reflection.ReasonDeclined:        "declined",
		reflection.ReasonAskFailed:       "ask_failed",
		reflection.ReasonCanceled:        "canceled",
		reflection.ReasonDeadline:        "deadline",
		reflection.ReasonNilDispatch:     "nil_dispatch",
		reflection.ReasonCircuitOpen:     "circuit_open",
		reflection.ReasonBudgetExhausted: "budget_exhausted",
		reflection.ReasonAmbiguousEffect: "ambiguous_effect",
		reflection.ReasonCorrectionLoop:  "correction_loop",
		reflection.ReasonLoopDetected:    "loop_detected",
		reflection.ReasonRefused:         "refused",
	}
	require.Len(t, want, 16, "sixteen distinct reasons")
	for r, s := range want {
		assert.Equal(t, s, string(r))
	}
}

func TestReasonThroughTheDriver(t *testing.T) {
	fail := func() reflection.DispatchFunc { return reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch }
	failThenOK := func() reflection.DispatchFunc {
		return reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Succeed("ok")).Dispatch
	}
	retrying := []reflection.Option{reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(sfRetry(0))}
	strategy := func(a reflection.RecoveryAction) []reflection.Option {
		return []reflection.Option{reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(reflectiontest.NewStrategy(a))}
	}
	ask := func(asker reflection.Asker) []reflection.Option {
		return append(strategy(reflection.AskUser{Prompt: "retry?"}), reflection.WithAsker(asker))
	}
	bg := context.Background()
	call := sfCall("search", `{"q":1}`)

	tests := []struct {
		name    string
		reason  reflection.Reason
		outcome reflection.Outcome
		hard    bool // Run returns an error
		setup   func(t *testing.T) sfReasonSetup
	}{
		{"success", "", reflection.OutcomeSucceeded, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, nil, call, reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch}
		}},
		{"success after a retry", "", reflection.OutcomeSucceeded, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, retrying, call, failThenOK()}
		}},
		{"strategy's Fail (stock defaults)", reflection.ReasonStrategy, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, nil, call, fail()}
		}},
		{"strategy's Skip", reflection.ReasonStrategy, reflection.OutcomeSkipped, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, strategy(reflection.Skip{Reason: "later"}), call, fail()}
		}},
		{"strategy's AskUser, no Asker", reflection.ReasonStrategy, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, strategy(reflection.AskUser{Prompt: "?"}), call, fail()}
		}},
		{"reflector error", reflection.ReasonReflectorError, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, []reflection.Option{reflection.WithReflector(reflectiontest.NewReflector())}, call, fail()}
		}},
		{"reflector panic", reflection.ReasonReflectorError, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			r := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) { panic("model gone") })
			return sfReasonSetup{bg, []reflection.Option{reflection.WithReflector(r)}, call, fail()}
		}},
		{"nil action", reflection.ReasonInvalidAction, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, strategy(nil), call, fail()}
		}},
		{"a *Retry", reflection.ReasonInvalidAction, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			s := reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
				return &reflection.Retry{}
			})
			return sfReasonSetup{bg, []reflection.Option{reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(s)}, call, fail()}
		}},
		{"strategy panic", reflection.ReasonInvalidAction, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			s := reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction { panic("bug") })
			return sfReasonSetup{bg, []reflection.Option{reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(s)}, call, fail()}
		}},
		{"hint over the cap", reflection.ReasonHintOverCap, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			a := sfRecoverable(nil)
			a.RetryAfter = 2 * time.Minute
			return sfReasonSetup{bg, []reflection.Option{reflection.WithReflector(sfAlways(a)), reflection.WithStrategy(sfRetry(0))}, call, fail()}
		}},
		{"ceiling", reflection.ReasonCeiling, reflection.OutcomeExhausted, true, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, retrying, call, fail()}
		}},
		{"declined", reflection.ReasonDeclined, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, ask(&sfAsker{ans: reflection.Answer{Reply: "no"}}), call, failThenOK()}
		}},
		{"AskUser at the sixth failure, with an Asker", reflection.ReasonStrategy, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			s := reflectiontest.NewStrategy(reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.AskUser{Prompt: "?"})
			return sfReasonSetup{bg, []reflection.Option{
				reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(s),
				reflection.WithAsker(&sfAsker{ans: reflection.Answer{Approve: true}}),
			}, call, fail()}
		}},
		{"asker error", reflection.ReasonAskFailed, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, ask(&sfAsker{err: errors.New("tty closed")}), call, failThenOK()}
		}},
		{"asker panic", reflection.ReasonAskFailed, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, ask(&sfAsker{panics: "tty closed"}), call, failThenOK()}
		}},
		{"cancelled during dispatch", reflection.ReasonCanceled, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			ctx, cancel := context.WithCancel(bg)
			t.Cleanup(cancel)
			return sfReasonSetup{ctx, retrying, call, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				cancel()
				return reflection.ToolResult{}, errors.New("aborted")
			}}
		}},
		{"cancelled during a wait", reflection.ReasonCanceled, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			ctx, cancel := context.WithCancel(bg)
			t.Cleanup(cancel)
			time.AfterFunc(time.Second, cancel)
			return sfReasonSetup{ctx, []reflection.Option{
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(sfRetry(10 * time.Second)),
			}, call, fail()}
		}},
		{"deadline passed during dispatch", reflection.ReasonCanceled, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			ctx, cancel := context.WithTimeout(bg, 10*time.Second)
			t.Cleanup(cancel)
			return sfReasonSetup{ctx, []reflection.Option{
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(sfRetry(0)),
			}, call, func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
				<-ctx.Done()
				return reflection.ToolResult{}, errors.New("too late")
			}}
		}},
		{"a wait refused up front", reflection.ReasonDeadline, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			ctx, cancel := context.WithTimeout(bg, time.Second)
			t.Cleanup(cancel)
			return sfReasonSetup{ctx, []reflection.Option{
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(sfRetry(5 * time.Second)),
			}, call, fail()}
		}},
		{"nil dispatch", reflection.ReasonNilDispatch, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, nil, call, nil}
		}},
		{"circuit open", reflection.ReasonCircuitOpen, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			h := reflection.NewHealth(1, time.Hour)
			sfRunN(t, reflection.NewDriver(reflection.WithHealth(h)), 1, call, fail())
			return sfReasonSetup{bg, []reflection.Option{reflection.WithHealth(h)}, call, failThenOK()}
		}},
		{"budget exhausted", reflection.ReasonBudgetExhausted, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, append(retrying, reflection.WithRetryBudget(reflection.NewRetryBudget(4))), call, failThenOK()}
		}},
		{"ambiguous effect", reflection.ReasonAmbiguousEffect, reflection.OutcomeAskedUser, false, func(t *testing.T) sfReasonSetup {
			return sfReasonSetup{bg, append(retrying, reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent))), call, failThenOK()}
		}},
		{"correction loop", reflection.ReasonCorrectionLoop, reflection.OutcomeFailed, false, func(t *testing.T) sfReasonSetup {
			refl := reflectiontest.NewReflector(sfRecoverable(sfToolChange("b")), sfRecoverable(sfToolChange("search")))
			return sfReasonSetup{bg, []reflection.Option{
				reflection.WithReflector(refl), reflection.WithStrategy(sfRetry(0)), reflection.WithLoopGuard(),
			}, call, fail()}
		}},
		{"loop detected", reflection.ReasonLoopDetected, reflection.OutcomeStopped, true, func(t *testing.T) sfReasonSetup {
			ctx := reflection.ContextWithLoopDetector(bg, reflection.NewLoopDetector(1, 1))
			d := reflection.NewDriver(reflection.WithLoopDetection())
			_, err := d.Run(ctx, call, fail())
			require.NoError(t, err)
			return sfReasonSetup{ctx, []reflection.Option{reflection.WithLoopDetection()}, call, fail()}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := tt.setup(t)
				var ends sfEnds
				d := reflection.NewDriver(append(s.opts, reflection.WithObserver(ends.observer()))...)
				rep, repErr := d.RunWithReport(s.ctx, s.call, s.dispatch)
				assert.Equal(t, tt.reason, rep.Reason, "Report.Reason")
				assert.Equal(t, tt.outcome, rep.Outcome, "Report.Outcome")
				assert.Equal(t, tt.hard, repErr != nil, "hard error: %v", repErr)
				if e := ends.all(); assert.Len(t, e, 1) {
					assert.Equal(t, tt.reason, e[0].Reason, "CallEnd.Reason")
					assert.Equal(t, tt.outcome, e[0].Outcome, "CallEnd.Outcome")
				}

				again := tt.setup(t)
				res, err := reflection.NewDriver(again.opts...).Run(again.ctx, again.call, again.dispatch)
				assert.Equal(t, rep.Result, res, "Run and RunWithReport give one result")
				assert.Equal(t, repErr != nil, err != nil, "Run and RunWithReport give one error: %v, %v", repErr, err)

				sfCheckReportJSON(t, rep)
			})
		})
	}
}

// sfCheckReportJSON checks that a report decodes back with its reason, and
// that the reason key is left out for a success.
func sfCheckReportJSON(t *testing.T, rep reflection.Report) {
	t.Helper()
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &keys))
	if rep.Reason == "" {
		assert.NotContains(t, keys, "reason", "a success has no reason key")
	} else {
		assert.JSONEq(t, `"`+string(rep.Reason)+`"`, string(keys["reason"]), "reason key")
	}
	var back reflection.Report
	require.NoError(t, json.Unmarshal(b, &back), "%s", b)
	assert.Equal(t, rep.Reason, back.Reason, "decoded reason")
	assert.Equal(t, rep.Outcome, back.Outcome, "decoded outcome")
	assert.Equal(t, rep.Result, back.Result, "decoded result")
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(again), "encode, decode, encode")
}

// TestReasonRefused checks the one reason no Driver gives: a runtime's own
// Refuse, through the machine.
func TestReasonRefused(t *testing.T) {
	d := reflection.NewDriver()
	r := d.NewRecovery(context.Background(), sfCall("search", `{}`))
	_, ok := r.Next().(reflection.DispatchStep)
	require.True(t, ok)
	assert.Equal(t, reflection.Reason(""), r.Reason(), "while it runs")
	r.Refuse(errors.New("maintenance window"))
	_, ok = r.Next().(reflection.DoneStep)
	require.True(t, ok)
	assert.Equal(t, reflection.ReasonRefused, r.Reason())
	rep := r.Report()
	assert.Equal(t, reflection.ReasonRefused, rep.Reason)
	assert.Equal(t, reflection.OutcomeFailed, rep.Outcome)
	sfCheckReportJSON(t, rep)
}

// TestReasonOfTheMachineMatchesTheReport checks that Recovery.Reason and the
// Report's agree, at a few endings driven by hand.
func TestReasonOfTheMachineMatchesTheReport(t *testing.T) {
	tests := []struct {
		name   string
		drive  func(r *reflection.Recovery)
		reason reflection.Reason
	}{
		{"success", func(r *reflection.Recovery) {
			r.Next()
			r.Dispatched(reflection.ToolResult{Content: "ok"}, nil)
		}, ""},
		{"strategy", func(r *reflection.Recovery) {
			r.Next()
			r.Dispatched(reflection.ToolResult{Content: "503", IsError: true}, nil)
			r.Next()
			r.Analyzed(reflection.FailureAnalysis{RootCause: "down"}, nil)
		}, reflection.ReasonStrategy},
		{"reflector error", func(r *reflection.Recovery) {
			r.Next()
			r.Dispatched(reflection.ToolResult{}, errors.New("503"))
			r.Next()
			r.Analyzed(reflection.FailureAnalysis{}, reflection.ErrInternal)
		}, reflection.ReasonReflectorError},
		{"stopped", func(r *reflection.Recovery) {
			r.Next()
			r.Stop(context.Canceled)
		}, reflection.ReasonCanceled},
		{"circuit open", func(r *reflection.Recovery) {
			r.Next()
			r.Refuse(reflection.ErrCircuitOpen)
		}, reflection.ReasonCircuitOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reflection.NewDriver().NewRecovery(context.Background(), sfCall("search", `{}`))
			tt.drive(r)
			_, ok := r.Next().(reflection.DoneStep)
			require.True(t, ok)
			assert.Equal(t, tt.reason, r.Reason())
			assert.Equal(t, tt.reason, r.Report().Reason)
		})
	}
}
