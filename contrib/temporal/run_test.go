package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	outcome  reflection.Outcome
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
	return []scenario{
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
			outcome:  reflection.OutcomeSkipped, calls: 1,
		},
		{
			name: "asks the user without WithAsk", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("permission denied")},
			analyses: []reflection.FailureAnalysis{recoverable("no access")},
			strategy: []reflection.RecoveryAction{reflection.AskUser{Prompt: "grant access?"}},
			outcome:  reflection.OutcomeAskedUser, calls: 1,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.res.Content, "A human decision is needed before this call can be retried: grant access?")
			},
		},
		{
			name: "fails an unrecoverable failure", call: readCall,
			tool:     []reflectiontest.Outcome{reflectiontest.Fail("invalid path")},
			analyses: []reflection.FailureAnalysis{{RootCause: "the path is invalid", Severity: reflection.SeverityMedium}},
			outcome:  reflection.OutcomeFailed, calls: 1,
		},
		{
			name: "fails when the reflector fails", call: readCall,
			tool:    []reflectiontest.Outcome{reflectiontest.Fail("boom")},
			outcome: reflection.OutcomeFailed, calls: 1,
			check: func(t *testing.T, got ran, _ *reflectiontest.Tool) {
				assert.Contains(t, got.rep.Attempts[0].ReflectorError, "reflector asked 1 times")
			},
		},
		{
			name: "fails when the reflector panics", call: readCall,
			tool:    []reflectiontest.Outcome{reflectiontest.Fail("boom")},
			reflect: func(reflection.Failure) reflection.FailureAnalysis { panic("reflector bug") },
			outcome: reflection.OutcomeFailed, calls: 1,
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
			outcome:  reflection.OutcomeFailed, calls: 1,
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
			outcome: reflection.OutcomeExhausted, calls: 6,
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

// TestRunMatchesDriver runs every scenario through both runtimes of the
// machine: Run in a workflow must return what Driver.RunWithReport returns,
// and the same report, times aside.
func TestRunMatchesDriver(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			// Driver.Run, on a fake clock so that waits take no time.
			var want ran
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(sc.tool...)
				d := reflection.NewDriver(sc.driverOptions(sc.reflector())...)
				want.rep, want.err = d.RunWithReport(context.Background(), sc.call, tool.Dispatch)
				want.res = want.rep.Result
			})

			tool := reflectiontest.NewTool(sc.tool...)
			h := newHarness(t, tool.Dispatch, sc.reflector())
			got := h.run(sc.call, rt.WithDriver(reflection.NewDriver(sc.driverOptions(nil)...)))

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
			assert.Len(t, tool.Calls(), sc.calls)
			assert.Len(t, got.rep.Attempts, sc.calls)
			if sc.check != nil {
				sc.check(t, got, tool)
			}
		})
	}
}
