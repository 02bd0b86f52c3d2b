package bench

import (
	"context"
	"testing"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/loopctl-go/reflection"
)

// Each benchmark has one sub-benchmark per library, named so that benchstat
// puts them side by side: direct (the floor), driver, cenkalti, retrygo,
// failsafe. A peer's operation is a closure built per call, as a caller of
// that library writes it for each tool call; its options or policy are built
// once and shared.

// BenchmarkSuccess: the tool succeeds on the first call, reached as the
// README writes it: the Driver is given the registry's method value in the
// Run call, each peer a closure that calls it, and the floor calls it
// directly.
func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	b.Run("lib=direct", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = reg.Dispatch(ctx, call)
		}
		checkOK(b)
	})
	b.Run("lib=driver", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = defaultDriver.Run(ctx, call, reg.Dispatch)
		}
		checkOK(b)
	})
	b.Run("lib=cenkalti", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = backoff.Retry(ctx, func() (reflection.ToolResult, error) {
				return reg.Dispatch(ctx, call)
			}, cenkaltiOpts...)
		}
		checkOK(b)
	})
	b.Run("lib=retrygo", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = retry.DoWithData(func() (reflection.ToolResult, error) {
				return reg.Dispatch(ctx, call)
			}, retrygoOpts...)
		}
		checkOK(b)
	})
	b.Run("lib=failsafe", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = failsafeExec.Get(func() (reflection.ToolResult, error) {
				return reg.Dispatch(ctx, call)
			})
		}
		checkOK(b)
	})
}

// BenchmarkDispatchShape: the success path of the bare Driver for each way
// a host hands it the dispatch, each against a direct call of the same:
// dispatch=func, a func value held in a variable (okTool); dispatch=method,
// the registry's method value written in the Run call; dispatch=closure, a
// closure written in the Run call that captures the registry.
func BenchmarkDispatchShape(b *testing.B) {
	ctx := context.Background()
	b.Run("dispatch=func/lib=direct", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = okTool(ctx, call)
		}
		checkOK(b)
	})
	b.Run("dispatch=func/lib=driver", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = defaultDriver.Run(ctx, call, okTool)
		}
		checkOK(b)
	})
	b.Run("dispatch=method/lib=direct", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = reg.Dispatch(ctx, call)
		}
		checkOK(b)
	})
	b.Run("dispatch=method/lib=driver", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = defaultDriver.Run(ctx, call, reg.Dispatch)
		}
		checkOK(b)
	})
	b.Run("dispatch=closure/lib=direct", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
				return reg.Dispatch(ctx, c)
			}(ctx, call)
		}
		checkOK(b)
	})
	b.Run("dispatch=closure/lib=driver", func(b *testing.B) {
		reg := newRegistry()
		for b.Loop() {
			sinkRes, sinkErr = defaultDriver.Run(ctx, call, func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
				return reg.Dispatch(ctx, c)
			})
		}
		checkOK(b)
	})
}

// BenchmarkRetry3: the tool fails three times, then succeeds; four calls in
// all, no delay. The Driver asks a rule-based reflector, which calls the
// error recoverable, and a zero-delay ExponentialBackoff; the peers retry
// the same error. direct is a hand-written loop of up to four calls.
func BenchmarkRetry3(b *testing.B) {
	ctx := context.Background()
	b.Run("lib=direct", func(b *testing.B) {
		for b.Loop() {
			for range 4 {
				if sinkRes, sinkErr = flakyDispatch(ctx, call); sinkErr == nil {
					break
				}
			}
		}
		checkOK(b)
	})
	b.Run("lib=driver", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = retryDriver.Run(ctx, call, flakyDispatch)
		}
		checkOK(b)
	})
	b.Run("lib=cenkalti", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = backoff.Retry(ctx, func() (reflection.ToolResult, error) {
				return flakyDispatch(ctx, call)
			}, cenkaltiOpts...)
		}
		checkOK(b)
	})
	b.Run("lib=retrygo", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = retry.DoWithData(func() (reflection.ToolResult, error) {
				return flakyDispatch(ctx, call)
			}, retrygoOpts...)
		}
		checkOK(b)
	})
	b.Run("lib=failsafe", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = failsafeExec.Get(func() (reflection.ToolResult, error) {
				return flakyDispatch(ctx, call)
			})
		}
		checkOK(b)
	})
}

