package recovery

import (
	"github.com/loopctl-go/reflection"
)

// safetyReady reports whether the root package has the safety options the
// *_safe configurations turn on.
const safetyReady = true

// sharedState is what the calls of one scenario run share, as the calls of
// one agent share them: a breaker per tool and a retry budget. One is made
// per run (configuration × seed × scenario), so runs stay independent.
type sharedState struct {
	health *reflection.Health
	budget *reflection.RetryBudget
}

// newSharedState returns a Health and a RetryBudget with the library's
// defaults.
func newSharedState() *sharedState {
	return &sharedState{
		health: reflection.NewHealth(0, 0),
		budget: reflection.NewRetryBudget(0),
	}
}

// safeOptions are the options the *_safe configurations add: the schemas of
// the scenario's tools, their effects as the scenario declares them (a tool
// it does not list is undeclared), the run's breaker and budget, and the
// loop guard.
func safeOptions(sc *scenario, shared *sharedState) []reflection.Option {
	effects := make(map[string]reflection.Effect, len(sc.tools))
	for _, t := range sc.tools {
		effects[t.schema.Name] = t.effect
	}
	return []reflection.Option{
		reflection.WithSchemas(sc.lookup),
		reflection.WithEffects(func(tool string) reflection.Effect { return effects[tool] }),
		reflection.WithHealth(shared.health),
		reflection.WithRetryBudget(shared.budget),
		reflection.WithLoopGuard(),
	}
}

// noEffectMark is what the errors of attempts that had no effect match.
var noEffectMark = reflection.ErrNoEffect

// noEffect marks err as the failure of an attempt that had no effect: the
// tool refused before it acted.
func noEffect(err error) error { return &markedError{err, noEffectMark} }
