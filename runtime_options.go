package reflection

import (
	"context"
	"log/slog"
	"time"
)

// RuntimeOptions are the options of a Driver that belong to its runtime
// rather than to the machine: what Driver.Run calls or consults around the
// machine's steps. A runtime of its own (a workflow engine's) reads them to
// map what it can (an attempt timeout onto its own) and to refuse, or say
// it ignores, what it cannot (host code that must not run in replayed
// workflow code, state shared between calls). Fields are nil or zero when
// the option was not given.
type RuntimeOptions struct {
	Reflector      Reflector                                                             // WithReflector; nil: NoopReflector
	Asker          Asker                                                                 // WithAsker
	Observer       *Observer                                                             // WithObserver: a copy of the hooks
	Logger         *slog.Logger                                                          // WithLogger
	Redactor       func(string) string                                                   // WithRedactor
	AttemptTimeout time.Duration                                                         // WithAttemptTimeout
	Health         *Health                                                               // WithHealth
	RetryBudget    *RetryBudget                                                          // WithRetryBudget
	LoopDetection  bool                                                                  // WithLoopDetection
	EffectMemory   *EffectMemory                                                         // the Driver's memory (WithEffects; WithEffectMemory)
	Verifier       func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error) // WithVerifier: what a VerifyStep asks
}

// RuntimeOptions returns d's runtime options (see RuntimeOptions). A nil d
// has none.
func (d *Driver) RuntimeOptions() RuntimeOptions {
	if d == nil {
		return RuntimeOptions{}
	}
	o := RuntimeOptions{
		Reflector: d.reflector, Asker: d.asker, Logger: d.logger, Redactor: d.redact,
		AttemptTimeout: d.attemptTimeout, Health: d.health, RetryBudget: d.budget, LoopDetection: d.detection,
		EffectMemory: d.memory, Verifier: d.verifier,
	}
	if d.observer != nil {
		obs := *d.observer
		o.Observer = &obs
	}
	return o
}
