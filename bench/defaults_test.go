//go:build !oldroot

package bench

// The benchmarks of this file use names an earlier root may not have;
// compare.sh builds the benchmarks against an earlier commit with the
// oldroot tag, which leaves them out.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loopctl-go/reflection"
)

// What safety by default costs: a Driver with every option on (the
// sub-benchmarks options=all) against the bare Driver (options=none), for
// each shape of dispatch, and what a failed call costs with the effect
// memory on.

// notIdempotent is the effect func of allOptions: the benchmark's tool is
// guarded, so its calls go through the effect memory's test (an empty
// memory: one atomic load).
func notIdempotent(string) reflection.Effect { return reflection.EffectNonIdempotent }

// unknownVerdict is the verifier of allOptions; the success path never
// calls it.
func unknownVerdict(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	return reflection.VerdictUnknown, reflection.ToolResult{}, nil
}

// callKey is the key func of allOptions: a keyed tool's key from the call.
// The benchmark's tool is not keyed, so the success path never calls it.
func callKey(c reflection.ToolCall) string { return c.ID }

// readFileSchema is the schema allOptions' lookup knows.
var readFileSchema = reflection.ToolSchema{
	Name:        "read_file",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}

// lookupSchema is the SchemaLookup of allOptions.
func lookupSchema(tool string) (reflection.ToolSchema, bool) {
	if tool == readFileSchema.Name {
		return readFileSchema, true
	}
	return reflection.ToolSchema{}, false
}

// allOptions is every option of safety by default, with the shared state
// (one Health, one RetryBudget, the Driver's own EffectMemory) shared by
// every call and goroutine of a benchmark: WithHealth, WithRetryBudget,
// WithEffects (the tool not idempotent, the memory empty), WithVerifier,
// WithIdempotencyKeys, WithLoopGuard, WithSchemas and WithRecoveryNotes.
func allOptions() []reflection.Option {
	return []reflection.Option{
		reflection.WithHealth(reflection.NewHealth(0, 0)),
		reflection.WithRetryBudget(reflection.NewRetryBudget(0)),
		reflection.WithEffects(notIdempotent),
		reflection.WithVerifier(unknownVerdict),
		reflection.WithIdempotencyKeys(callKey),
		reflection.WithLoopGuard(),
		reflection.WithSchemas(lookupSchema),
		reflection.WithRecoveryNotes(),
	}
}

// optionSets are the two Drivers the benchmarks compare, in benchstat's
// column order.
func optionSets() []struct {
	name string
	d    *reflection.Driver
} {
	return []struct {
		name string
		d    *reflection.Driver
	}{
		{"options=none", reflection.NewDriver()},
		{"options=all", reflection.NewDriver(allOptions()...)},
	}
}

// BenchmarkSafeDefaults: the success path, bare and with every option on,
// for a dispatch given as a func value, a method value written in the Run
// call, and a closure written there.
func BenchmarkSafeDefaults(b *testing.B) {
	ctx := context.Background()
	for _, o := range optionSets() {
		d := o.d
		b.Run("dispatch=func/"+o.name, func(b *testing.B) {
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, okTool)
			}
			checkOK(b)
		})
		b.Run("dispatch=method/"+o.name, func(b *testing.B) {
			reg := newRegistry()
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, reg.Dispatch)
			}
			checkOK(b)
		})
		b.Run("dispatch=closure/"+o.name, func(b *testing.B) {
			reg := newRegistry()
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
					return reg.Dispatch(ctx, c)
				})
			}
			checkOK(b)
		})
	}
}

// BenchmarkSafeDefaultsParallel is BenchmarkSafeDefaults under
// b.RunParallel: every goroutine shares one Driver, so one Health, one
// budget and one memory; each binds its own method value or closure. Run
// with -cpu 1,2: a lock or a contended write on the success path would
// show as options=all falling behind options=none with more goroutines.
func BenchmarkSafeDefaultsParallel(b *testing.B) {
	ctx := context.Background()
	for _, o := range optionSets() {
		d := o.d
		b.Run("dispatch=func/"+o.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				var res reflection.ToolResult
				var err error
				for pb.Next() {
					res, err = d.Run(ctx, call, okTool)
				}
				checkParallel(b, res, err)
			})
		})
		b.Run("dispatch=method/"+o.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				reg := newRegistry()
				var res reflection.ToolResult
				var err error
				for pb.Next() {
					res, err = d.Run(ctx, call, reg.Dispatch)
				}
				checkParallel(b, res, err)
			})
		})
		b.Run("dispatch=closure/"+o.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				reg := newRegistry()
				var res reflection.ToolResult
				var err error
				for pb.Next() {
					res, err = d.Run(ctx, call, func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
						return reg.Dispatch(ctx, c)
					})
				}
				checkParallel(b, res, err)
			})
		})
	}
}

