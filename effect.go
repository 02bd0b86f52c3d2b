package reflection

import (
	"errors"
	"fmt"
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

// The AskUser prompts of the effect guard.
const (
	effectPrompt = "the failed call may already have taken effect, and this tool is not idempotent: " +
		"retrying it could do the same thing twice"
	keyedPrompt = "the failed call may already have taken effect, and the retry would run a changed call " +
		"under the same idempotency key"
)

// noteEffect records, for a failure with err, the effect of the tool that
// failed and whether the failure is ambiguous.
func (r *Recovery) noteEffect(err error) {
	r.fail.Effect = r.s.effectOf(r.cur.Name)
	r.ambiguous = err == nil || !chainIs(err, ErrNoEffect)
}

// effectRefuses says whether the effect guard refuses the Retry just
// decided, and the AskUser prompt that says why: after an ambiguous failure,
// a tool that is not idempotent is never retried blindly, and a keyed tool
// only with the same tool and input (its key then makes the retry safe).
func (r *Recovery) effectRefuses() (prompt string, refuse bool) {
	if r.s.effect == nil || !r.ambiguous {
		return "", false
	}
	switch r.fail.Effect {
	case EffectReadOnly, EffectIdempotent:
		return "", false
	case EffectKeyed:
		if next := r.planNext().next; sameCall(next, r.cur) {
			return "", false
		}
		return keyedPrompt, true
	}
	return effectPrompt, true
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
