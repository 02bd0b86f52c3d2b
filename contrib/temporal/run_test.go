package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// rateLimited is a tool error that carries a Retry-After hint, as an HTTP
// client's error for a 429 does.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string {
	return fmt.Sprintf("429 too many requests (retry after %s)", e.after)
}
func (e rateLimited) RetryAfter() time.Duration { return e.after }
func (e rateLimited) StatusCode() int           { return 429 }

// scenario is one call, run once by Driver.RunWithReport and once by Run in
// a workflow: both runtimes drive the same machine, so they must agree.
type scenario struct {
	name     string
	call     reflection.ToolCall
	tool     []reflectiontest.Outcome
	analyses []reflection.FailureAnalysis
	strategy []reflection.RecoveryAction                           // nil: the Driver's default strategy
	reflect  func(f reflection.Failure) reflection.FailureAnalysis // when set, the Reflector instead of analyses
	opts     []reflection.Option
	answers  []reflection.Answer // a human's answers, in order: Driver.Run's Asker gives them, Run gets them as Updates (WithAsk)
	deadline time.Duration       // Driver.Run's ctx deadline and the workflow run's timeout; 0: none
	outcome  reflection.Outcome
	reason   reflection.Reason
	calls    int
	check    func(t *testing.T, got ran, tool *reflectiontest.Tool)
}

func (s scenario) driverOptions(r reflection.Reflector) []reflection.Option {
	opts := append([]reflection.Option(nil), s.opts...)
	if s.strategy != nil {
		opts = append(opts, reflection.WithStrategy(reflectiontest.NewStrategy(s.strategy...)))
	}
	if r != nil {
		opts = append(opts, reflection.WithReflector(r))
	}
	return opts
}

var readCall = reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}

