package reflectiontest

import (
	"context"
	"sync"

	"github.com/loopctl-go/reflection"
)

// Outcome is what one call of a scripted Tool produces; make one with
// Succeed, Fail, Error or Panic.
type Outcome struct {
	result reflection.ToolResult
	err    error
	panics any // when not nil, the call panics with it
}

// Succeed is a call that succeeds with content.
func Succeed(content string) Outcome { return Outcome{result: reflection.ToolResult{Content: content}} }

// Fail is a call that returns a result with IsError and text as its Content.
func Fail(text string) Outcome {
	return Outcome{result: reflection.ToolResult{Content: text, IsError: true}}
}

// Error is a call whose dispatch returns err.
func Error(err error) Outcome { return Outcome{err: err} }

// Panic is a call that panics with v (which must not be nil).
func Panic(v any) Outcome { return Outcome{panics: v} }

// Tool is a scripted dispatch func: each call gets the next outcome, and
// past the end of its script the last one again. It records every call it
// receives. A Tool without a script fails every call.
type Tool struct {
	mu       sync.Mutex
	outcomes []Outcome
	calls    []reflection.ToolCall
}

// NewTool returns a Tool that produces outcomes in order.
func NewTool(outcomes ...Outcome) *Tool {
	return &Tool{outcomes: append([]Outcome(nil), outcomes...)}
}

// Dispatch records call and produces the next outcome; it has the
// reflection.DispatchFunc signature. Results carry call.ID.
func (t *Tool) Dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	t.mu.Lock()
	n := len(t.calls)
	t.calls = append(t.calls, call)
	var o Outcome
	switch {
	case len(t.outcomes) == 0:
		o = Fail("reflectiontest: the tool has no script")
	case n < len(t.outcomes):
		o = t.outcomes[n]
	default:
		o = t.outcomes[len(t.outcomes)-1]
	}
	t.mu.Unlock()
	if o.panics != nil {
		panic(o.panics)
	}
	res := o.result
	res.ID = call.ID
	return res, o.err
}

// Calls returns every call the Tool received, in order.
func (t *Tool) Calls() []reflection.ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]reflection.ToolCall(nil), t.calls...)
}
