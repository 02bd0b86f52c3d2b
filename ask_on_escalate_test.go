package reflection_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/loopctl-go/reflection/rules"
)

// ExponentialBackoff.WithAskOnEscalate: an escalation a human can answer.

// sfReferenceDecide is the backoff's Decide as the contract words it: the
// four rules of the port, with rule 1 answering AskUser for an Escalate when
// askOnEscalate is set.
func sfReferenceDecide(b reflection.ExponentialBackoff, askOnEscalate bool, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
	limit := min(b.MaxRetries(), maxAttempts-1)
	if limit < 0 {
		limit = 0
	}
	switch {
	case !a.IsRecoverable:
		if askOnEscalate && a.Correction != nil && a.Correction.Type == reflection.Escalate {
			if a.Correction.Guidance != "" {
				return reflection.AskUser{Prompt: a.Correction.Guidance}
			}
			return reflection.AskUser{Prompt: a.Correction.Description}
		}
		return reflection.Fail{Reason: a.RootCause}
	case attempt >= limit:
		return reflection.Fail{Reason: fmt.Sprintf("max retries (%d) exceeded", limit)}
	case a.Severity >= reflection.SeverityHigh && a.Correction != nil:
		return reflection.AskUser{Prompt: "high-severity failure with correction available: " + a.RootCause}
	default:
		return reflection.Retry{Delay: b.DelayFor(attempt)}
	}
}

func TestAskOnEscalateDecide(t *testing.T) {
	escalate := func(guidance, description string) *reflection.Correction {
		return &reflection.Correction{Type: reflection.Escalate, Guidance: guidance, Description: description}
	}
	notRecoverable := func(c *reflection.Correction) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{RootCause: "credentials rejected", Severity: reflection.SeverityHigh, Correction: c}
	}
	recoverable := func(sev reflection.Severity, c *reflection.Correction) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "flaky", Severity: sev, Correction: c}
	}
	tests := []struct {
		name    string
		a       reflection.FailureAnalysis
		attempt int
		with    reflection.RecoveryAction // WithAskOnEscalate
		without reflection.RecoveryAction
	}{
		{"escalate with guidance", notRecoverable(escalate("rotate the API key", "the key was rejected")), 0,
			reflection.AskUser{Prompt: "rotate the API key"}, reflection.Fail{Reason: "credentials rejected"}},
		{"escalate without guidance", notRecoverable(escalate("", "the key was rejected")), 0,
			reflection.AskUser{Prompt: "the key was rejected"}, reflection.Fail{Reason: "credentials rejected"}},
		{"escalate with neither", notRecoverable(escalate("", "")), 0,
			reflection.AskUser{Prompt: ""}, reflection.Fail{Reason: "credentials rejected"}},
		{"escalate past the limit", notRecoverable(escalate("rotate the API key", "")), 5,
			reflection.AskUser{Prompt: "rotate the API key"}, reflection.Fail{Reason: "credentials rejected"}},
		{"not recoverable, input fix", notRecoverable(sfInputFix(`{}`)), 0,
			reflection.Fail{Reason: "credentials rejected"}, reflection.Fail{Reason: "credentials rejected"}},
		{"not recoverable, approach change", notRecoverable(&reflection.Correction{Type: reflection.ApproachChange, Guidance: "use another"}), 0,
			reflection.Fail{Reason: "credentials rejected"}, reflection.Fail{Reason: "credentials rejected"}},
		{"not recoverable, no correction", notRecoverable(nil), 0,
			reflection.Fail{Reason: "credentials rejected"}, reflection.Fail{Reason: "credentials rejected"}},
		{"recoverable escalate, low", recoverable(reflection.SeverityLow, escalate("g", "d")), 1,
			reflection.Retry{Delay: 200 * time.Millisecond}, reflection.Retry{Delay: 200 * time.Millisecond}},
		{"recoverable escalate, high", recoverable(reflection.SeverityHigh, escalate("g", "d")), 0,
			reflection.AskUser{Prompt: "high-severity failure with correction available: flaky"},
			reflection.AskUser{Prompt: "high-severity failure with correction available: flaky"}},
		{"recoverable escalate, past the limit", recoverable(reflection.SeverityLow, escalate("g", "d")), 3,
			reflection.Fail{Reason: "max retries (3) exceeded"}, reflection.Fail{Reason: "max retries (3) exceeded"}},
	}
	plain := reflection.NewExponentialBackoff(3)
	asking := plain.WithAskOnEscalate()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.with, asking.Decide(context.Background(), tt.a, tt.attempt, 6), "with WithAskOnEscalate")
			assert.Equal(t, tt.without, plain.Decide(context.Background(), tt.a, tt.attempt, 6), "without")
		})
	}
}