func scenarios() []scenario {
	fixed := json.RawMessage(`{"path":"b.txt"}`)
	cases := []scenario{
		{
			name: "succeeds at once", call: readCall,
			tool:    []reflectiontest.Outcome{reflectiontest.Succeed("contents")},
			outcome: reflection.OutcomeSucceeded, calls: 1,
		},
		{
			name: "retries a transient failure", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("connection reset"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{recoverable("a reset connection")},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
		},
		{
			name: "skips", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("no such file")},
			analyses: []reflection.FailureAnalysis{recoverable("missing")},
			strategy: []reflection.RecoveryAction{reflection.Skip{Reason: "optional"}},
			outcome:  reflection.OutcomeSkipped, calls: 1, reason: reflection.ReasonStrategy,
		},
		{
			name: "asks the user without WithAsk", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("permission denied")},
			analyses: []reflection.FailureAnalysis{recoverable("no access")},
			strategy: []reflection.RecoveryAction{reflection.AskUser{Prompt: "grant access?"}},
			outcome:  reflection.OutcomeAskedUser, calls: 1, reason: reflection.ReasonStrategy,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.res.Content, "A human decision is needed before this call can be retried: grant access?")
			},
		},
		{
			name: "fails an unrecoverable failure", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("invalid path")},
			analyses: []reflection.FailureAnalysis{{RootCause: "the path is invalid", Severity: reflection.SeverityMedium}},
			outcome:  reflection.OutcomeFailed, calls: 1, reason: reflection.ReasonStrategy,
		},
		{
			name: "fails when the reflector fails", call: readCall,
			tool:    []reflectiontest.Outcome{reflectiontest.Fail("boom")},
			outcome: reflection.OutcomeFailed, calls: 1, reason: reflection.ReasonReflectorError,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.rep.Attempts[0].ReflectorError, "reflector asked 1 times")
			},
		},
		{
			name: "fails when the reflector panics", call: readCall,
			tool:    []reflectiontest.Outcome{reflectiontest.Fail("boom")},
			reflect: func(reflection.Failure) reflection.FailureAnalysis { panic("reflector bug") },
			outcome: reflection.OutcomeFailed, calls: 1, reason: reflection.ReasonReflectorError,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Equal(t, "reflector panicked: reflector bug", got.rep.Attempts[0].ReflectorError)
			},
		},
		{
			name: "takes an odd analysis as it was", call: readCall,
			tool: []reflectiontest.Outcome{reflectiontest.Fail("boom"), reflectiontest.Succeed("ok")},
			reflect: func(reflection.Failure) reflection.FailureAnalysis {
				return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "odd", Severity: -1,
					Correction: &reflection.Correction{Type: "retry_later", ModifiedInput: json.RawMessage(`{`)}}
			},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Equal(t, reflection.Severity(-1), got.rep.Attempts[0].Analysis.Severity)
			},
		},
		{
			name: "fails a hint over the cap", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Error(rateLimited{after: 2 * time.Minute})},
			analyses: []reflection.FailureAnalysis{recoverable("rate limited")},
			outcome:  reflection.OutcomeFailed, calls: 1, reason: reflection.ReasonHintOverCap,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Equal(t, reflection.Fail{Reason: "the service asks to wait 2m0s before a retry, more than the cap of 1m0s"},
					got.rep.Attempts[0].Action)
			},
		},
		{
			name: "exhausts six attempts", call: readCall,
			tool: []reflectiontest.Outcome{reflectiontest.Fail("still down")},
			analyses: []reflection.FailureAnalysis{recoverable("down"), recoverable("down"), recoverable("down"),
				recoverable("down"), recoverable("down"), recoverable("down")},
			strategy: []reflection.RecoveryAction{reflection.Retry{}, reflection.Retry{}, reflection.Retry{},
				reflection.Retry{}, reflection.Retry{}, reflection.Retry{Delay: time.Second}},
			outcome: reflection.OutcomeExhausted, calls: 6, reason: reflection.ReasonCeiling,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				var ex *reflection.ToolRecoveryExhaustedError
				require.ErrorAs(t, got.err, &ex)
				assert.Equal(t, 6, ex.Attempts)
				assert.Equal(t, "read_file", ex.Tool)
				requireHardError(t, got.err, rt.ErrorTypeExhausted, `reflection: tool "read_file" still failing after 6 attempts`)
			},
		},
		{
			name: "applies an input fix", call: readCall,
			tool: []reflectiontest.Outcome{reflectiontest.Fail("no such file: a.txt"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "wrong name",
				Correction: &reflection.Correction{Type: reflection.InputFix, Description: "use b.txt", ModifiedInput: fixed}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, tool *reflectiontest.Tool) {
				assert.JSONEq(t, string(fixed), string(tool.Calls()[1].Input))
			},
		},
		{
			name: "drops an input fix that is not an object", call: readCall,
			tool: []reflectiontest.Outcome{reflectiontest.Fail("no such file"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "wrong name",
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":`)}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				require.Len(t, got.rep.Attempts[0].Corrections, 1)
				c := got.rep.Attempts[0].Corrections[0]
				assert.False(t, c.Applied)
				assert.Equal(t, `{"path":`, string(c.Correction.ModifiedInput), "the invalid input crossed Temporal as it was")
			},
		},
		{
			name: "switches tools", call: readCall,
			tool: []reflectiontest.Outcome{reflectiontest.Fail("deprecated"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "old tool",
				Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "read_file_v2"}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, _ ran, tool *reflectiontest.Tool) {
				reflectiontest.AssertCallNames(t, tool, "read_file", "read_file_v2")
			},
		},
		{
			name: "recovers a panicking tool", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Panic("nil map"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{recoverable("a bug, once")},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Equal(t, `tool "read_file" panicked: nil map`, got.rep.Attempts[0].DispatchError)
			},
		},
		{
			name: "passes an input that is not JSON untouched",
			call: reflection.ToolCall{ID: "call_2", Name: "search", Input: json.RawMessage(`{"q": "unterminated`)},
			tool: []reflectiontest.Outcome{reflectiontest.Fail("bad arguments"), reflectiontest.Succeed("found")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "broken JSON",
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"q":"x"}`)}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, _ ran, tool *reflectiontest.Tool) {
				assert.Equal(t, `{"q": "unterminated`, string(tool.Calls()[0].Input))
			},
		},
		{
			name: "waits a hint from the tool's error", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Error(rateLimited{after: 3 * time.Second}), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{recoverable("rate limited")},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Equal(t, &reflection.Wait{Delay: 3 * time.Second, Hint: 3 * time.Second}, got.rep.Attempts[0].Wait)
			},
		},
		{
			name: "writes recovery notes", call: readCall,
			opts: []reflection.Option{reflection.WithRecoveryNotes()},
			tool: []reflectiontest.Outcome{reflectiontest.Fail("no such file"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "wrong name",
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: fixed}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.res.Content, "Recovery note: ")
			},
		},
		{
			name: "runs the input check in workflow code", call: readCall,
			opts: []reflection.Option{reflection.WithInputCheck(func(_ string, input json.RawMessage) error {
				if strings.Contains(string(input), "b.txt") {
					return errors.New("b.txt is off limits")
				}
				return nil
			})},
			tool: []reflectiontest.Outcome{reflectiontest.Fail("no such file"), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "wrong name",
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: fixed}}},
			outcome: reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, _ ran, tool *reflectiontest.Tool) {
				assert.JSONEq(t, `{"path":"a.txt"}`, string(tool.Calls()[1].Input))
			},
		},
	}
	return append(cases, safetyScenarios()...)
}

