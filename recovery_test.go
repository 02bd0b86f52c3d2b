package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

var fixCall = reflection.ToolCall{ID: "call-9", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}

// recoverable is an analysis that a retry can fix, with an optional
// correction.
func recoverableWith(c *reflection.Correction) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "flaky", Severity: reflection.SeverityLow, Correction: c}
}

// TestRecoveryByHand drives the machine through a retry with an InputFix,
// one step at a time, as any runtime would.
func TestRecoveryByHand(t *testing.T) {
	fix := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"b"}`)}
	d := reflection.NewDriver(reflection.WithStrategy(reflection.NewExponentialBackoff(3)))
	r := d.NewRecovery(reflection.ContextWithTask(context.Background(), "read notes"), fixCall)

	assert.Equal(t, reflection.DispatchStep{Attempt: 0, Call: fixCall}, r.Next())
	assert.Equal(t, r.Next(), r.Next(), "Next changes nothing")
	r.Dispatched(reflection.ToolResult{Content: "no such file", IsError: true}, nil)

	step, ok := r.Next().(reflection.AnalyzeStep)
	require.True(t, ok, "after a failure the machine asks for an analysis")
	assert.Equal(t, reflection.Failure{
		Error: "no such file", Tool: "read_file", Input: fixCall.Input, Task: "read notes",
		Attempt: 0, MaxAttempts: reflection.MaxRecoveryAttempts + 1,
	}, step.Failure)
	r.Analyzed(recoverableWith(fix), nil)

	assert.Equal(t, reflection.WaitStep{Attempt: 0, Delay: 100 * time.Millisecond}, r.Next())
	assert.Equal(t, reflection.Retry{Delay: 100 * time.Millisecond}, r.Action())
	r.Waited()

	want := fixCall
	want.Input = fix.ModifiedInput
	assert.Equal(t, reflection.DispatchStep{Attempt: 1, Call: want}, r.Next())
	r.Dispatched(reflection.ToolResult{ID: "tool-id", Content: "notes"}, nil)

	assert.Equal(t, reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "notes"}}, r.Next())
	assert.Equal(t, reflection.OutcomeSucceeded, r.Outcome())
	assert.Equal(t, 2, r.Calls())
	rep := r.Report()
	assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome)
	require.Len(t, rep.Attempts, 2)
	assert.Equal(t, []reflection.CorrectionRecord{{Correction: *fix, Applied: true}}, rep.Attempts[0].Corrections)
}

// TestRecoveryMisuse: a result that does not answer the current step is a
// runtime bug, and the panic names both the method and the step.
func TestRecoveryMisuse(t *testing.T) {
	failing := func(r *reflection.Recovery) { r.Dispatched(reflection.ToolResult{IsError: true, Content: "x"}, nil) }
	tests := []struct {
		name  string
		setup func(*reflection.Recovery)
		call  func(*reflection.Recovery)
		want  string
	}{
		{"Analyzed before any dispatch", func(*reflection.Recovery) {},
			func(r *reflection.Recovery) { r.Analyzed(reflection.FailureAnalysis{}, nil) },
			"reflection: Recovery.Analyzed called, but the current step is a DispatchStep (answer it with Dispatched)"},
		{"Dispatched twice after a failure", failing,
			func(r *reflection.Recovery) { r.Dispatched(reflection.ToolResult{}, nil) },
			"reflection: Recovery.Dispatched called, but the current step is an AnalyzeStep (answer it with Analyzed)"},
		{"Waited with no wait", failing,
			func(r *reflection.Recovery) { r.Waited() },
			"reflection: Recovery.Waited called, but the current step is an AnalyzeStep (answer it with Analyzed)"},
		{"Answered with no question", func(r *reflection.Recovery) {
			failing(r)
			r.Analyzed(recoverableWith(nil), nil)
		}, func(r *reflection.Recovery) { r.Answered(reflection.Answer{}, nil) },
			"reflection: Recovery.Answered called, but the current step is a WaitStep (answer it with Waited)"},
		{"Dispatched after the end", func(r *reflection.Recovery) {
			r.Dispatched(reflection.ToolResult{Content: "ok"}, nil)
		}, func(r *reflection.Recovery) { r.Dispatched(reflection.ToolResult{}, nil) },
			"reflection: Recovery.Dispatched called, but the current step is a DoneStep (the loop has ended)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := reflection.NewDriver(reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})))
			r := d.NewRecovery(context.Background(), fixCall)
			tt.setup(r)
			assert.PanicsWithValue(t, tt.want, func() { tt.call(r) })
		})
	}
}

// TestRecoveryStop: Stop ends the loop with the cancel's DoneStep at any
// point, wins over a soft end or an exhaustion not yet returned, and never
// over a success or a DoneStep already returned.
func TestRecoveryStop(t *testing.T) {
	stop := fmt.Errorf("runtime: %w", context.Canceled)
	fail := reflection.ToolResult{Content: "boom", IsError: true}
	tests := []struct {
		name    string
		before  func(*reflection.Recovery)
		want    reflection.DoneStep
		outcome reflection.Outcome
	}{
		{"before the first call", func(*reflection.Recovery) {},
			reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: stop.Error(), IsError: true}, Err: stop},
			reflection.OutcomeStopped},
		{"during the analysis", func(r *reflection.Recovery) { r.Dispatched(fail, nil) },
			reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "boom", IsError: true}, Err: stop},
			reflection.OutcomeStopped},
		{"over a soft end not yet returned", func(r *reflection.Recovery) {
			r.Dispatched(fail, nil)
			r.Analyzed(reflection.FailureAnalysis{RootCause: "no"}, nil)
		}, reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "boom", IsError: true}, Err: stop},
			reflection.OutcomeStopped},
		{"not over a success", func(r *reflection.Recovery) { r.Dispatched(reflection.ToolResult{Content: "ok"}, nil) },
			reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "ok"}},
			reflection.OutcomeSucceeded},
		{"not after the DoneStep was returned", func(r *reflection.Recovery) {
			r.Dispatched(fail, nil)
			r.Analyzed(reflection.FailureAnalysis{RootCause: "no"}, nil)
			r.Next()
		}, reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "boom", IsError: true}},
			reflection.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reflection.NewDriver().NewRecovery(context.Background(), fixCall)
			tt.before(r)
			r.Stop(stop)
			assert.Equal(t, tt.want, r.Next())
			assert.Equal(t, tt.outcome, r.Outcome())
			assert.Equal(t, tt.outcome, r.Report().Outcome)
		})
	}
	t.Run("exhaustion not yet returned", func(t *testing.T) {
		r := reflection.NewDriver(reflection.WithStrategy(reflectiontest.NewStrategy(
			reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.Retry{}, reflection.Retry{},
		))).NewRecovery(context.Background(), fixCall)
		for range reflection.MaxRecoveryAttempts + 1 {
			if _, ok := r.Next().(reflection.WaitStep); ok {
				r.Waited()
			}
			r.Dispatched(fail, nil)
			r.Analyzed(recoverableWith(nil), nil)
		}
		assert.Equal(t, reflection.OutcomeExhausted, r.Outcome())
		r.Stop(stop)
		assert.Equal(t, reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "boom", IsError: true}, Err: stop}, r.Next())
	})
	t.Run("a nil error", func(t *testing.T) {
		r := reflection.NewDriver().NewRecovery(context.Background(), fixCall)
		r.Stop(nil)
		done := r.Next().(reflection.DoneStep)
		require.Error(t, done.Err)
		assert.Equal(t, "reflection: call stopped", done.Err.Error())
	})
}

// TestRunWithReportOutcomes: every way a call ends, through Run and
// RunWithReport alike: the same result and error, and the right Outcome.
func TestRunWithReportOutcomes(t *testing.T) {
	dead, cancelDead := context.WithCancel(context.Background())
	cancelDead()
	retryAll := func() []reflection.RecoveryAction {
		var acts []reflection.RecoveryAction
		for range reflection.MaxRecoveryAttempts + 1 {
			acts = append(acts, reflection.Retry{})
		}
		return acts
	}
	tests := []struct {
		name      string
		ctx       context.Context
		tool      []reflectiontest.Outcome
		answers   []reflection.FailureAnalysis // nil: the reflector fails
		actions   []reflection.RecoveryAction
		nilTool   bool
		outcome   reflection.Outcome
		wantCalls int
		wantErr   error
	}{
		{name: "succeeded", tool: []reflectiontest.Outcome{reflectiontest.Succeed("ok")}, outcome: reflection.OutcomeSucceeded, wantCalls: 1},
		{name: "succeeded after a retry", tool: []reflectiontest.Outcome{reflectiontest.Fail("x"), reflectiontest.Succeed("ok")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{reflection.Retry{}},
			outcome: reflection.OutcomeSucceeded, wantCalls: 2},
		{name: "skipped", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{reflection.Skip{Reason: "no"}},
			outcome: reflection.OutcomeSkipped, wantCalls: 1},
		{name: "asked user", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{reflection.AskUser{Prompt: "ok?"}},
			outcome: reflection.OutcomeAskedUser, wantCalls: 1},
		{name: "failed by the strategy", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{reflection.Fail{Reason: "no"}},
			outcome: reflection.OutcomeFailed, wantCalls: 1},
		{name: "failed: the reflector broke", tool: []reflectiontest.Outcome{reflectiontest.Error(errors.New("x"))},
			outcome: reflection.OutcomeFailed, wantCalls: 1},
		{name: "failed: an invalid action", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{&reflection.Retry{}},
			outcome: reflection.OutcomeFailed, wantCalls: 1},
		{name: "failed: a hint over the cap", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{{IsRecoverable: true, RetryAfter: time.Hour}}, actions: []reflection.RecoveryAction{reflection.Retry{}},
			outcome: reflection.OutcomeFailed, wantCalls: 1},
		{name: "exhausted", tool: []reflectiontest.Outcome{reflectiontest.Fail("x")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil), recoverableWith(nil), recoverableWith(nil), recoverableWith(nil), recoverableWith(nil), recoverableWith(nil)},
			actions: retryAll(), outcome: reflection.OutcomeExhausted, wantCalls: 6, wantErr: reflection.ErrToolRecoveryExhausted},
		{name: "stopped: ctx ended", ctx: dead, tool: []reflectiontest.Outcome{reflectiontest.Succeed("ok")},
			outcome: reflection.OutcomeStopped, wantCalls: 0, wantErr: context.Canceled},
		{name: "stopped: nil dispatch", nilTool: true, outcome: reflection.OutcomeStopped, wantErr: reflection.ErrNilDispatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := tt.ctx
				if ctx == nil {
					ctx = context.Background()
				}
				newDriver := func() *reflection.Driver {
					return reflection.NewDriver(
						reflection.WithReflector(reflectiontest.NewReflector(tt.answers...)),
						reflection.WithStrategy(reflectiontest.NewStrategy(tt.actions...)),
					)
				}
				run := func(d *reflection.Driver, report bool) (reflection.ToolResult, reflection.Report, error, *reflectiontest.Tool) {
					tool := reflectiontest.NewTool(tt.tool...)
					dispatch := tool.Dispatch
					if tt.nilTool {
						dispatch = nil
					}
					if report {
						rep, err := d.RunWithReport(ctx, fixCall, dispatch)
						return rep.Result, rep, err, tool
					}
					res, err := d.Run(ctx, fixCall, dispatch)
					return res, reflection.Report{}, err, tool
				}
				res, _, err, tool := run(newDriver(), false)
				repRes, rep, repErr, repTool := run(newDriver(), true)

				assert.Equal(t, res, repRes, "RunWithReport's result is Run's")
				assert.Equal(t, fmt.Sprint(err), fmt.Sprint(repErr), "RunWithReport's error is Run's")
				assert.Equal(t, tool.Calls(), repTool.Calls())
				reflectiontest.AssertOutcome(t, rep, tt.outcome)
				assert.Len(t, rep.Attempts, tt.wantCalls)
				assert.Len(t, tool.Calls(), tt.wantCalls)
				if tt.wantErr != nil {
					assert.ErrorIs(t, err, tt.wantErr)
					assert.Equal(t, err.Error(), rep.Error)
				} else {
					assert.NoError(t, err)
					assert.Empty(t, rep.Error)
				}
			})
		})
	}
}

// TestRunWithReportSixAttempts: the report of a run that uses up every
// attempt, with corrections applied and dropped, waits, and the times of
// the fake clock; it matches the golden file and survives JSON.
func TestRunWithReportSixAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tools := map[string]bool{"read_file": true, "cat": true}
		lookup := func(name string) (reflection.ToolSchema, bool) {
			return reflection.ToolSchema{Name: name}, tools[name]
		}
		answers := []reflection.FailureAnalysis{
			recoverableWith(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"b"}`)}),
			recoverableWith(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "rm_rf"}),
			recoverableWith(&reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "cat"}),
			recoverableWith(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`[1]`)}),
			recoverableWith(&reflection.Correction{Type: reflection.ApproachChange, Guidance: "try later"}),
			recoverableWith(nil),
		}
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(answers...)),
			reflection.WithStrategy(reflectiontest.NewStrategy(
				reflection.Retry{Delay: 100 * time.Millisecond}, reflection.Retry{Delay: 200 * time.Millisecond},
				reflection.Retry{Delay: 400 * time.Millisecond}, reflection.Retry{Delay: 800 * time.Millisecond},
				reflection.Retry{Delay: 1600 * time.Millisecond}, reflection.Retry{Delay: 3200 * time.Millisecond})),
			reflection.WithSchemas(lookup),
		)
		tool := reflectiontest.NewTool(reflectiontest.Fail("boom 1"), reflectiontest.Error(errors.New("boom 2")),
			reflectiontest.Fail("boom 3"), reflectiontest.Panic("boom 4"), reflectiontest.Fail("boom 5"), reflectiontest.Fail("boom 6"))
		start := time.Now().UTC()
		rep, err := d.RunWithReport(context.Background(), fixCall, tool.Dispatch)
		require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
		reflectiontest.AssertOutcome(t, rep, reflection.OutcomeExhausted)
		reflectiontest.AssertCallNames(t, tool, "read_file", "read_file", "read_file", "cat", "cat", "cat")

		// Times are the runtime's: here the fake clock, with the waits
		// 100ms, 200ms, 400ms, ... between the attempts.
		wantStart := start
		for i, a := range rep.Attempts {
			assert.Equal(t, wantStart, a.Start, "attempt %d start", i)
			assert.Equal(t, a.Start, a.End, "attempt %d takes no fake time", i)
			if a.Wait != nil {
				wantStart = wantStart.Add(a.Wait.Delay)
			}
		}
		assert.Equal(t, start.Add(3100*time.Millisecond), rep.Attempts[5].Start)

		// Compare with the golden file, with the times made relative.
		for i := range rep.Attempts {
			rep.Attempts[i].Start = time.Time{}.Add(rep.Attempts[i].Start.Sub(start))
			rep.Attempts[i].End = time.Time{}.Add(rep.Attempts[i].End.Sub(start))
		}
		got, err := json.MarshalIndent(rep, "", "  ")
		require.NoError(t, err)
		assertGolden(t, "testdata/report_six_attempts.json", got)

		var back reflection.Report
		require.NoError(t, json.Unmarshal(got, &back))
		assert.Equal(t, rep, back, "the report survives JSON")
		t.Log(reflectiontest.Summary(rep))
	})
}

