package reflectiontemporal

import (
	"context"

	"github.com/loopctl-go/reflection"
)

// RegisterOption configures the activities Register registers: what lives
// on the worker, beside the tool and the Reflector.
type RegisterOption func(*activities)

// WithWorkerHealth gives the worker a circuit breaker: the tool activity
// asks h before the tool runs and tells it how the tool did, by the rules
// of reflection.Health (a call adds at most one failure to a tool's count,
// across its attempts; a 400 or an input the tool rejected counts neither
// way; half-open probes). While a tool's breaker is open, the activity
// returns at once without running the tool, and the call ends as Driver.Run
// ends a refused dispatch (reflection.ReasonCircuitOpen; the text says when
// to retry). The refusal is an answer, recorded in history: Temporal does
// not retry it.
//
// The breaker is the worker process's: every call whose tool this worker
// runs shares it, and each worker has its own (with several workers, a
// tool's breaker opens on each after the threshold of failing calls that
// reached that worker). A refused dispatch still costs its tool activity (a
// Temporal Cloud action and a workflow task), not the tool's run. A
// Driver's own WithHealth is not consulted in workflow code: give the
// Health here. nil means none.
func WithWorkerHealth(h *reflection.Health) RegisterOption {
	return func(a *activities) {
		a.breaker = nil
		if h != nil {
			a.breaker = newWorkerBreaker(h)
		}
	}
}

// WithWorkerVerifier gives the worker the verifier of VerifyActivity: when
// the effect guard of a call whose Driver has reflection.WithVerifier would
// ask a human whether to retry a tool that may have acted (or to run a
// call an EffectMemory remembers), Run asks verify instead, as that
// activity, as Driver.Run asks the Driver's verifier (see
// reflection.WithVerifier: the verdicts, and the ctx that carries the
// call's idempotency key). The Driver's own verifier cannot run in workflow
// code: it only says to verify. verify must be safe for concurrent use.
// Without a verifier here, a verification answers reflection.VerdictUnknown
// and the guard asks, as without one. nil means none.
func WithWorkerVerifier(verify func(ctx context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error)) RegisterOption {
	return func(a *activities) { a.verifier = verify }
}

// VerifyOnWorker is a verifier for the Driver given to Run:
// reflection.WithVerifier(reflectiontemporal.VerifyOnWorker) turns the
// effect guard's verification on, and Run asks the worker's verifier
// (WithWorkerVerifier) in its place; Run never calls it. Called anywhere
// else (a Driver.Run), it answers reflection.VerdictUnknown: it cannot
// tell, and the guard asks.
func VerifyOnWorker(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	return reflection.VerdictUnknown, reflection.ToolResult{}, nil
}