// effectIs is WithEffects with every tool's effect e.
func effectIs(e reflection.Effect) reflection.Option {
	return reflection.WithEffects(func(string) reflection.Effect { return e })
}

// safetyScenarios are the calls that the machine's rules across attempts
// end (the effect guard, the loop guard, the deadline refusal) or that a
// human answers: Run must end them as Driver.Run does, with the same
// Reason.
func safetyScenarios() []scenario {
	fixed := json.RawMessage(`{"path":"b.txt"}`)
	inputFix := func(input json.RawMessage) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "wrong path",
			Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: input}}
	}
	charge := reflection.ToolCall{ID: "call_pay", Name: "charge_card", Input: json.RawMessage(`{"cents":1200}`)}
	return []scenario{
		{
			name: "does not retry a non-idempotent tool blindly", call: charge,
			opts:     []reflection.Option{effectIs(reflection.EffectNonIdempotent)},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("the payment gateway timed out"), reflectiontest.Succeed("charged")},
			analyses: []reflection.FailureAnalysis{recoverable("a timeout")},
			outcome:  reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.res.Content, "this tool is not idempotent")
			},
		},
		{
			name: "a human's approval retries a non-idempotent tool", call: charge,
			opts:     []reflection.Option{effectIs(reflection.EffectNonIdempotent)},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("the payment gateway timed out"), reflectiontest.Succeed("charged")},
			analyses: []reflection.FailureAnalysis{recoverable("a timeout")},
			answers:  []reflection.Answer{{Approve: true}},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				act, ok := got.rep.Attempts[0].Action.(reflection.AskUser)
				require.True(t, ok, "the effect guard turned the Retry into AskUser: %v", got.rep.Attempts[0].Action)
				assert.Contains(t, act.Prompt, "this tool is not idempotent")
			},
		},
		{
			name: "a human's refusal of the effect guard's question reads declined", call: charge,
			opts:     []reflection.Option{effectIs(reflection.EffectNonIdempotent)},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("the payment gateway timed out"), reflectiontest.Succeed("charged")},
			analyses: []reflection.FailureAnalysis{recoverable("a timeout")},
			answers:  []reflection.Answer{{Reply: "check the gateway first"}},
			outcome:  reflection.OutcomeAskedUser, reason: reflection.ReasonDeclined, calls: 1,
		},
		{
			name: "retries a non-idempotent tool whose failure had no effect", call: charge,
			opts: []reflection.Option{effectIs(reflection.EffectNonIdempotent)},
			tool: []reflectiontest.Outcome{
				reflectiontest.Error(fmt.Errorf("refused before sending: %w", reflection.ErrNoEffect)), reflectiontest.Succeed("charged"),
			},
			analyses: []reflection.FailureAnalysis{recoverable("nothing was sent")},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
		},
		{
			name: "does not retry a non-idempotent tool whose failure joins one that may have acted", call: charge,
			opts: []reflection.Option{effectIs(reflection.EffectNonIdempotent)},
			tool: []reflectiontest.Outcome{
				reflectiontest.Error(errors.Join(reflection.ErrNoEffect, errors.New("the reply was lost"))), reflectiontest.Succeed("charged"),
			},
			analyses: []reflection.FailureAnalysis{recoverable("half sent")},
			outcome:  reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
		},
		{
			name: "retries a keyed tool unchanged", call: charge,
			opts:     []reflection.Option{effectIs(reflection.EffectKeyed)},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("the payment gateway timed out"), reflectiontest.Succeed("charged once")},
			analyses: []reflection.FailureAnalysis{recoverable("a timeout")},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
		},
		{
			name: "does not retry a keyed tool with a changed input", call: charge,
			opts:     []reflection.Option{effectIs(reflection.EffectKeyed)},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("amount rejected"), reflectiontest.Succeed("charged")},
			analyses: []reflection.FailureAnalysis{inputFix(json.RawMessage(`{"cents":1100}`))},
			outcome:  reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.res.Content, "under the same idempotency key")
			},
		},
		{
			name: "ends a correction loop", call: readCall,
			opts:     []reflection.Option{reflection.WithLoopGuard()},
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("no such file: a.txt"), reflectiontest.Fail("no such file: b.txt")},
			analyses: []reflection.FailureAnalysis{inputFix(fixed), inputFix(readCall.Input)},
			outcome:  reflection.OutcomeFailed, reason: reflection.ReasonCorrectionLoop, calls: 2,
		},
		{
			name: "refuses a wait past the deadline", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Error(rateLimited{after: 50 * time.Second}), reflectiontest.Succeed("ok")},
			analyses: []reflection.FailureAnalysis{recoverable("rate limited")},
			deadline: 30 * time.Second,
			outcome:  reflection.OutcomeStopped, reason: reflection.ReasonDeadline, calls: 1,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				var refused *reflection.WaitPastDeadlineError
				require.ErrorAs(t, got.err, &refused)
				assert.Equal(t, 50*time.Second, refused.Delay)
				requireHardError(t, got.err, rt.ErrorTypeDeadline,
					"reflection: retry in 50s would end past the context deadline: context deadline exceeded")
			},
		},
		{
			name: "an approval's input runs", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Error(os.ErrPermission), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{permissionDenied},
			answers:  []reflection.Answer{{Approve: true, Input: fixed}},
			outcome:  reflection.OutcomeSucceeded, calls: 2,
			check: func(t *testing.T, _ ran, tool *reflectiontest.Tool) {
				assert.JSONEq(t, string(fixed), string(tool.Calls()[1].Input))
			},
		},
		{
			name: "an input without an approval is a refusal", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Error(os.ErrPermission), reflectiontest.Succeed("contents")},
			analyses: []reflection.FailureAnalysis{permissionDenied},
			answers:  []reflection.Answer{{Input: fixed, Reply: "not that file either"}},
			outcome:  reflection.OutcomeAskedUser, reason: reflection.ReasonDeclined, calls: 1,
		},
	}
}