// BenchmarkRetry3Parallel is BenchmarkRetry3 under b.RunParallel: one Driver
// (and one set of peer options or one failsafe executor) shared by every
// goroutine, each goroutine with a flaky tool of its own. Compare -cpu 1,2.
func BenchmarkRetry3Parallel(b *testing.B) {
	ctx := context.Background()
	b.Run("lib=direct", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			tool := newFlaky()
			var res reflection.ToolResult
			var err error
			for pb.Next() {
				for range 4 {
					if res, err = tool(ctx, call); err == nil {
						break
					}
				}
			}
			checkParallel(b, res, err)
		})
	})
	b.Run("lib=driver", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			tool := newFlaky()
			var res reflection.ToolResult
			var err error
			for pb.Next() {
				res, err = retryDriver.Run(ctx, call, tool)
			}
			checkParallel(b, res, err)
		})
	})
	b.Run("lib=cenkalti", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			tool := newFlaky()
			var res reflection.ToolResult
			var err error
			for pb.Next() {
				res, err = backoff.Retry(ctx, func() (reflection.ToolResult, error) {
					return tool(ctx, call)
				}, cenkaltiOpts...)
			}
			checkParallel(b, res, err)
		})
	})
	b.Run("lib=retrygo", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			tool := newFlaky()
			var res reflection.ToolResult
			var err error
			for pb.Next() {
				res, err = retry.DoWithData(func() (reflection.ToolResult, error) {
					return tool(ctx, call)
				}, retrygoOpts...)
			}
			checkParallel(b, res, err)
		})
	})
	b.Run("lib=failsafe", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			tool := newFlaky()
			var res reflection.ToolResult
			var err error
			for pb.Next() {
				res, err = failsafeExec.Get(func() (reflection.ToolResult, error) {
					return tool(ctx, call)
				})
			}
			checkParallel(b, res, err)
		})
	})
}

// BenchmarkInputFix: the tool rejects the input; the reflector proposes an
// InputFix, the Driver checks it (a JSON object under the size limit),
// applies it and retries without delay; the second call succeeds. direct is
// the hand-written equivalent: call, swap in the fixed input, call again.
// The peers have no notion of a correction and are left out.
func BenchmarkInputFix(b *testing.B) {
	ctx := context.Background()
	b.Run("lib=direct", func(b *testing.B) {
		for b.Loop() {
			c := badCall
			if sinkRes, sinkErr = inputTool(ctx, c); sinkErr != nil {
				c.Input = fixedInput
				sinkRes, sinkErr = inputTool(ctx, c)
			}
		}
		checkOK(b)
	})
	b.Run("lib=driver", func(b *testing.B) {
		for b.Loop() {
			sinkRes, sinkErr = fixDriver.Run(ctx, badCall, inputTool)
		}
		checkOK(b)
	})
}

// checkOK fails b unless the last run in the sinks succeeded.
func checkOK(b *testing.B) {
	b.Helper()
	if sinkErr != nil || sinkRes.IsError || sinkRes.Content != "ok" {
		b.Fatalf("last run: got (%+v, %v), want a success", sinkRes, sinkErr)
	}
}

// checkParallel fails b unless a goroutine's last run succeeded. A goroutine
// that got no iteration has a zero result and passes.
func checkParallel(b *testing.B, res reflection.ToolResult, err error) {
	if res == (reflection.ToolResult{}) && err == nil {
		return
	}
	if err != nil || res.IsError || res.Content != "ok" {
		b.Errorf("last run: got (%+v, %v), want a success", res, err)
	}
}
