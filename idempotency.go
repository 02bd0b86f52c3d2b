package reflection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type idempotencyKey struct{}

// runKey is a key that a Run put in its ctx (minted, or derived by
// WithIdempotencyKeys): it belongs to that Run, so a Run nested in its
// dispatch does not take it for a host's key.
type runKey string

// IdempotencyKey returns the key of the logical call ctx belongs to: the
// same for every attempt of one Run, different for different Runs, so a tool
// whose effect is EffectKeyed can recognise a repeat and not act twice. It
// is the key set by ContextWithIdempotencyKey, or the one a Run with
// WithEffects put there for a keyed tool (derived by WithIdempotencyKeys,
// or minted); "" when there is none.
func IdempotencyKey(ctx context.Context) string {
	switch key := ctx.Value(idempotencyKey{}).(type) {
	case string:
		return key
	case runKey:
		return string(key)
	}
	return ""
}

// hostKey returns the key a host set with ContextWithIdempotencyKey, not
// one an enclosing Run put there.
func hostKey(ctx context.Context) string {
	key, _ := ctx.Value(idempotencyKey{}).(string)
	return key
}

// ContextWithIdempotencyKey makes Run use key instead of minting one: a host
// with keys of its own (the model's tool-call id, a workflow's call id) sets
// it.
func ContextWithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// mintKey puts the call's idempotency key in its ctx, unless the host gave
// one: the key WithIdempotencyKeys derives from the call as the model issued
// it, or else 128 fresh random bits as 32 hexadecimal digits; the same for
// every later attempt of the call (a ToolChange keeps it). A key an
// enclosing Run put in ctx is not the host's: this Run has its own.
func (rt *runtime) mintKey() {
	rt.minted = true
	if hostKey(rt.ctx) != "" {
		return
	}
	if f := rt.d.keyOf; f != nil {
		if key := deriveKey(f, rt.r.original()); key != "" {
			rt.ctx = context.WithValue(rt.ctx, idempotencyKey{}, runKey(key))
			return
		}
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	rt.ctx = context.WithValue(rt.ctx, idempotencyKey{}, runKey(hex.EncodeToString(b[:])))
	rt.random = true
}

// deriveKey asks the host's key func; a panic in it means no key.
func deriveKey(f func(ToolCall) string, call ToolCall) (key string) {
	defer func() {
		if recover() != nil {
			key = ""
		}
	}()
	return f(call)
}

// WithIdempotencyKeys derives the idempotency key of a keyed tool's call
// from the call itself, as the model issued it: a model's re-issue of the
// same business call then carries the same key, and the tool recognises
// it. The key is the ctx's (ContextWithIdempotencyKey) when it has one,
// else key(call) when that is not empty, else a minted one; a derived key,
// like a minted one, belongs to its Run. It applies with WithEffects; key
// must be safe for concurrent use, and a panic in it counts as "". nil
// means none.
func WithIdempotencyKeys(key func(call ToolCall) string) Option {
	return func(d *Driver) { d.keyOf = key }
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
