package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestRecoveryNotes: with WithRecoveryNotes the model learns what recovery
// did, for each ending; without it, Content is exactly as Run's rules say.
func TestRecoveryNotes(t *testing.T) {
	fix := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"b"}`)}
	advice := &reflection.Correction{Type: reflection.Escalate, Guidance: "ask the admin for access"}
	failing := reflectiontest.Fail("permission denied")
	tests := []struct {
		name     string
		tool     []reflectiontest.Outcome
		answers  []reflection.FailureAnalysis
		actions  []reflection.RecoveryAction
		asker    reflection.Asker
		plain    string // Content without notes
		withNote string // Content with notes
	}{
		{
			name: "success after a correction", tool: []reflectiontest.Outcome{failing, reflectiontest.Succeed("contents")},
			answers: []reflection.FailureAnalysis{recoverableWith(fix)}, actions: []reflection.RecoveryAction{reflection.Retry{}},
			plain: "contents",
			withNote: "contents\n\nRecovery note: this result came from tool \"read_file\" called with input {\"path\":\"b\"}, " +
				"not from the call as it was first made.",
		},
		{
			name: "success after a retry without correction", tool: []reflectiontest.Outcome{failing, reflectiontest.Succeed("contents")},
			answers: []reflection.FailureAnalysis{recoverableWith(nil)}, actions: []reflection.RecoveryAction{reflection.Retry{}},
			plain: "contents", withNote: "contents",
		},
		{
			name: "success at once", tool: []reflectiontest.Outcome{reflectiontest.Succeed("contents")},
			plain: "contents", withNote: "contents",
		},
		{
			name: "skip with guidance", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{RootCause: "no access to /etc", Correction: advice}},
			actions: []reflection.RecoveryAction{reflection.Skip{Reason: "x"}},
			plain:   "permission denied",
			withNote: "permission denied\n\nRecovery note: root cause: no access to /etc\n" +
				"Recovery note: guidance (escalate): ask the admin for access",
		},
		{
			name: "fail: root cause only", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{RootCause: "no access"}},
			actions: []reflection.RecoveryAction{reflection.Fail{Reason: "x"}},
			plain:   "permission denied", withNote: "permission denied\n\nRecovery note: root cause: no access",
		},
		{
			name: "fail: an InputFix gives no guidance", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{RootCause: "typo", Correction: &reflection.Correction{Type: reflection.InputFix, Guidance: "g"}}},
			actions: []reflection.RecoveryAction{reflection.Fail{Reason: "x"}},
			plain:   "permission denied", withNote: "permission denied\n\nRecovery note: root cause: typo",
		},
		{
			name: "fail: the reflector broke, no analysis to tell", tool: []reflectiontest.Outcome{failing},
			plain: "permission denied", withNote: "permission denied",
		},
		{
			name: "fail: the last analysis that answered", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{IsRecoverable: true, RootCause: "first cause", Correction: advice}},
			actions: []reflection.RecoveryAction{reflection.Retry{}},
			plain:   "permission denied",
			withNote: "permission denied\n\nRecovery note: root cause: first cause\n" +
				"Recovery note: guidance (escalate): ask the admin for access",
		},
		{
			name: "ask user", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{RootCause: "no access", Correction: advice}},
			actions: []reflection.RecoveryAction{reflection.AskUser{Prompt: "grant access?"}},
			plain:   "permission denied\n\nA human decision is needed before this call can be retried: grant access?",
			withNote: "permission denied\n\nA human decision is needed before this call can be retried: grant access?\n\n" +
				"Recovery note: root cause: no access\nRecovery note: guidance (escalate): ask the admin for access",
		},
		{
			name: "declined, with a reply", tool: []reflectiontest.Outcome{failing},
			answers: []reflection.FailureAnalysis{{RootCause: "no access"}},
			actions: []reflection.RecoveryAction{reflection.AskUser{Prompt: "grant access?"}},
			asker: reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
				return reflection.Answer{Reply: "use /tmp instead"}, nil
			}),
			plain: "permission denied\n\nA human decision is needed before this call can be retried: grant access?\n\n" +
				"A human declined to retry this call.\n\nuse /tmp instead",
			withNote: "permission denied\n\nA human decision is needed before this call can be retried: grant access?\n\n" +
				"A human declined to retry this call.\n\nuse /tmp instead\n\nRecovery note: root cause: no access",
		},
		{
			name: "approved with the human's input", tool: []reflectiontest.Outcome{failing, reflectiontest.Succeed("written")},
			answers: []reflection.FailureAnalysis{{RootCause: "no access"}},
			actions: []reflection.RecoveryAction{reflection.AskUser{Prompt: "grant access?"}},
			asker: reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
				return reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/tmp/x"}`)}, nil
			}),
			plain: "written",
			withNote: "written\n\nRecovery note: this result came from tool \"read_file\" called with input {\"path\":\"/tmp/x\"}, " +
				"not from the call as it was first made.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, notes := range []bool{false, true} {
				opts := []reflection.Option{
					reflection.WithReflector(reflectiontest.NewReflector(tt.answers...)),
					reflection.WithStrategy(reflectiontest.NewStrategy(tt.actions...)),
					reflection.WithAsker(tt.asker),
				}
				if notes {
					opts = append(opts, reflection.WithRecoveryNotes())
				}
				res, err := reflection.NewDriver(opts...).Run(context.Background(), fixCall, reflectiontest.NewTool(tt.tool...).Dispatch)
				require.NoError(t, err)
				want := tt.plain
				if notes {
					want = tt.withNote
				}
				assert.Equal(t, want, res.Content, "notes %v", notes)
			}
		})
	}
}

