package reflection

import (
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
