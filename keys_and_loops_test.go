package reflection_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestIdempotencyKeysFromTheCall: with WithIdempotencyKeys, a model's
// re-issue of the same business call carries the same key, so a keyed tool
// recognises it; a nested Run has a key of its own.
func TestIdempotencyKeysFromTheCall(t *testing.T) {
	keyOf := func(call reflection.ToolCall) string {
		var in struct {
			Order string `json:"order"`
		}
		_ = json.Unmarshal(call.Input, &in)
		if in.Order == "" {
			return ""
		}
		return "order-" + in.Order
	}
	var keys []string
	tool := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		keys = append(keys, reflection.IdempotencyKey(ctx))
		return reflection.ToolResult{}, context.DeadlineExceeded
	}
	d := sfChargeDriver(reflection.WithIdempotencyKeys(keyOf), reflection.WithStrategy(sfRetryN(1)))
	for _, id := range []string{"c-1", "c-2"} {
		_, err := d.Run(context.Background(), sfCallID(id, "send_keyed", `{"order":"42"}`), tool)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"order-42", "order-42", "order-42", "order-42"}, keys,
		"every attempt of both calls, re-issue included, runs under the key derived from the call; a derived key is not remembered")

	keys = nil
	_, err := d.Run(context.Background(), sfCallID("c-3", "send_keyed", `{"note":"no order"}`), tool)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Len(t, keys[0], 32, "no key from the call: a minted one")
	assert.Equal(t, keys[0], keys[1])

	host := reflection.ContextWithIdempotencyKey(context.Background(), "host-key")
	keys = nil
	_, err = d.Run(host, sfCallID("c-4", "send_keyed", `{"order":"42"}`), tool)
	require.NoError(t, err)
	assert.Equal(t, []string{"host-key", "host-key"}, keys, "the host's key wins")

	panicky := sfChargeDriver(reflection.WithIdempotencyKeys(func(reflection.ToolCall) string { panic("no") }), reflection.WithStrategy(sfRetryN(0)))
	keys = nil
	_, err = panicky.Run(context.Background(), sfCallID("c-5", "send_keyed", `{}`), tool)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Len(t, keys[0], 32, "a key func that panics gives no key: a minted one")
}

// TestIdempotencyKeyNestedRun: a Run inside a dispatch mints its own key.
func TestIdempotencyKeyNestedRun(t *testing.T) {
	d := sfChargeDriver()
	var outer, inner string
	innerTool := func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
		inner = reflection.IdempotencyKey(ctx)
		return reflection.ToolResult{Content: "inner"}, nil
	}
	outerTool := func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
		outer = reflection.IdempotencyKey(ctx)
		return d.Run(ctx, sfCallID("inner", "send_keyed", `{}`), innerTool)
	}
	_, err := d.Run(context.Background(), sfCallID("outer", "send_keyed", `{}`), outerTool)
	require.NoError(t, err)
	require.NotEmpty(t, outer)
	require.NotEmpty(t, inner)
	assert.NotEqual(t, outer, inner, "the outer call's key belongs to its Run")

	host := reflection.ContextWithIdempotencyKey(context.Background(), "host")
	_, err = d.Run(host, sfCallID("outer", "send_keyed", `{}`), outerTool)
	require.NoError(t, err)
	assert.Equal(t, "host", outer)
	assert.Equal(t, "host", inner, "a host's key is seen through nested Runs")
}

// TestLoopDetectorConcurrentCalls: 200 identical calls at once under one
// detector that stops at 10: no more than 10 run.
func TestLoopDetectorConcurrentCalls(t *testing.T) {
	det := reflection.NewLoopDetector(0, 10)
	ctx := reflection.ContextWithLoopDetector(context.Background(), det)
	d := reflection.NewDriver(reflection.WithLoopDetection())
	var ran atomic.Int32
	start := make(chan struct{})
	tool := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		ran.Add(1)
		<-start
		return reflection.ToolResult{Content: "same"}, nil
	}
	var wg sync.WaitGroup
	var refused atomic.Int32
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := d.Run(ctx, sfCall("search", `{"q":"x"}`), tool)
			if err != nil {
				refused.Add(1)
			}
		}()
	}
	for ran.Load()+refused.Load() < 200 && refused.Load() < 190 {
		runtime.Gosched()
	}
	close(start)
	wg.Wait()
	assert.Equal(t, int32(10), ran.Load())
	assert.Equal(t, int32(190), refused.Load())
}

