package reflection_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The idempotency key a Run with WithEffects puts in the ctx of a keyed
// tool's dispatch, and the allocation-free success path of the others.

// sfKeyTool wraps a scripted tool and records the key in the ctx of every
// dispatch.
type sfKeyTool struct {
	tool *reflectiontest.Tool
	mu   sync.Mutex
	keys []string
}

func newSfKeyTool(outcomes ...reflectiontest.Outcome) *sfKeyTool {
	return &sfKeyTool{tool: reflectiontest.NewTool(outcomes...)}
}

func (k *sfKeyTool) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	k.mu.Lock()
	k.keys = append(k.keys, reflection.IdempotencyKey(ctx))
	k.mu.Unlock()
	return k.tool.Dispatch(ctx, call)
}

func (k *sfKeyTool) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.keys...)
}

// sfCheckKeyShape checks what a minted key must be: at least 128 bits,
// printable, at most 255 bytes. 128 bits take at least 20 printable ASCII
// characters (95 symbols carry under 6.6 bits each).
func sfCheckKeyShape(t *testing.T, key string) {
	t.Helper()
	assert.GreaterOrEqual(t, len(key), 20, "key %q is too short to hold 128 bits", key)
	assert.LessOrEqual(t, len(key), 255, "key %q is longer than 255 bytes", key)
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			t.Errorf("key %q has a byte that is not printable ASCII at %d: %#x", key, i, c)
			return
		}
	}
}

var sfNoEffect = reflectiontest.Error(fmt.Errorf("connection refused before the request was written: %w", reflection.ErrNoEffect))

// TestIdempotencyKeyOnlyForKeyedTools checks that a key is minted for a
// keyed tool, the same for every attempt of the call, and for no other.
func TestIdempotencyKeyOnlyForKeyedTools(t *testing.T) {
	for _, eff := range sfEffectWords {
		t.Run(eff.word, func(t *testing.T) {
			tool := newSfKeyTool(sfNoEffect, sfNoEffect, sfNoEffect, reflectiontest.Succeed("done"))
			d := reflection.NewDriver(
				reflection.WithEffects(sfOneEffect(eff.effect)),
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(sfRetry(0)),
			)
			res, err := d.Run(context.Background(), sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
			require.NoError(t, err)
			require.Equal(t, "done", res.Content)
			keys := tool.seen()
			require.Len(t, keys, 4)
			if eff.effect != reflection.EffectKeyed {
				assert.Equal(t, []string{"", "", "", ""}, keys, "a tool that is not keyed got a minted key")
				return
			}
			sfCheckKeyShape(t, keys[0])
			for i, k := range keys {
				assert.Equal(t, keys[0], k, "attempt %d has another key", i)
			}
		})
	}
}

// TestIdempotencyKeyKeptAcrossToolChange checks that a ToolChange keeps the
// call's key.
func TestIdempotencyKeyKeptAcrossToolChange(t *testing.T) {
	tool := newSfKeyTool(sfNoEffect, reflectiontest.Succeed("done"))
	d := reflection.NewDriver(
		reflection.WithEffects(sfOneEffect(reflection.EffectKeyed)),
		reflection.WithReflector(sfAlways(sfRecoverable(sfToolChange("create_order_v2")))),
		reflection.WithStrategy(sfRetry(0)),
	)
	_, err := d.Run(context.Background(), sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
	require.NoError(t, err)
	reflectiontest.AssertCallNames(t, tool.tool, "create_order", "create_order_v2")
	keys := tool.seen()
	require.Len(t, keys, 2)
	sfCheckKeyShape(t, keys[0])
	assert.Equal(t, keys[0], keys[1], "the ToolChange changed the key")
}

// TestIdempotencyKeyFromTheHost checks that ContextWithIdempotencyKey wins
// over minting, and that the host's key is what IdempotencyKey reads.
func TestIdempotencyKeyFromTheHost(t *testing.T) {
	const hostKey = "order-42/charge"
	tests := []struct {
		name string
		opts []reflection.Option
	}{
		{"keyed tool", []reflection.Option{reflection.WithEffects(sfOneEffect(reflection.EffectKeyed))}},
		{"non-idempotent tool", []reflection.Option{reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent))}},
		{"without WithEffects", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := newSfKeyTool(sfNoEffect, sfNoEffect, reflectiontest.Succeed("done"))
			opts := append(tt.opts, reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(sfRetry(0)))
			ctx := reflection.ContextWithIdempotencyKey(context.Background(), hostKey)
			require.Equal(t, hostKey, reflection.IdempotencyKey(ctx))
			_, err := reflection.NewDriver(opts...).Run(ctx, sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, []string{hostKey, hostKey, hostKey}, tool.seen())
		})
	}
}

