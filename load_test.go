package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
)

var (
	loadGoroutines = flag.Int("load.goroutines", 2000, "goroutines per round in TestLoadSharedDriver (-short: at most 500)")
	loadRounds     = flag.Int("load.rounds", 10, "rounds in TestLoadSharedDriver; heap is compared after the first and the last")
)

// TestLoadSharedDriver runs one Driver from thousands of goroutines at once,
// with every kind of outcome mixed, for ten rounds. Under -race it shows the
// Driver (with a shared Reflector, strategy, schema lookup, logger and
// observer) has no data race; across rounds it shows memory does not grow
// and no goroutine is left behind.
func TestLoadSharedDriver(t *testing.T) {
	goroutines, rounds := *loadGoroutines, *loadRounds
	if testing.Short() {
		goroutines = min(goroutines, 500)
	}

	schemas := map[string]reflection.ToolSchema{
		"search":    {Name: "search", InputSchema: json.RawMessage(`{"type":"object"}`)},
		"read_file": {Name: "read_file", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	var analyses, finished, dispatches atomic.Int64
	d := reflection.NewDriver(
		reflection.WithSchemas(func(name string) (reflection.ToolSchema, bool) {
			s, ok := schemas[name]
			return s, ok
		}),
		reflection.WithAllowedTools("read_file", "search"),
		reflection.WithLogger(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		reflection.WithObserver(reflection.Observer{
			Finished: func(context.Context, int, reflection.ToolResult, error) { finished.Add(1) },
		}),
		reflection.WithReflector(reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			analyses.Add(1)
			if f.Attempt >= f.MaxAttempts {
				return reflection.FailureAnalysis{}, fmt.Errorf("attempt %d of %d", f.Attempt, f.MaxAttempts)
			}
			switch len(f.Error) % 7 {
			case 0:
				return reflection.FailureAnalysis{}, fmt.Errorf("%w: model down", reflection.ErrInternal)
			case 1:
				panic("reflector bug")
			case 2:
				return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
					Type: reflection.InputFix, ModifiedInput: json.RawMessage(fmt.Sprintf(`{"attempt":%d}`, f.Attempt+1)),
				}}, nil
			case 3:
				return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
					Type: reflection.ToolChange, AlternativeTool: "delete_all_files", // refused: not registered
				}}, nil
			case 4:
				return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
					Type: reflection.ToolChange, AlternativeTool: "read_file",
				}}, nil
			case 5:
				return reflection.FailureAnalysis{IsRecoverable: true, Severity: reflection.SeverityCritical,
					Correction: &reflection.Correction{Type: reflection.Escalate}}, nil
			}
			return reflection.FailureAnalysis{IsRecoverable: true}, nil
		})),
		reflection.WithStrategy(reflection.StrategyFunc(func(ctx context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
			if a.Severity == reflection.SeverityCritical {
				return reflection.AskUser{Prompt: "critical"}
			}
			// Retry forever (the Driver's ceiling must stop it), with real
			// but tiny delays, some negative.
			return reflection.Retry{Delay: time.Duration(attempt%3-1) * 100 * time.Microsecond}
		})),
	)

	// kinds of tool, chosen by goroutine index
	type tool func(ctx context.Context, attempt int, call reflection.ToolCall) (reflection.ToolResult, error)
	tools := []tool{
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "ok"}, nil
		},
		func(_ context.Context, attempt int, _ reflection.ToolCall) (reflection.ToolResult, error) {
			if attempt < 2 {
				return reflection.ToolResult{Content: "flaky!!", IsError: true}, nil // len 7: case 0
			}
			return reflection.ToolResult{Content: "ok"}, nil
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{}, errors.New("always broken") // len 13: case 6, plain retry
		},
		func(_ context.Context, attempt int, _ reflection.ToolCall) (reflection.ToolResult, error) {
			panic(fmt.Sprintf("tool panic %d", attempt))
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "bad input", IsError: true}, nil // len 9: case 2, InputFix
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "wrong tool", IsError: true}, nil // len 10: case 3, refused switch
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "use read", IsError: true}, nil // len 8: case 1, reflector panics
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "critical!!!!", IsError: true}, nil // len 12: case 5, AskUser
		},
		func(context.Context, int, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "swap now!!!", IsError: true}, nil // len 11: case 4, allowed switch
		},
	}

	var (
		mu       sync.Mutex
		errCount = map[string]int{}
		failures []string
	)
	runRound := func(round int) {
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kind := g % len(tools)
				id := fmt.Sprintf("r%d-g%d", round, g)
				ctx := context.Background()
				var cancel context.CancelFunc = func() {}
				if g%13 == 0 { // some calls run out of time
					ctx, cancel = context.WithTimeout(ctx, 150*time.Microsecond)
				}
				defer cancel()
				calls := 0
				res, err := d.Run(ctx, reflection.ToolCall{ID: id, Name: "search", Input: json.RawMessage(`{}`)},
					func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
						calls++
						dispatches.Add(1)
						if call.Name == "delete_all_files" {
							return reflection.ToolResult{}, errors.New("destructive tool reached dispatch")
						}
						return tools[kind](ctx, calls-1, call)
					})
				var problem string
				switch {
				case res.ID != id:
					problem = fmt.Sprintf("result ID %q, want %q", res.ID, id)
				case calls > reflection.MaxRecoveryAttempts+1:
					problem = fmt.Sprintf("%d dispatches", calls)
				case err != nil && !res.IsError:
					problem = fmt.Sprintf("hard error %v with a result that is not an error", err)
				case res.Content == "destructive tool reached dispatch":
					problem = "a refused ToolChange reached dispatch"
				}
				key := "nil"
				switch {
				case errors.Is(err, reflection.ErrToolRecoveryExhausted):
					key = "exhausted"
				case errors.Is(err, context.DeadlineExceeded):
					key = "deadline"
				case err != nil:
					key = "other: " + err.Error()
				}
				mu.Lock()
				errCount[key]++
				if problem != "" && len(failures) < 10 {
					failures = append(failures, id+": "+problem)
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
	}

	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	baseGoroutines := runtime.NumGoroutine()
	start := time.Now()
	var heap1, heapN uint64
	for round := 1; round <= rounds; round++ {
		// Each round runs in a synctest bubble: the retry delays and the
		// short deadlines use the fake clock (no real sleeps), the goroutines
		// still run in parallel for the race detector, and the bubble ends
		// only when every goroutine it started has exited.
		synctest.Test(t, func(*testing.T) { runRound(round) })
		switch round {
		case 1:
			heap1 = heap()
		case rounds:
			heapN = heap()
		}
	}
	took := time.Since(start)

	for _, f := range failures {
		t.Error(f)
	}
	for key, n := range errCount {
		if len(key) > 6 && key[:6] == "other:" {
			t.Errorf("%d runs returned an unexpected error: %s", n, key)
		}
	}
	total := int64(goroutines * rounds)
	if got := finished.Load(); got != total {
		t.Errorf("Observer.Finished called %d times, want %d", got, total)
	}
	if errCount["exhausted"] == 0 || errCount["nil"] == 0 {
		t.Errorf("outcomes not mixed enough: %v", errCount)
	}
	// Goroutines: back to where they were (a Run never leaves one behind;
	// synctest.Test has already waited for every goroutine of the rounds).
	if n := runtime.NumGoroutine(); n > baseGoroutines {
		t.Errorf("%d goroutines after the rounds, %d before", n, baseGoroutines)
	}
	// Memory: no growth from round 1 to the last, beyond a little slack.
	const slack = 4 << 20
	if heapN > 2*heap1+slack {
		t.Errorf("heap grew from %d KiB after round 1 to %d KiB after round %d", heap1>>10, heapN>>10, rounds)
	}
	t.Logf("%d goroutines × %d rounds = %d Runs, %d dispatches, %d analyses in %v; outcomes %v; heap after round 1: %d KiB, after round %d: %d KiB",
		goroutines, rounds, total, dispatches.Load(), analyses.Load(), took.Round(time.Millisecond), errCount, heap1>>10, rounds, heapN>>10)
}