// TestAskOnEscalateGrid checks every analysis shape at every attempt against
// the contract's rules, with and without the option: only a failure that is
// not recoverable, with an Escalate, changes.
func TestAskOnEscalateGrid(t *testing.T) {
	corrections := []*reflection.Correction{
		nil,
		{Type: reflection.InputFix, ModifiedInput: []byte(`{}`)},
		{Type: reflection.ToolChange, AlternativeTool: "b"},
		{Type: reflection.PrerequisiteFix, Guidance: "g"},
		{Type: reflection.ApproachChange, Guidance: "g"},
		{Type: reflection.Escalate, Guidance: "call the admin", Description: "denied"},
		{Type: reflection.Escalate, Description: "denied"},
	}
	bases := []reflection.ExponentialBackoff{
		reflection.NewExponentialBackoff(3),
		reflection.NewExponentialBackoff(0),
		reflection.NewExponentialBackoff(10).WithBaseDelay(time.Second).WithMaxDelay(5 * time.Second),
	}
	for bi, base := range bases {
		asking := base.WithAskOnEscalate()
		for _, rec := range []bool{false, true} {
			for sev := reflection.SeverityLow; sev <= reflection.SeverityCritical; sev++ {
				for ci, c := range corrections {
					for attempt := 0; attempt <= 6; attempt++ {
						a := reflection.FailureAnalysis{IsRecoverable: rec, RootCause: "cause", Severity: sev, Correction: c}
						name := fmt.Sprintf("base %d, recoverable %v, %v, correction %d, attempt %d", bi, rec, sev, ci, attempt)
						assert.Equal(t, sfReferenceDecide(base, false, a, attempt, 6), base.Decide(context.Background(), a, attempt, 6), "without: %s", name)
						assert.Equal(t, sfReferenceDecide(base, true, a, attempt, 6), asking.Decide(context.Background(), a, attempt, 6), "with: %s", name)
					}
				}
			}
		}
	}
}

// TestAskOnEscalateIsAValue checks that the option returns a copy that keeps
// every other setting, and leaves the original as it was.
func TestAskOnEscalateIsAValue(t *testing.T) {
	base := reflection.NewExponentialBackoff(4).WithBaseDelay(time.Second).WithMaxDelay(8 * time.Second)
	asking := base.WithAskOnEscalate()
	assert.Equal(t, 4, asking.MaxRetries())
	assert.Equal(t, time.Second, asking.BaseDelay())
	assert.Equal(t, 8*time.Second, asking.MaxDelay())
	a := reflection.FailureAnalysis{RootCause: "denied", Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask"}}
	assert.Equal(t, reflection.Fail{Reason: "denied"}, base.Decide(context.Background(), a, 0, 6), "the original changed")
	assert.Equal(t, reflection.AskUser{Prompt: "ask"}, asking.Decide(context.Background(), a, 0, 6))
}

// sfStatusError is an HTTP client's error with a status code.
type sfStatusError struct {
	code int
	text string
}

func (e sfStatusError) Error() string   { return e.text }
func (e sfStatusError) StatusCode() int { return e.code }

// TestAskOnEscalateEndToEnd checks the point of the option: the stock rules
// escalate a 401, and a Driver with an Asker now asks a human.
func TestAskOnEscalateEndToEnd(t *testing.T) {
	unauthorized := sfStatusError{code: 401, text: "401 Unauthorized: invalid API key"}
	tests := []struct {
		name    string
		option  bool
		answer  reflection.Answer
		asked   int
		calls   int
		outcome reflection.Outcome
		reason  reflection.Reason
	}{
		{"without the option", false, reflection.Answer{}, 0, 1, reflection.OutcomeFailed, reflection.ReasonStrategy},
		{"declined", true, reflection.Answer{Reply: "I will rotate it"}, 1, 1, reflection.OutcomeAskedUser, reflection.ReasonDeclined},
		{"approved", true, reflection.Answer{Approve: true}, 1, 2, reflection.OutcomeSucceeded, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			strategy := reflection.NewExponentialBackoff(3)
			if tt.option {
				strategy = strategy.WithAskOnEscalate()
			}
			asker := &sfAsker{ans: tt.answer}
			tool := reflectiontest.NewTool(reflectiontest.Error(unauthorized), reflectiontest.Succeed("ok"))
			d := reflection.NewDriver(
				reflection.WithReflector(rules.New(rules.Defaults()...)),
				reflection.WithStrategy(strategy),
				reflection.WithAsker(asker),
			)
			rep, err := d.RunWithReport(context.Background(), sfCall("list_repos", `{"org":"acme"}`), tool.Dispatch)
			require.NoError(t, err)
			qs := asker.asked()
			assert.Len(t, qs, tt.asked, "asked")
			assert.Len(t, tool.Calls(), tt.calls, "dispatches")
			assert.Equal(t, tt.outcome, rep.Outcome)
			assert.Equal(t, tt.reason, rep.Reason)
			if len(qs) == 0 {
				return
			}
			q := qs[0]
			require.NotNil(t, q.Analysis.Correction, "the rules' analysis")
			assert.False(t, q.Analysis.IsRecoverable, "the rules call a 401 recoverable")
			assert.Equal(t, reflection.Escalate, q.Analysis.Correction.Type)
			want := q.Analysis.Correction.Guidance
			if want == "" {
				want = q.Analysis.Correction.Description
			}
			assert.Equal(t, want, q.Prompt, "the prompt is the escalation's guidance")
			assert.NotEmpty(t, q.Prompt)
		})
	}
}