// TestIdempotencyKeyDiffersPerRun checks that different Runs get different
// keys, one after the other and at the same time.
func TestIdempotencyKeyDiffersPerRun(t *testing.T) {
	const runs = 500
	tool := newSfKeyTool(reflectiontest.Succeed("done"))
	d := reflection.NewDriver(reflection.WithEffects(sfOneEffect(reflection.EffectKeyed)))
	var wg sync.WaitGroup
	for i := 0; i < runs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := d.Run(context.Background(), sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	for i := 0; i < runs; i++ {
		_, err := d.Run(context.Background(), sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
		require.NoError(t, err)
	}
	keys := tool.seen()
	require.Len(t, keys, 2*runs)
	distinct := make(map[string]bool, len(keys))
	for _, k := range keys {
		sfCheckKeyShape(t, k)
		distinct[k] = true
	}
	assert.Len(t, distinct, 2*runs, "two Runs shared a key")
}

// TestIdempotencyKeyNone checks that there is no key without WithEffects, nor
// in a ctx no Run made.
func TestIdempotencyKeyNone(t *testing.T) {
	assert.Equal(t, "", reflection.IdempotencyKey(context.Background()))

	tool := newSfKeyTool(sfNoEffect, reflectiontest.Succeed("done"))
	d := reflection.NewDriver(
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetry(0)),
	)
	_, err := d.Run(context.Background(), sfCall("create_order", `{"sku":"A-1"}`), tool.dispatch)
	require.NoError(t, err)
	assert.Equal(t, []string{"", ""}, tool.seen(), "a Run without WithEffects minted a key")
}

// TestEffectsSuccessPathAllocatesNothing checks that WithEffects leaves the
// success path of a tool that is not keyed allocation-free, as Run is without
// it. It runs outside any synctest bubble: AllocsPerRun counts the process.
func TestEffectsSuccessPathAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	call := sfCall("get_weather", `{"city":"Lisbon"}`)
	dispatch := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{Content: "19°C"}, nil
	}
	measure := func(d *reflection.Driver) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := d.Run(ctx, call, dispatch); err != nil {
				t.Fatal(err)
			}
		})
	}
	baseline := measure(reflection.NewDriver())
	assert.Zero(t, baseline, "Run without options allocates on success")
	for _, e := range []reflection.Effect{reflection.EffectUndeclared, reflection.EffectReadOnly, reflection.EffectIdempotent, reflection.EffectNonIdempotent} {
		t.Run(e.String(), func(t *testing.T) {
			got := measure(reflection.NewDriver(reflection.WithEffects(sfOneEffect(e))))
			assert.Zero(t, got, "allocations per successful Run with WithEffects (baseline %v)", baseline)
		})
	}
}

// TestIdempotencyKeyAfterToolChangeToAKeyedTool checks that a call that
// moves onto a keyed tool gets a key for that tool's attempts, the same for
// each of them, and none for the tool that is not keyed.
func TestIdempotencyKeyAfterToolChangeToAKeyedTool(t *testing.T) {
	tool := newSfKeyTool(reflectiontest.Fail("a is read-only and failed"), sfNoEffect, reflectiontest.Succeed("done"))
	d := reflection.NewDriver(
		reflection.WithEffects(sfEffects(map[string]reflection.Effect{"lookup": reflection.EffectReadOnly, "create": reflection.EffectKeyed})),
		reflection.WithReflector(reflectiontest.NewReflector(sfRecoverable(sfToolChange("create")), sfRecoverable(nil))),
		reflection.WithStrategy(sfRetry(0)),
	)
	_, err := d.Run(context.Background(), sfCall("lookup", `{"sku":"A-1"}`), tool.dispatch)
	require.NoError(t, err)
	reflectiontest.AssertCallNames(t, tool.tool, "lookup", "create", "create")
	keys := tool.seen()
	require.Len(t, keys, 3)
	assert.Equal(t, "", keys[0], "the read-only tool got a minted key")
	sfCheckKeyShape(t, keys[1])
	assert.Equal(t, keys[1], keys[2], "the keyed tool's retry ran under another key")
}