// reflector returns the scenario's Reflector.
func (s scenario) reflector() reflection.Reflector {
	if s.reflect == nil {
		return reflectiontest.NewReflector(s.analyses...)
	}
	return reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return s.reflect(f), nil
	})
}

// asker answers with answers, in order, and fails once they run out.
func asker(answers []reflection.Answer) reflection.Asker {
	var mu sync.Mutex
	next := 0
	return reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(answers) {
			return reflection.Answer{}, errors.New("no answer left")
		}
		next++
		return answers[next-1], nil
	})
}

// runDriver runs the scenario through Driver.RunWithReport, on a fake clock
// so that waits take no time.
func (s scenario) runDriver(t *testing.T) ran {
	t.Helper()
	var want ran
	synctest.Test(t, func(t *testing.T) {
		tool := reflectiontest.NewTool(s.tool...)
		opts := s.driverOptions(s.reflector())
		if s.answers != nil {
			opts = append(opts, reflection.WithAsker(asker(s.answers)))
		}
		ctx := context.Background()
		if s.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.deadline)
			defer cancel()
		}
		want.rep, want.err = reflection.NewDriver(opts...).RunWithReport(ctx, s.call, tool.Dispatch)
		want.res = want.rep.Result
	})
	return want
}

// runTemporal runs the scenario through Run in a workflow, with the
// Reflector as an activity or, with inWorkflow, in workflow code (the
// activity then fails the test if it runs). A human's answers arrive as
// Updates, an hour apart.
func (s scenario) runTemporal(t *testing.T, inWorkflow bool) (ran, *reflectiontest.Tool) {
	t.Helper()
	tool := reflectiontest.NewTool(s.tool...)
	activityReflector := s.reflector()
	var opts []rt.Option
	if inWorkflow {
		activityReflector = reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			t.Error("the Reflector activity ran")
			return reflection.FailureAnalysis{}, errors.New("the Reflector activity ran")
		})
		opts = append(opts, rt.WithWorkflowReflector(s.reflector()))
	}
	h := newHarness(t, tool.Dispatch, activityReflector)
	if s.deadline > 0 {
		h.env.SetWorkflowRunTimeout(s.deadline)
	}
	if s.answers != nil {
		opts = append(opts, rt.WithAsk(24*time.Hour))
		for i, ans := range s.answers {
			h.at(time.Duration(i+1)*time.Hour, func() {
				if h.query(s.call.ID).State == rt.StateAsking {
					h.answer(s.call.ID, ans)
				}
			})
		}
	}
	return h.run(reflection.NewDriver(s.driverOptions(nil)...), s.call, opts...), tool
}