// TestRecoveryNext: Next returns the same step until the runtime reports on
// it, and changes nothing while the call runs; returning the DoneStep is the
// one thing it changes: the ending is then final, so Stop and Refuse change
// nothing more.
func TestRecoveryNext(t *testing.T) {
	stop := fmt.Errorf("runtime: %w", context.Canceled)
	fail := reflection.ToolResult{Content: "boom", IsError: true}
	r := reflection.NewDriver(reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.Fail{Reason: "no"}))).
		NewRecovery(context.Background(), fixCall)
	for _, report := range []func(){
		func() { r.Dispatched(fail, nil) },
		func() { r.Analyzed(recoverableWith(nil), nil) },
		func() { r.Waited() },
		func() { r.Dispatched(fail, nil) },
		func() { r.Analyzed(recoverableWith(nil), nil) },
	} {
		first := r.Next()
		assert.Equal(t, first, r.Next(), "a second Next returns the same step")
		assert.Zero(t, r.Outcome(), "Next changes nothing while the call runs")
		report()
	}
	// The machine has decided (the strategy's Fail), but the DoneStep is not
	// yet returned: a Stop would still win. Once Next returns it, nothing does.
	done := r.Next()
	assert.Equal(t, reflection.DoneStep{Result: reflection.ToolResult{ID: "call-9", Content: "boom", IsError: true}}, done)
	r.Stop(stop)
	r.Refuse(reflection.ErrRetryBudget)
	assert.Equal(t, done, r.Next())
	assert.Equal(t, reflection.OutcomeFailed, r.Outcome())
	assert.Equal(t, reflection.ReasonStrategy, r.Reason())
}
