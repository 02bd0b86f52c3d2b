package recovery

import (
	"github.com/loopctl-go/reflection"
)

// safeOptions are the options the *_safe configurations add to their
// Reflector and backoff: the set-up the README recommends (a Health and a
// RetryBudget with the library's defaults, shared by every call of the
// run, the effects of the scenario's tools as the scenario declares them,
// a tool it does not list being undeclared, and the loop guard), with the
// schemas of the scenario's tools. rootBudget false leaves the root's
// budget out, for a configuration whose budget the harness keeps; breaker
// false leaves the Health out.
func safeOptions(sc *scenario, rootBudget, breaker bool) []reflection.Option {
	effects := make(map[string]reflection.Effect, len(sc.tools))
	for _, t := range sc.tools {
		effects[t.schema.Name] = t.effect
	}
	opts := []reflection.Option{
		reflection.WithSchemas(sc.lookup),
		reflection.WithEffects(func(tool string) reflection.Effect { return effects[tool] }),
		reflection.WithLoopGuard(),
	}
	if breaker {
		opts = append(opts, reflection.WithHealth(reflection.NewHealth(0, 0)))
	}
	if rootBudget {
		opts = append(opts, reflection.WithRetryBudget(reflection.NewRetryBudget(0)))
	}
	return opts
}

// noEffectMark is what the errors of attempts that had no effect match.
var noEffectMark = reflection.ErrNoEffect

// noEffect marks err as the failure of an attempt that had no effect: the
// tool refused before it acted.
func noEffect(err error) error { return &markedError{err, noEffectMark} }

// breakerOpenFor is how long the *_safe configurations' breakers stay open:
// the library's default.
const breakerOpenFor = reflection.DefaultBreakerOpenFor