// failTool fails every call with a plain error, which the effect guard
// cannot tell from a failure after the tool acted.
var failTool reflection.DispatchFunc = func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
	return reflection.ToolResult{}, errFlaky
}

// memoryInputs are distinct inputs of the failed-call benchmark, twice as
// many as a memory holds, so that remembering them cycles the memory: once
// full, every call remembered forgets the oldest.
var memoryInputs = func() []reflection.ToolCall {
	calls := make([]reflection.ToolCall, 20_000)
	for i := range calls {
		calls[i] = reflection.ToolCall{ID: fmt.Sprintf("call_%05d", i), Name: "read_file",
			Input: json.RawMessage(fmt.Sprintf(`{"path":"docs/notes-%05d.md"}`, i))}
	}
	return calls
}()

// BenchmarkFailedCallMemory: a call of a tool that is not idempotent fails
// in a way that does not tell whether it acted; the strategy would retry,
// the effect guard holds the retry back, and with no Asker the call ends
// asking a human (reason ambiguous_effect). memory=off: WithEffects with
// WithEffectMemory(nil). memory=remember: the Driver's own memory, a new
// input each call, so every call is remembered (a digest of its input, an
// entry, the oldest forgotten once the memory is full). memory=recall: the
// same input each call, so every call after the first is the model's
// re-issue of a remembered one: matched before its first dispatch and
// asked about without running.
func BenchmarkFailedCallMemory(b *testing.B) {
	ctx := context.Background()
	base := []reflection.Option{
		reflection.WithReflector(retryReflector),
		reflection.WithStrategy(zeroBackoff),
		reflection.WithEffects(notIdempotent),
	}
	check := func(b *testing.B) {
		b.Helper()
		if sinkErr != nil || !sinkRes.IsError {
			b.Fatalf("last run: got (%+v, %v), want a soft end", sinkRes, sinkErr)
		}
	}
	b.Run("memory=off", func(b *testing.B) {
		d := reflection.NewDriver(append(base, reflection.WithEffectMemory(nil))...)
		i := 0
		for b.Loop() {
			sinkRes, sinkErr = d.Run(ctx, memoryInputs[i%len(memoryInputs)], failTool)
			i++
		}
		check(b)
	})
	b.Run("memory=remember", func(b *testing.B) {
		d := reflection.NewDriver(base...)
		for _, c := range memoryInputs[len(memoryInputs)/2:] { // a full memory, none of it the inputs below
			_, _ = d.Run(ctx, c, failTool)
		}
		i := 0
		for b.Loop() {
			sinkRes, sinkErr = d.Run(ctx, memoryInputs[i%(len(memoryInputs)/2)], failTool)
			i++
		}
		check(b)
	})
	b.Run("memory=recall", func(b *testing.B) {
		d := reflection.NewDriver(base...)
		_, _ = d.Run(ctx, memoryInputs[0], failTool)
		for b.Loop() {
			sinkRes, sinkErr = d.Run(ctx, memoryInputs[0], failTool)
		}
		check(b)
	})
}

// BenchmarkSuccessMemoryHeld: the success path with every option on when
// the Driver's effect memory is not empty, for a call it has no entry for:
// memory=empty; memory=other_tool, the memory full of calls of another
// tool; memory=same_tool, one call of this tool with another input. A
// call of a guarded tool is looked up before its first dispatch whenever
// the memory may hold a call of its tool.
func BenchmarkSuccessMemoryHeld(b *testing.B) {
	ctx := context.Background()
	other := make([]reflection.ToolCall, len(memoryInputs)/2)
	for i, c := range memoryInputs[:len(other)] {
		c.Name = "write_file"
		other[i] = c
	}
	for _, tc := range []struct {
		name string
		held []reflection.ToolCall
	}{
		{"memory=empty", nil},
		{"memory=other_tool", other},
		{"memory=same_tool", memoryInputs[:1]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			// The calls are remembered through a Driver of their own that
			// shares the memory, so that the measured Driver's breaker and
			// budget are as fresh as in BenchmarkSafeDefaults.
			m := reflection.NewEffectMemory(0)
			filler := reflection.NewDriver(reflection.WithReflector(retryReflector), reflection.WithStrategy(zeroBackoff),
				reflection.WithEffects(notIdempotent), reflection.WithEffectMemory(m))
			for _, c := range tc.held {
				_, _ = filler.Run(ctx, c, failTool)
			}
			if m.Len() != len(tc.held) {
				b.Fatalf("the memory holds %d calls, want %d", m.Len(), len(tc.held))
			}
			d := reflection.NewDriver(append(allOptions(), reflection.WithEffectMemory(m))...)
			reg := newRegistry()
			for b.Loop() {
				sinkRes, sinkErr = d.Run(ctx, call, reg.Dispatch)
			}
			checkOK(b)
		})
	}
}
