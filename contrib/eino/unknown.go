package reflectioneino

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/eino/compose"
	"github.com/loopctl-go/reflection"
)

// UnknownToolsHandler returns a handler for ToolsNodeConfig's field of that
// name that runs a call to a tool the ToolsNode does not have through d.
//
// A ToolsNode without such a handler fails the whole graph run on a tool
// name the model made up, and it checks names before any middleware runs, so
// Middleware alone cannot help. Through this handler the call fails with an
// error matching ErrUnknownTool, whose text lists the tools that exist; d's
// Reflector can answer it with a ToolChange to one of them, which then runs
// under its own RunInfo with eino's callbacks, as in Middleware. Otherwise the
// failure text becomes the tool's output and the model sees it. Results,
// hard errors and interrupts map as Middleware says. The handler has no
// tool options to pass on: eino gives it none.
func (s *Toolset) UnknownToolsHandler(d *reflection.Driver) func(ctx context.Context, name, input string) (string, error) {
	return func(ctx context.Context, name, input string) (string, error) {
		call := reflection.ToolCall{ID: compose.GetToolCallID(ctx), Name: name, Input: json.RawMessage(input)}
		res, err := run(ctx, d, call, func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			m, err := s.member(call.Name)
			if err != nil {
				return reflection.ToolResult{}, err
			}
			out, err := m.invokeText(ctx, string(call.Input), nil)
			return reflection.ToolResult{Content: out}, err
		})
		if err != nil {
			return "", err
		}
		return res.Content, nil
	}
}
