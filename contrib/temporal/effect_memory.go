package reflectiontemporal

import (
	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
	"go.temporal.io/sdk/workflow"
)

// WithEffectMemory lets the calls of a workflow remember, in m, the calls
// that ended without success after their tool may have acted, as
// reflection.WithEffectMemory does for a Driver: a later call of the same
// tool with an equal input, within m's window, is not dispatched blindly;
// its first dispatch waits for a human's approval (WithAsk) or a
// verifier's VerdictNotApplied, and its success forgets the earlier call.
//
// m is workflow state: make it in the workflow function, with
// reflection.NewEffectMemory, and give it to every Run of the session, so
// that a replay, which runs the workflow function again, fills it the same
// way. Run reads and stamps it with the workflow's clock. Never share one
// across workflows (a package variable, a Driver built outside the workflow
// function): a replay would read what other workflows left. A continue-as-
// new starts with an empty memory.
//
// It applies to a Driver with reflection.WithEffects, and remembers the
// calls Driver.Run remembers: of a tool that is EffectNonIdempotent or
// EffectUndeclared, or EffectKeyed (under Run a call's key is its workflow
// and call IDs: a re-issue, a new call, gets another). Run cannot tell a
// Driver without WithEffects from one whose tools are all undeclared, so
// give the option only with WithEffects. nil means none.
func WithEffectMemory(m *reflection.EffectMemory) Option {
	return func(c *config) { c.memory = m }
}

// recall looks the call up in the memory before its first dispatch.
func (rt *runtime) recall() {
	m := rt.cfg.memory
	if m == nil {
		return
	}
	if rc, ok := m.Recall(rt.call, workflow.Now(rt.ctx)); ok {
		rt.recalled = true
		rt.rec.Remembered(rc)
	}
}

// noteFailure notes a failed dispatch for the memory: whether it may have
// come after its tool acted (anything but a failure that matches
// reflection.ErrNoEffect), and, for the call's own tool, its effect.
func (rt *runtime) noteFailure(call reflection.ToolCall, err error) {
	if rt.cfg.memory == nil {
		return
	}
	if call.Name == rt.call.Name {
		rt.effect = rt.rec.Failure().Effect
	}
	if !errchain.Is(err, reflection.ErrNoEffect) {
		rt.ambiguous = &call
	}
}

// settleMemory tells the memory how the call ended: a success of a
// remembered call forgets the earlier one; a call that ended without
// success after it may have acted is remembered.
func (rt *runtime) settleMemory(o reflection.Outcome) {
	m := rt.cfg.memory
	if m == nil {
		return
	}
	switch {
	case o == reflection.OutcomeSucceeded:
		if rt.recalled {
			m.Forget(rt.call)
		}
	case rt.ambiguous != nil && rt.rec.Calls() > 0 && remembered(rt.effect):
		m.Remember(rt.call, reflection.RememberedCall{
			ID: rt.call.ID, Ran: *rt.ambiguous, Failure: rt.rec.Failure().Error, Key: rt.key, At: workflow.Now(rt.ctx),
		})
	}
}

// remembered says whether the memory keeps calls of a tool with effect e.
func remembered(e reflection.Effect) bool {
	switch e {
	case reflection.EffectNonIdempotent, reflection.EffectUndeclared, reflection.EffectKeyed:
		return true
	}
	return false
}
