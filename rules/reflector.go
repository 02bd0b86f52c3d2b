package rules

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// errNoMatch is what Analyze returns when no rule applies. It is built once,
// so a miss allocates nothing for its error.
var errNoMatch = fmt.Errorf("rules: no rule matches the failure: %w", reflection.ErrSkipped)

// Reflector is a reflection.Reflector that answers from a table of rules: the
// first rule whose Condition holds gives the answer. It is immutable after
// New and safe for concurrent use. The zero Reflector, and a nil *Reflector,
// have no rules and skip every failure.
type Reflector struct {
	rules []compiledRule
	now   func() time.Time // the clock for Retry-After dates
}

// compiledRule is a Rule bound at New.
type compiledRule struct {
	name   string
	when   func(v *failureView) bool
	answer answerFunc
}

// New returns a Reflector that asks rules in order; the first one whose
// condition holds answers. New copies what it needs, so later changes to the
// slice do not reach the Reflector. A rule with a zero Condition or a zero
// Verdict is a programming error, and New panics on it with a message that
// names the rule.
func New(rules ...Rule) *Reflector {
	r := &Reflector{rules: make([]compiledRule, len(rules)), now: time.Now}
	for i, rule := range rules {
		name := rule.Name
		if name == "" {
			name = "rule " + strconv.Itoa(i)
		}
		if rule.When.match == nil {
			panic(fmt.Sprintf("rules: rule %q (position %d) has no condition: set Rule.When", name, i))
		}
		if rule.Then.compile == nil {
			panic(fmt.Sprintf("rules: rule %q (position %d) has no verdict: set Rule.Then", name, i))
		}
		r.rules[i] = compiledRule{name: name, when: rule.When.match, answer: rule.Then.compile(name)}
	}
	return r
}

// WithClock returns a copy of r that reads now instead of time.Now, the one
// clock the rules read: to turn a Retry-After written as an HTTP date into a
// wait. A runtime that must decide the same way on every replay (a workflow
// engine's) gives its own deterministic clock. nil means time.Now.
func (r *Reflector) WithClock(now func() time.Time) *Reflector {
	out := &Reflector{now: now}
	if r != nil {
		out.rules = r.rules
	}
	if out.now == nil {
		out.now = time.Now
	}
	return out
}

// Analyze answers f with the verdict of the first rule whose condition holds.
// When none holds it returns an error wrapping reflection.ErrSkipped, so a
// reflection.Chain hands the failure to the next Reflector; a Skip verdict
// does the same. A condition that panics counts as not holding; a verdict
// that panics gives an error wrapping reflection.ErrInternal. ctx is not
// used: the rules do no I/O.
func (r *Reflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if r == nil || len(r.rules) == 0 || (f.Error == "" && f.Err == nil) {
		return reflection.FailureAnalysis{}, errNoMatch
	}
	now := r.now
	if now == nil {
		now = time.Now
	}
	st, v := loadView(&f, now)
	defer st.release()
	for i := range r.rules {
		rule := &r.rules[i]
		if holds(rule.when, v) {
			return answer(rule, v)
		}
	}
	return reflection.FailureAnalysis{}, errNoMatch
}

// holds asks a condition, counting a panic as "does not hold".
func holds(when func(*failureView) bool, v *failureView) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return when(v)
}

// answer asks a verdict, turning a panic into an error wrapping
// reflection.ErrInternal.
func answer(rule *compiledRule, v *failureView) (a reflection.FailureAnalysis, err error) {
	defer func() {
		if p := recover(); p != nil {
			a = reflection.FailureAnalysis{}
			err = fmt.Errorf("rules: rule %q panicked: %v: %w", rule.name, p, reflection.ErrInternal)
		}
	}()
	a, err = rule.answer(v)
	if err != nil && !errchain.Is(err, reflection.ErrSkipped) && !errchain.Is(err, reflection.ErrInternal) {
		// A verdict's own error that says neither: the rule broke.
		err = fmt.Errorf("rules: rule %q: %w: %w", rule.name, reflection.ErrInternal, err)
	}
	return a, err
}
