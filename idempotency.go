package reflection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type idempotencyKey struct{}

// IdempotencyKey returns the key of the logical call ctx belongs to: the
// same for every attempt of one Run, different for different Runs, so a tool
// whose effect is EffectKeyed can recognise a repeat and not act twice. It
// is the key set by ContextWithIdempotencyKey, or the one a Run with
// WithEffects minted for a keyed tool; "" when there is neither.
func IdempotencyKey(ctx context.Context) string {
	key, _ := ctx.Value(idempotencyKey{}).(string)
	return key
}

// ContextWithIdempotencyKey makes Run use key instead of minting one: a host
// with keys of its own (the model's tool-call id, a workflow's call id) sets
// it.
func ContextWithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// mintKey puts a fresh idempotency key in the call's ctx, unless the host
// gave one: 128 random bits as 32 hexadecimal digits, the same for every
// later attempt of the call (a ToolChange keeps it).
func (rt *runtime) mintKey() {
	rt.minted = true
	if IdempotencyKey(rt.ctx) != "" {
		return
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	rt.ctx = ContextWithIdempotencyKey(rt.ctx, hex.EncodeToString(b[:]))
}

// WithEffects turns the effect guard on: effect(tool) says what running tool
// a second time does. After a failure that may have come after the tool
// acted (anything but an error matching ErrNoEffect), a Retry of a tool that
// is EffectNonIdempotent or EffectUndeclared becomes an AskUser saying the
// call may already have taken effect (ReasonAmbiguousEffect): a human's
// approval retries it, nothing else does. An EffectKeyed tool is retried
// when the retry runs the same tool with the same input, under the same
// IdempotencyKey, which Run puts in the ctx dispatch receives; a retry whose
// corrections change the call is refused the same way. EffectReadOnly and
// EffectIdempotent tools retry as always. The Reflector sees the effect in
// Failure.Effect. effect must be safe for concurrent use; a panic in it
// counts as EffectUndeclared. nil means off.
func WithEffects(effect func(tool string) Effect) Option {
	return func(d *Driver) { d.effect = effect }
}
