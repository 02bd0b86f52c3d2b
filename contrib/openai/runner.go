package reflectionopenai

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/loopctl-go/reflection"
	"github.com/openai/openai-go/v3"
)

// Runner runs the tool calls of an assistant message through a Driver, each
// call by the host's own dispatch, and answers each with a tool message.
// Its settings are fixed by NewRunner, and it is safe for concurrent use.
type Runner struct {
	driver   *reflection.Driver
	dispatch reflection.DispatchFunc
	config
}

// NewRunner returns a Runner that runs every tool call through d with
// dispatch, the host's own way of running one call (its registry, hooks and
// checks). A nil d behaves like reflection.NewDriver(), as a nil *Driver
// does. Nil options are ignored.
//
// A custom tool call reaches dispatch with the input {"input": "<text>"};
// reflection.InputText reads the text.
func NewRunner(d *reflection.Driver, dispatch reflection.DispatchFunc, opts ...Option) *Runner {
	r := &Runner{driver: d, dispatch: dispatch, config: defaultConfig()}
	for _, opt := range opts {
		if opt != nil {
			opt(&r.config)
		}
	}
	return r
}

// Run runs every tool call of msg (translated by ToolCall) through the
// Driver and returns one tool message per call, in the model's order, ready
// to append after msg.ToParam(). A message without tool calls returns none.
//
// The turn goes on whatever the tools do: a call the Driver gives up on
// (Skip, AskUser, Fail) and a call that is still failing at the Driver's
// ceiling both answer with the latest failure text, and a call of a type
// ToolCall cannot translate answers with an error text, without being run.
// Run returns an error only when ctx has ended, as reflection.FrameworkError
// says for every adapter: the error of the first call, in the model's order,
// that ended in an error after ctx ended (for a call that ctx stopped, it
// matches ctx.Err()). The messages are complete even then, each stopped call
// answered with its latest failure text or the cancel error's text. A nil dispatch returns an error matching reflection.ErrNilDispatch
// and no messages.
//
// The deprecated function_call of msg is not run. Run starts no goroutine
// unless WithConcurrency allows it, and none outlives it; a panic in the
// Driver's hooks on another goroutine is raised again on the caller's.
func (r *Runner) Run(ctx context.Context, msg openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, error) {
	if len(msg.ToolCalls) == 0 {
		if r.dispatch == nil {
			return nil, nilDispatch()
		}
		return nil, nil
	}
	calls := make([]reflection.ToolCall, len(msg.ToolCalls))
	results := make([]reflection.ToolResult, len(msg.ToolCalls))
	todo := make([]int, 0, len(msg.ToolCalls))
	for i, tc := range msg.ToolCalls {
		call, err := ToolCall(tc)
		if err != nil {
			results[i] = reflection.ToolResult{ID: tc.ID, Content: err.Error(), IsError: true}
			continue
		}
		calls[i] = call
		todo = append(todo, i)
	}
	err := r.run(ctx, calls, results, todo)
	if errors.Is(err, reflection.ErrNilDispatch) {
		return nil, err
	}
	return ToolMessages(results), err
}

// RunCalls runs calls through the Driver and returns their results in the
// same order, for a host that translates the calls itself or needs each
// result's IsError. Its errors are Run's.
func (r *Runner) RunCalls(ctx context.Context, calls []reflection.ToolCall) ([]reflection.ToolResult, error) {
	results := make([]reflection.ToolResult, len(calls))
	todo := make([]int, len(calls))
	for i := range todo {
		todo[i] = i
	}
	if err := r.run(ctx, calls, results, todo); err != nil {
		if errors.Is(err, reflection.ErrNilDispatch) {
			return nil, err
		}
		return results, err
	}
	return results, nil
}

func nilDispatch() error {
	return fmt.Errorf("reflectionopenai: runner has no dispatch func: %w", reflection.ErrNilDispatch)
}

// run runs calls[i] for every i in todo into results[i]. It returns the
// error of the first call, in the model's order, that ended in an error the
// host framework must see (reflection.FrameworkError: ctx had ended).
func (r *Runner) run(ctx context.Context, calls []reflection.ToolCall, results []reflection.ToolResult, todo []int) error {
	if r.dispatch == nil {
		return nilDispatch()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	errs := make([]error, len(calls))
	if r.concurrency <= 1 || len(todo) <= 1 {
		for _, i := range todo {
			results[i], errs[i] = r.runOne(ctx, calls[i])
		}
	} else {
		r.runConcurrently(ctx, calls, results, errs, todo)
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("reflectionopenai: tool call %q (%s): %w", calls[i].ID, calls[i].Name, err)
		}
	}
	return nil
}

// runOne runs one call through the Driver and keeps of Run's error only what
// the host framework must see: an error of a call whose ctx has ended.
func (r *Runner) runOne(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	res, err := r.driver.Run(ctx, call, r.dispatch)
	return res, reflection.FrameworkError(ctx, err)
}

// runConcurrently runs the calls on up to r.concurrency goroutines, which take the
// calls in order, and waits for all of them. A panic on one of them is
// raised again here once every goroutine has ended.
func (r *Runner) runConcurrently(ctx context.Context, calls []reflection.ToolCall, results []reflection.ToolResult, errs []error, todo []int) {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		panicMu  sync.Mutex
		panicked bool
		value    any
	)
	for range min(r.concurrency, len(todo)) {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					panicMu.Lock()
					if !panicked {
						panicked, value = true, v
					}
					panicMu.Unlock()
				}
			}()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				i := todo[k]
				results[i], errs[i] = r.runOne(ctx, calls[i])
			}
		})
	}
	wg.Wait()
	if panicked {
		panic(value)
	}
}
