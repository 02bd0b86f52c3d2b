package reflectioneino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
)

// WrapTool returns a tool.InvokableTool that runs every call of t through d,
// for a tool used on its own: outside a ToolsNode, or in one whose
// middleware list you do not control. Results, hard errors and interrupts
// map as Middleware says: a soft end returns the failure text with a nil
// error, so a ToolsNode around the wrapper does not abort the graph.
//
// The wrapper knows only t: an InputFix reruns t, but a ToolChange cannot
// run t under another name. A call whose correction names another tool
// fails with an error matching ErrUnknownTool, which the Reflector sees
// like any failure, and t is not run for it. Use a Toolset to let a
// ToolChange switch between tools.
//
// Info is t's own. In a ToolsNode the wrapper has t's RunInfo type and fires
// callbacks as t would: a tool that fires its own does so on every attempt;
// for any other tool the ToolsNode fires them once around the whole call. The
// call id is compose.GetToolCallID(ctx), empty outside a ToolsNode. WrapTool
// calls t.Info once, to check the tool; it fails for a nil t and a tool whose
// Info fails or has no name.
func WrapTool(ctx context.Context, d *reflection.Driver, t tool.InvokableTool) (tool.InvokableTool, error) {
	if t == nil {
		return nil, errors.New("reflectioneino: WrapTool: nil tool")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	s, err := toolSchema(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("reflectioneino: WrapTool: %w", err)
	}
	return &wrappedTool{tool: t, driver: d, name: s.Name, typ: implType(t)}, nil
}

// wrappedTool is what WrapTool returns.
type wrappedTool struct {
	tool   tool.InvokableTool
	driver *reflection.Driver
	name   string
	typ    string
}

// Info returns the wrapped tool's ToolInfo.
func (w *wrappedTool) Info(ctx context.Context) (*schema.ToolInfo, error) {
	return w.tool.Info(ctx)
}

// GetType returns the wrapped tool's type, for eino's RunInfo.
func (w *wrappedTool) GetType() string { return w.typ }

// IsCallbacksEnabled reports whether the wrapped tool fires its own callbacks.
func (w *wrappedTool) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(w.tool) }

// InvokableRun runs the call through the Driver.
func (w *wrappedTool) InvokableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (string, error) {
	call := reflection.ToolCall{ID: compose.GetToolCallID(ctx), Name: w.name, Input: json.RawMessage(argumentsInJSON)}
	res, err := run(ctx, w.driver, call, func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if call.Name != w.name {
			return reflection.ToolResult{}, fmt.Errorf("%w %q (this wrapper runs only %q)", ErrUnknownTool, call.Name, w.name)
		}
		out, err := w.tool.InvokableRun(ctx, string(call.Input), opts...)
		return reflection.ToolResult{Content: out}, err
	})
	if err != nil {
		return "", err
	}
	return res.Content, nil
}
