package recovery

import (
	"context"

	"github.com/loopctl-go/reflection"
)

// verifier is what a host that can look a tool's effect up answers, for
// the scenario's tools marked verifiable: VerdictApplied, with the
// scenario's result, when the logical call the asking Run belongs to has
// taken effect (the ledger, which a lookup by the call's business identity
// would find), else VerdictNotApplied. For any other tool it cannot tell.
// Every verification is counted in the Run's record.
func (w *world) verifier(ctx context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	st := stateFrom(ctx)
	st.verifications++
	t, ok := w.sc.toolNamed(call.Name)
	if !ok || !t.verifiable {
		return reflection.VerdictUnknown, reflection.ToolResult{}, nil
	}
	if w.committed(st.logical) {
		return reflection.VerdictApplied, reflection.ToolResult{ID: call.ID, Content: w.sc.Result}, nil
	}
	return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
}