// TestLoopDetectorLargeInput: a large input costs one pass, not a tree of
// values (checked here for correctness; the cost is in bench/).
func TestLoopDetectorLargeInput(t *testing.T) {
	det := reflection.NewLoopDetector(0, 2)
	ctx := reflection.ContextWithLoopDetector(context.Background(), det)
	d := reflection.NewDriver(reflection.WithLoopDetection())
	big := `{"blob":"` + strings.Repeat("x", 1<<20) + `","n":[` + strings.Repeat("1,", 50_000) + `1]}`
	same := `{"n":[` + strings.Repeat("1,", 50_000) + `1], "blob":"` + strings.Repeat("x", 1<<20) + `"}`
	tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	for i, in := range []string{big, same} {
		_, err := d.Run(ctx, sfCall("store", in), tool.Dispatch)
		require.NoError(t, err, "run %d", i)
	}
	_, err := d.Run(ctx, sfCall("store", big), tool.Dispatch)
	require.ErrorIs(t, err, reflection.ErrLoopDetected, "equal as JSON values: one call")
}

// TestRunAllocsWithMethodValues: the success path allocates nothing when
// dispatch is a func value, a method value or a closure, with every option
// on (the call is of a tool the effect memory has no entry for).
func TestRunAllocsWithMethodValues(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	reg := &sfRegistry{}
	prefix := "ok: "
	closure := func(_ context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{Content: prefix}, nil
	}
	drivers := map[string]*reflection.Driver{
		"bare": reflection.NewDriver(),
		"every option": reflection.NewDriver(
			reflection.WithHealth(reflection.NewHealth(0, 0)),
			reflection.WithRetryBudget(reflection.NewRetryBudget(0)),
			reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)),
			reflection.WithVerifier(func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
				return reflection.VerdictUnknown, reflection.ToolResult{}, nil
			}),
			reflection.WithIdempotencyKeys(func(reflection.ToolCall) string { return "" }),
			reflection.WithLoopGuard(),
			reflection.WithRecoveryNotes(),
			reflection.WithSchemas(sfKnown("search")),
			reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		),
	}
	held := reflection.NewEffectMemory(0)
	held.Remember(sfCall("search", `{"q":"another input"}`), reflection.RememberedCall{ID: "earlier", At: time.Now()})
	drivers["every option, the memory holding another call of the tool"] = drivers["every option"].With(reflection.WithEffectMemory(held))
	call := sfCall("search", `{"q":"x"}`)
	ctx := context.Background()
	for name, d := range drivers {
		for shape, dispatch := range map[string]reflection.DispatchFunc{
			"method value": reg.Dispatch,
			"closure":      closure,
			"func value":   sfStaticDispatch,
		} {
			allocs := testing.AllocsPerRun(100, func() {
				_, _ = d.Run(ctx, call, dispatch)
			})
			assert.Zero(t, allocs, "%s, %s", name, shape)
		}
		allocs := testing.AllocsPerRun(100, func() {
			_, _ = d.Run(ctx, call, reg.Dispatch) // the method value made at the call, as the README writes it
		})
		assert.Zero(t, allocs, "%s, a method value made in the call", name)
	}
}

type sfRegistry struct{ calls atomic.Int64 }

func (r *sfRegistry) Dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	r.calls.Add(1)
	return reflection.ToolResult{Content: "ok"}, nil
}

func sfStaticDispatch(_ context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
	return reflection.ToolResult{Content: "ok"}, nil
}
