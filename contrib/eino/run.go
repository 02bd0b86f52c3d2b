package reflectioneino

import (
	"context"
	"errors"

	"github.com/cloudwego/eino/compose"
	"github.com/loopctl-go/reflection"
)

// errInterrupted is the cause with which the adapter ends the Driver's run
// when a tool interrupts: it shows in the Driver's logs and observer hooks.
var errInterrupted = errors.New("reflectioneino: the tool interrupted for eino's human in the loop")

// isInterrupt reports whether err is one of eino's interrupt signals: those
// of tool.Interrupt, tool.StatefulInterrupt and tool.CompositeInterrupt, the
// deprecated compose.InterruptAndRerun, and a nested graph's interrupt.
func isInterrupt(err error) bool {
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return true
	}
	_, ok := compose.ExtractInterruptInfo(err)
	return ok
}

// run runs call through the Driver and maps what Run returns to what eino
// gets back.
//
// An interrupt from the tool is kept aside and the Driver's context is
// cancelled with errInterrupted, so the Driver stops at once without asking
// its Reflector; the interrupt is then returned exactly as the tool returned
// it, for eino to checkpoint. Of Run's errors, only what
// reflection.FrameworkError keeps is returned: the error of a call whose ctx
// (the caller's, not the Driver's cancelled one) has ended; any other
// (exhaustion, a wait the deadline cannot fit) leaves the result's failure
// text as the tool's output, so the agent goes on. Soft results come back
// with a nil error.
func run(ctx context.Context, d *reflection.Driver, call reflection.ToolCall, dispatch reflection.DispatchFunc) (reflection.ToolResult, error) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g := interruptGuard{dispatch: dispatch, cancel: cancel}
	res, err := d.Run(runCtx, call, g.run)
	if g.interrupt != nil {
		return reflection.ToolResult{ID: call.ID}, g.interrupt
	}
	return res, reflection.FrameworkError(ctx, err)
}

// interruptGuard wraps a dispatch func and catches eino's interrupts in it.
// The Driver calls dispatch on the goroutine of Run, one attempt at a time,
// so its fields need no lock.
type interruptGuard struct {
	dispatch  reflection.DispatchFunc
	cancel    context.CancelCauseFunc
	interrupt error
}

func (g *interruptGuard) run(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	res, err := g.dispatch(ctx, call)
	if err != nil && isInterrupt(err) {
		g.interrupt = err
		g.cancel(errInterrupted)
	}
	return res, err
}
