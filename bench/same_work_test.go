package bench

import (
	"context"
	"testing"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/loopctl-go/reflection"
)

// TestSameWork checks that every library, as configured for the benchmarks,
// does the same work: one call on the success path, four calls (three
// retries) on the retry path, each ending in the tool's success. It times
// nothing.
func TestSameWork(t *testing.T) {
	ctx := context.Background()
	runners := []struct {
		name string
		run  func(fn reflection.DispatchFunc) (reflection.ToolResult, error)
	}{
		{"driver", func(fn reflection.DispatchFunc) (reflection.ToolResult, error) {
			return retryDriver.Run(ctx, call, fn)
		}},
		{"cenkalti", func(fn reflection.DispatchFunc) (reflection.ToolResult, error) {
			return backoff.Retry(ctx, func() (reflection.ToolResult, error) { return fn(ctx, call) }, cenkaltiOpts...)
		}},
		{"retrygo", func(fn reflection.DispatchFunc) (reflection.ToolResult, error) {
			return retry.DoWithData(func() (reflection.ToolResult, error) { return fn(ctx, call) }, retrygoOpts...)
		}},
		{"failsafe", func(fn reflection.DispatchFunc) (reflection.ToolResult, error) {
			return failsafeExec.Get(func() (reflection.ToolResult, error) { return fn(ctx, call) })
		}},
	}
	for _, r := range runners {
		t.Run(r.name+"/success", func(t *testing.T) {
			calls := 0
			res, err := r.run(func(c context.Context, tc reflection.ToolCall) (reflection.ToolResult, error) {
				calls++
				return okTool(c, tc)
			})
			if err != nil || res.Content != "ok" || calls != 1 {
				t.Errorf("got (%+v, %v) after %d calls, want ok after 1", res, err, calls)
			}
		})
		t.Run(r.name+"/retry3", func(t *testing.T) {
			tool := new(flakyTool)
			res, err := r.run(tool.dispatch)
			if err != nil || res.Content != "ok" || tool.n != 4 {
				t.Errorf("got (%+v, %v) after %d calls, want ok after 4", res, err, tool.n)
			}
		})
		t.Run(r.name+"/gives_up_after_4", func(t *testing.T) {
			calls := 0
			_, err := r.run(func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				calls++
				return reflection.ToolResult{}, errFlaky
			})
			if calls != 4 {
				t.Errorf("a tool that always fails was called %d times, want 4 (err %v)", calls, err)
			}
		})
	}
	t.Run("driver/input_fix", func(t *testing.T) {
		var inputs []string
		res, err := fixDriver.Run(ctx, badCall, func(c context.Context, tc reflection.ToolCall) (reflection.ToolResult, error) {
			inputs = append(inputs, string(tc.Input))
			return inputTool(c, tc)
		})
		want := []string{string(badInput), string(fixedInput)}
		if err != nil || res.Content != "ok" || len(inputs) != 2 || inputs[0] != want[0] || inputs[1] != want[1] {
			t.Errorf("got (%+v, %v) with inputs %q, want ok with inputs %q", res, err, inputs, want)
		}
	})
}