// matchDriver runs every scenario through both runtimes of the machine: Run
// in a workflow must return what Driver.RunWithReport returns, and the same
// report (outcome and Reason included), times aside.
func matchDriver(t *testing.T, inWorkflow bool) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			want := sc.runDriver(t)
			got, tool := sc.runTemporal(t, inWorkflow)

			assert.Equal(t, want.res, got.res)
			assert.Equal(t, withoutTimes(want.rep), withoutTimes(got.rep))
			if want.err == nil {
				assert.NoError(t, got.err)
			} else {
				// Run's hard error wraps Driver.Run's in a non-retryable
				// application error.
				require.Error(t, got.err)
				assert.Equal(t, want.err.Error(), errors.Unwrap(got.err).Error())
			}
			assert.Equal(t, sc.outcome, got.rep.Outcome, reflectiontest.Summary(got.rep))
			assert.Equal(t, sc.reason, got.rep.Reason, "the Reason")
			assert.Equal(t, want.rep.Reason, got.rep.Reason, "the Reason, as Driver.Run's")
			assert.Len(t, tool.Calls(), sc.calls)
			assert.Len(t, got.rep.Attempts, sc.calls)
			if sc.check != nil {
				sc.check(t, got, tool)
			}
		})
	}
}

// TestRunMatchesDriver runs every scenario through both runtimes, with the
// Reflector as an activity.
func TestRunMatchesDriver(t *testing.T) { matchDriver(t, false) }
