package rules

import (
	"fmt"

	"github.com/loopctl-go/reflection"
)

// Verdict is what a Rule answers when its Condition holds. Build one with
// Transient, Escalate, Skip, Answer or AnswerFunc. Every analysis a Verdict
// gives carries "rules: <rule name>" in its Context, unless an Answer or
// AnswerFunc set a Context of its own. The zero Verdict is invalid: New
// panics on it.
type Verdict struct {
	// compile binds the verdict to its rule once, at New.
	compile func(rule string) answerFunc
}

// answerFunc is a Verdict bound to its rule.
type answerFunc func(v *failureView) (reflection.FailureAnalysis, error)

// ruleContext is the Context of the analyses a rule gives.
func ruleContext(rule string) string { return "rules: " + rule }

// Transient answers that the failure is passing (a timeout, a rate limit, a
// server that is down for a moment): recoverable, SeverityLow, no
// correction, cause as the root cause, and RetryAfter set to the earliest
// retry the failure allows when it states one. That hint comes from a
// RetryAfter() time.Duration method of an error in Failure.Err's chain, else
// from the text: a Retry-After header or retry_after field ("Retry-After:
// 30", an HTTP date, "retry-after-ms: 2000"), Google's "retryDelay": "43s",
// a rate limit's reset header ("X-RateLimit-Reset-After: 1.5", or
// "X-RateLimit-Reset" in seconds or as a Unix time), Hugging Face's
// "estimated_time", or a sentence ("Please try again in 1.5s", "retry after
// 20 seconds", "Please retry in 2m30s", "resets in 3 minutes", "wait a few
// minutes", read as 3 minutes).
func Transient(cause string) Verdict {
	return Verdict{compile: func(rule string) answerFunc {
		ctx := ruleContext(rule)
		return func(v *failureView) (reflection.FailureAnalysis, error) {
			a := reflection.FailureAnalysis{
				IsRecoverable: true,
				RootCause:     cause,
				Severity:      reflection.SeverityLow,
				Context:       ctx,
			}
			if d, ok := v.retryAfter(); ok {
				a.RetryAfter = d
			}
			return a, nil
		}
	}}
}

// Escalate answers that a retry cannot fix the failure and a human must act
// (credentials, permissions, billing): not recoverable, SeverityHigh, cause
// as the root cause, and an Escalate correction that carries guidance.
func Escalate(cause, guidance string) Verdict {
	return Verdict{compile: func(rule string) answerFunc {
		ctx := ruleContext(rule)
		return func(*failureView) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{
				IsRecoverable: false,
				RootCause:     cause,
				Severity:      reflection.SeverityHigh,
				Correction: &reflection.Correction{
					Type:        reflection.Escalate,
					Description: cause,
					Guidance:    guidance,
				},
				Context: ctx,
			}, nil
		}
	}}
}

// TransientOnce answers Transient(cause) on a call's first failure
// (Failure.Attempt 0) and Escalate(cause, guidance) on any later one: for a
// failure that one retry usually cures and a second occurrence shows will
// not, such as an expired access token, which most clients replace on the
// next request. The analysis then depends on the attempt, so a cache that
// does not tell attempts apart (reflection.NewCache) belongs after this
// Reflector, not in front of it.
func TransientOnce(cause, guidance string) Verdict {
	first, later := Transient(cause), Escalate(cause, guidance)
	return Verdict{compile: func(rule string) answerFunc {
		onFirst, onLater := first.compile(rule), later.compile(rule)
		return func(v *failureView) (reflection.FailureAnalysis, error) {
			if v.f.Attempt <= 0 {
				return onFirst(v)
			}
			return onLater(v)
		}
	}}
}

// Skip declines the failure: Analyze returns an error wrapping
// reflection.ErrSkipped that names the rule and reason, and no later rule is
// asked. Use it to keep a failure that looks familiar but is not (a Go
// runtime deadlock, say, next to rules for database deadlocks) away from the
// rules below it, so a reflection.Chain hands it to the next Reflector.
func Skip(reason string) Verdict {
	return Verdict{compile: func(rule string) answerFunc {
		err := fmt.Errorf("rules: rule %q declines: %s: %w", rule, reason, reflection.ErrSkipped)
		return func(*failureView) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{}, err
		}
	}}
}

// Answer gives a copy of a as it is (its Correction copied too, so no caller
// can change the next answer). When a.Context is empty the copy's Context
// names the rule.
func Answer(a reflection.FailureAnalysis) Verdict {
	if a.Correction != nil {
		c := *a.Correction
		a.Correction = &c
	}
	return Verdict{compile: func(rule string) answerFunc {
		if a.Context == "" {
			a.Context = ruleContext(rule)
		}
		return func(*failureView) (reflection.FailureAnalysis, error) {
			out := a
			if out.Correction != nil {
				c := *out.Correction
				out.Correction = &c
			}
			return out, nil
		}
	}}
}

// AnswerFunc gives whatever fn returns for the failure. An error from fn
// that wraps reflection.ErrSkipped or reflection.ErrInternal is returned as
// it is; any other error, and a panic in fn, come back wrapped in
// reflection.ErrInternal, so a reflection.Chain always knows what happened.
// When fn returns no error and an empty Context, the Context names the rule.
// AnswerFunc panics when fn is nil.
func AnswerFunc(fn func(f reflection.Failure) (reflection.FailureAnalysis, error)) Verdict {
	if fn == nil {
		panic("rules: AnswerFunc needs a non-nil function")
	}
	return Verdict{compile: func(rule string) answerFunc {
		ctx := ruleContext(rule)
		return func(v *failureView) (reflection.FailureAnalysis, error) {
			a, err := fn(*v.f)
			if err == nil && a.Context == "" {
				a.Context = ctx
			}
			return a, err
		}
	}}
}
