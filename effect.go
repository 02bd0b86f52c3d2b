package reflection

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Effect says what running a tool a second time does. With WithEffects, the
// machine does not retry blindly a tool that may already have acted.
type Effect uint8

// The effects a tool can have.
const (
	EffectUndeclared    Effect = iota // the host said nothing: treated as EffectNonIdempotent
	EffectReadOnly                    // running it changes nothing
	EffectIdempotent                  // running it again with the same input has no further effect
	EffectKeyed                       // not idempotent by itself, but honours IdempotencyKey(ctx): a second run under the same key has no further effect
	EffectNonIdempotent               // every run may act again (send, pay, append, create)
)

var effectNames = [...]string{"undeclared", "read_only", "idempotent", "keyed", "non_idempotent"}

// String returns "undeclared", "read_only", "idempotent", "keyed" or
// "non_idempotent", and "effect(N)" for any other value.
func (e Effect) String() string {
	if int(e) < len(effectNames) {
		return effectNames[e]
	}
	return fmt.Sprintf("effect(%d)", int(e))
}

// MarshalText encodes e as one of the five words; it returns an error for
// any other value.
func (e Effect) MarshalText() ([]byte, error) {
	if int(e) >= len(effectNames) {
		return nil, fmt.Errorf("reflection: invalid effect %d", int(e))
	}
	return []byte(effectNames[e]), nil
}

// UnmarshalText accepts exactly one of the five words (case-sensitive) and
// returns an error for anything else, leaving e as it was.
func (e *Effect) UnmarshalText(b []byte) error {
	for i, name := range effectNames {
		if string(b) == name {
			*e = Effect(i)
			return nil
		}
	}
	return fmt.Errorf("reflection: unknown effect %q", b)
}

// ErrNoEffect marks an attempt that certainly had no effect: it was refused
// before it began (a circuit breaker, a validation before anything was sent,
// a connection refused before the request was written). A dispatch says so
// by returning an error that matches it (errors.Is). Every other failure is
// ambiguous to the effect guard: the tool may have acted before it failed.
var ErrNoEffect = errors.New("reflection: the attempt had no effect")

// The AskUser prompts of the effect guard. Every question a call asks once a
// dispatch of a tool that is not idempotent failed after it may have acted
// begins with effectPrompt.
const (
	effectPrompt = "the failed call may already have taken effect, and this tool is not idempotent: " +
		"retrying it could do the same thing twice"
	keyedPrompt = "the failed call may already have taken effect, and the retry would run a changed call " +
		"under the same idempotency key"
)

// guardedEffect says whether the effect guard holds back a tool with effect
// e after a failure that may have come after it acted.
func guardedEffect(e Effect) bool { return e == EffectNonIdempotent || e == EffectUndeclared }

// noteEffect records, for a failure with err, the effect of the tool that
// failed and whether the failure is ambiguous: anything but an error that
// matches ErrNoEffect (a joined error: every error it joins must). An
// ambiguous failure of a guarded tool marks that tool for the rest of the
// call: every later dispatch of it needs a verification or a human's
// approval first.
func (r *Recovery) noteEffect(err error) {
	r.fail.Effect = r.s.effectOf(r.cur.Name)
	r.ambiguous = !noEffect(err)
	if !r.ambiguous {
		return
	}
	r.anyAmbiguous, r.lastAmbiguous = true, r.cur
	if guardedEffect(r.fail.Effect) {
		r.mayActed++
		r.markActed(r.cur)
	}
}

// markActed notes that call's dispatch failed after its tool may have
// acted. Every such dispatch is kept (a call makes at most six).
func (r *Recovery) markActed(call ToolCall) {
	if r.nacted < len(r.acted) {
		r.acted[r.nacted] = call
		r.nacted++
	}
}

// actedCall returns the latest dispatch of tool in this call that failed
// after the tool may have acted, and that no verifier has cleared.
func (r *Recovery) actedCall(tool string) (ToolCall, bool) {
	for i := r.nacted - 1; i >= 0; i-- {
		if r.acted[i].Name == tool {
			return r.acted[i], true
		}
	}
	return ToolCall{}, false
}

// clearActed takes back that the latest such dispatch of tool may have
// acted: a verifier said it did not. An earlier one of the same tool, if
// any, is still in question.
func (r *Recovery) clearActed(tool string) {
	for i := r.nacted - 1; i >= 0; i-- {
		if r.acted[i].Name == tool {
			copy(r.acted[i:r.nacted], r.acted[i+1:r.nacted])
			r.nacted--
			r.acted[r.nacted] = ToolCall{}
			r.mayActed--
			return
		}
	}
}

// effectRefuses says whether the effect guard refuses the Retry just
// decided, the AskUser prompt that says why, and the call whose failure is
// in question (what a verifier looks up). The guard covers the whole call:
// a retry whose next dispatch runs a tool that failed after it may have
// acted earlier in this call is refused, whatever ran in between; and, as
// for every failure, after an ambiguous failure a tool that is not
// idempotent is never retried blindly, and a keyed tool only with the same
// tool and input (its key then makes the retry safe).
func (r *Recovery) effectRefuses() (prompt string, about ToolCall, refuse bool) {
	if r.s.effect == nil || !r.ambiguous && r.nacted == 0 {
		return "", ToolCall{}, false
	}
	next := r.planNext().next
	if c, ok := r.actedCall(next.Name); ok {
		return effectPrompt, c, true
	}
	if !r.ambiguous {
		return "", ToolCall{}, false
	}
	switch r.fail.Effect {
	case EffectReadOnly, EffectIdempotent:
		return "", ToolCall{}, false
	case EffectKeyed:
		if sameCall(next, r.cur) {
			return "", ToolCall{}, false
		}
		return keyedPrompt, r.cur, true
	}
	return effectPrompt, r.cur, true
}

// actedWarning is what the model reads at the end of a call that did not
// succeed after dispatches that may have acted: how many of them.
func (r *Recovery) actedWarning() string {
	return "Warning: this call may already have taken effect: " + strconv.Itoa(r.mayActed) + " of its " +
		strconv.Itoa(r.calls) + " dispatches failed in a way that does not tell whether the tool acted. " +
		"Check before calling it again."
}

// warnedPrompt is the prompt of a question the call asks, or ends on, once
// a dispatch of it may have acted: the effect guard's sentence first, then
// prompt.
func (r *Recovery) warnedPrompt(prompt string) string {
	if r.mayActed == 0 || strings.HasPrefix(prompt, effectPrompt) {
		return prompt
	}
	if prompt == "" {
		return effectPrompt
	}
	return effectPrompt + ". " + prompt
}

// rememberedPrompt is the question the effect guard asks before a call that
// an EffectMemory remembers: an earlier call of the same tool with the same
// input, named by its ID, may already have taken effect.
func rememberedPrompt(rc RememberedCall) string {
	id := rc.ID
	if id == "" {
		id = "(no id)"
	}
	return "an earlier call of this tool with the same input (" + strconv.Quote(id) + ") ended without success and " +
		"may already have taken effect: running it again could do the same thing twice"
}

// effectOf asks the host's effect func; a panic in it means undeclared.
func (s *settings) effectOf(tool string) (e Effect) {
	defer func() {
		if recover() != nil {
			e = EffectUndeclared
		}
	}()
	return s.effect(tool)
}
