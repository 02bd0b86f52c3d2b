package recovery

import (
	"github.com/loopctl-go/reflection"
)

// safeOptions are the options the *_safe configurations add to their
// Reflector and backoff: the set-up the README recommends (the schemas of
// the scenario's tools, a Health with the recommended breaker and a RetryBudget with
// the library's default, shared by every call of the run, the effects of the scenario's
// tools as the scenario declares them,
// a tool it does not list being undeclared, and so the Driver's own effect
// memory, and the loop guard), and a verifier for the tools the scenario
// marks verifiable (a host passes one when it can look an effect up).
// A configuration whose budget the harness keeps leaves the root's budget
// out; one with noBreaker leaves the Health out; one with breaker settings
// of its own builds its Health with them.
func safeOptions(sc *scenario, w *world, c config) []reflection.Option {
	effects := make(map[string]reflection.Effect, len(sc.tools))
	for _, t := range sc.tools {
		effects[t.schema.Name] = t.effect
	}
	opts := []reflection.Option{
		reflection.WithSchemas(sc.lookup),
		reflection.WithEffects(func(tool string) reflection.Effect { return effects[tool] }),
		reflection.WithLoopGuard(),
	}
	for _, t := range sc.tools {
		if t.verifiable {
			opts = append(opts, reflection.WithVerifier(w.verifier))
			break
		}
	}
	if !c.noBreaker {
		threshold, openFor := c.breaker()
		opts = append(opts, reflection.WithHealth(reflection.NewHealth(threshold, openFor)))
	}
	if c.budget == nil {
		opts = append(opts, reflection.WithRetryBudget(reflection.NewRetryBudget(0)))
	}
	return opts
}

// noEffectMark is what the errors of attempts that had no effect match.
var noEffectMark = reflection.ErrNoEffect

// noEffect marks err as the failure of an attempt that had no effect: the
// tool refused before it acted.
func noEffect(err error) error { return &markedError{err, noEffectMark} }