// TestRecoveryNotesLeaveHardErrorsAlone: a hard stop carries the failure
// text only, notes or not.
func TestRecoveryNotesLeaveHardErrorsAlone(t *testing.T) {
	var answers []reflection.FailureAnalysis
	var actions []reflection.RecoveryAction
	for range reflection.MaxRecoveryAttempts + 1 {
		answers = append(answers, reflection.FailureAnalysis{IsRecoverable: true, RootCause: "cause"})
		actions = append(actions, reflection.Retry{})
	}
	d := reflection.NewDriver(reflection.WithRecoveryNotes(),
		reflection.WithReflector(reflectiontest.NewReflector(answers...)),
		reflection.WithStrategy(reflectiontest.NewStrategy(actions...)))
	res, err := d.Run(context.Background(), fixCall, reflectiontest.NewTool(reflectiontest.Fail("boom")).Dispatch)
	require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
	assert.Equal(t, "boom", res.Content)
}

// TestFailureErrReachesEveryone: the error dispatch returned is in
// Failure.Err for the Reflector, the observer and the question, and its
// type is in the logs.
func TestFailureErrReachesEveryone(t *testing.T) {
	type statusErr struct{ error }
	cause := &statusErr{errors.New("HTTP 503")}
	var seen []error
	refl := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		seen = append(seen, f.Err)
		return reflection.FailureAnalysis{RootCause: "busy"}, nil
	})
	var observed error
	logs, logger := newLogBuffer()
	d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithLogger(logger),
		reflection.WithObserver(reflection.Observer{Analyzed: func(_ context.Context, f reflection.Failure, _ reflection.FailureAnalysis, _ error) {
			observed = f.Err
		}}))
	_, err := d.Run(context.Background(), fixCall, reflectiontest.NewTool(reflectiontest.Error(cause)).Dispatch)
	require.NoError(t, err)
	require.Len(t, seen, 1)
	assert.Same(t, cause, seen[0])
	assert.Same(t, cause, observed)
	decisions := logs.Find(t, "INFO", "reflection: recovery decision")
	require.Len(t, decisions, 1)
	assert.Equal(t, "*reflection_test.statusErr", decisions[0].ErrorType)
	assert.Empty(t, decisions[0].Failure, "the failure text is not logged at Info by default")
}

// TestJoinObservers: every set hook of each observer runs, in order; a hook
// no observer sets stays unset.
func TestJoinObservers(t *testing.T) {
	var got []string
	a := reflection.Observer{
		DispatchStart: func(context.Context, int, reflection.ToolCall) { got = append(got, "a.start") },
		Finished:      func(context.Context, int, reflection.ToolResult, error) { got = append(got, "a.finished") },
	}
	b := reflectiontest.NewRecorder()
	j := reflection.JoinObservers(a, reflection.Observer{}, b.Observer())
	assert.Nil(t, reflection.JoinObservers(a).Analyzed, "an unset hook stays unset")
	assert.NotNil(t, j.Analyzed)
	_, err := reflection.NewDriver(reflection.WithObserver(j)).Run(context.Background(), fixCall,
		reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.start", "a.finished"}, got)
	assert.Equal(t, []string{`dispatch 0 read_file {"path":"a"}`, "succeeded 0", "finished: 1 calls, ok"}, b.Events())
	empty := reflection.JoinObservers()
	assert.Nil(t, empty.DispatchStart)
}
