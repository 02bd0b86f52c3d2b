package reflectiontemporal

import (
	"context"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// hadNoEffect reports whether the effect guard reads a failure with err as
// one that certainly had no effect: err matches reflection.ErrNoEffect (or
// ErrInputRejected), and where it joins several errors, every one of them
// does. The machine's own reading decides: a machine whose only tool is
// not idempotent is told of the failure and asked to retry it, and the
// guard lets the retry through exactly when the failure had no effect. So
// the match ErrorData records for the guard is the root package's, not
// errors.Is's (which a single joined error satisfies).
func hadNoEffect(err error) bool {
	if err == nil || !errchain.Is(err, reflection.ErrNoEffect) {
		return false
	}
	r := noEffectProbe.NewRecovery(context.Background(), reflection.ToolCall{Name: "probe"})
	r.Dispatched(reflection.ToolResult{}, err)
	r.Analyzed(reflection.FailureAnalysis{IsRecoverable: true}, nil)
	_ = r.Next()
	return r.Reason() != reflection.ReasonAmbiguousEffect
}

// noEffectProbe is the Driver of hadNoEffect's machine: every tool is not
// idempotent, and every failure is retried at once.
var noEffectProbe = reflection.NewDriver(
	reflection.WithEffects(func(string) reflection.Effect { return reflection.EffectNonIdempotent }),
	reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
		return reflection.Retry{}
	})))
