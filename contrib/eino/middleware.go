package reflectioneino

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
)

// Middleware returns a compose.ToolMiddleware that runs every tool call of a
// ToolsNode through d, for tools of all four kinds.
//
// A failing call is analysed and retried as d decides, with its corrections:
// an InputFix reruns the tool with the new arguments, a ToolChange runs
// another tool of the Toolset in its place, under that tool's own RunInfo
// (callbacks.ReuseHandlers) and with eino's callbacks around it, as the
// ToolsNode would run it. What the model then sees:
//   - a success: the tool's output, as the tool returned it;
//   - Skip, AskUser or Fail: the failure text as the tool's output, with a nil
//     error, so the graph goes on and the model can change its plan (without
//     the adapter, a tool's error aborts the whole graph run);
//   - the ceiling (*reflection.ToolRecoveryExhaustedError) or a wait that
//     ctx's deadline cannot fit: the failure text as the output, too;
//   - ctx ended: the Driver's error, which matches ctx.Err();
//   - an interrupt (tool.Interrupt and its kin, compose.InterruptAndRerun):
//     the tool's error, untouched and at once, without asking the Reflector,
//     so eino's human in the loop works as without the adapter.
//
// A streamable tool is retried only while StreamableRun returns an error:
// once it has returned a stream, the stream is the result, and an error read
// from it reaches the reader as it would without the adapter. A failure in
// the model's sight from a soft end is a stream of one chunk (one text part
// for enhanced tools).
//
// Put it last in ToolCallMiddlewares (Config does): eino wraps the list
// around each tool, first outermost, so the last one's next runs only the
// tool and its callbacks. Each attempt then fires the tool's callbacks, a
// switched tool runs exactly as the original would, and your middlewares
// see one call per tool call of the model, with its final result.
func (s *Toolset) Middleware(d *reflection.Driver) compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable:          s.invokable(d),
		Streamable:         s.streamable(d),
		EnhancedInvokable:  s.enhancedInvokable(d),
		EnhancedStreamable: s.enhancedStreamable(d),
	}
}

// toolCall is the Driver's view of a ToolsNode's tool input.
func toolCall(in *compose.ToolInput) reflection.ToolCall {
	return reflection.ToolCall{ID: in.CallID, Name: in.Name, Input: json.RawMessage(in.Arguments)}
}

// sameTool returns the input for next when call still names next's tool:
// in itself when nothing changed, else a copy with the corrected arguments.
// For a call to another tool (a ToolChange) it returns nil.
func sameTool(in *compose.ToolInput, call reflection.ToolCall) *compose.ToolInput {
	if call.Name != in.Name {
		return nil
	}
	if string(call.Input) == in.Arguments {
		return in
	}
	c := *in
	c.Arguments = string(call.Input)
	return &c
}

func (s *Toolset) invokable(d *reflection.Driver) compose.InvokableToolMiddleware {
	return func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			res, err := run(ctx, d, toolCall(in), func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				if same := sameTool(in, call); same != nil {
					out, err := next(ctx, same)
					if err != nil || out == nil {
						return reflection.ToolResult{}, err
					}
					return reflection.ToolResult{Content: out.Result}, nil
				}
				m, err := s.member(call.Name)
				if err != nil {
					return reflection.ToolResult{}, err
				}
				out, err := m.invokeText(ctx, string(call.Input), in.CallOptions)
				return reflection.ToolResult{Content: out}, err
			})
			if err != nil {
				return nil, err
			}
			return &compose.ToolOutput{Result: res.Content}, nil
		}
	}
}

func (s *Toolset) streamable(d *reflection.Driver) compose.StreamableToolMiddleware {
	return func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
			var stream *schema.StreamReader[string]
			res, err := run(ctx, d, toolCall(in), func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				if same := sameTool(in, call); same != nil {
					out, err := next(ctx, same)
					if err != nil {
						if out != nil && out.Result != nil {
							out.Result.Close()
						}
						return reflection.ToolResult{}, err
					}
					if out != nil {
						stream = out.Result
					}
					return reflection.ToolResult{}, nil
				}
				m, err := s.member(call.Name)
				if err != nil {
					return reflection.ToolResult{}, err
				}
				stream, err = m.streamText(ctx, string(call.Input), in.CallOptions)
				return reflection.ToolResult{}, err
			})
			switch {
			case err != nil:
				return nil, err
			case res.IsError:
				return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{res.Content})}, nil
			case stream == nil:
				return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{})}, nil
			default:
				return &compose.StreamToolOutput{Result: stream}, nil
			}
		}
	}
}

func (s *Toolset) enhancedInvokable(d *reflection.Driver) compose.EnhancedInvokableToolMiddleware {
	return func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
			var result *schema.ToolResult
			res, err := run(ctx, d, toolCall(in), func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				if same := sameTool(in, call); same != nil {
					out, err := next(ctx, same)
					if err != nil {
						return reflection.ToolResult{}, err
					}
					result = nil
					if out != nil {
						result = out.Result
					}
					return reflection.ToolResult{Content: resultText(result)}, nil
				}
				m, err := s.member(call.Name)
				if err != nil {
					return reflection.ToolResult{}, err
				}
				r, err := m.invokeEnhanced(ctx, string(call.Input), in.CallOptions)
				if err != nil {
					return reflection.ToolResult{}, err
				}
				result = r
				return reflection.ToolResult{Content: resultText(r)}, nil
			})
			switch {
			case err != nil:
				return nil, err
			case res.IsError:
				return &compose.EnhancedInvokableToolOutput{Result: textResult(res.Content)}, nil
			case result == nil:
				return &compose.EnhancedInvokableToolOutput{Result: &schema.ToolResult{}}, nil
			default:
				return &compose.EnhancedInvokableToolOutput{Result: result}, nil
			}
		}
	}
}

func (s *Toolset) enhancedStreamable(d *reflection.Driver) compose.EnhancedStreamableToolMiddleware {
	return func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
			var stream *schema.StreamReader[*schema.ToolResult]
			res, err := run(ctx, d, toolCall(in), func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				if same := sameTool(in, call); same != nil {
					out, err := next(ctx, same)
					if err != nil {
						if out != nil && out.Result != nil {
							out.Result.Close()
						}
						return reflection.ToolResult{}, err
					}
					if out != nil {
						stream = out.Result
					}
					return reflection.ToolResult{}, nil
				}
				m, err := s.member(call.Name)
				if err != nil {
					return reflection.ToolResult{}, err
				}
				stream, err = m.streamEnhanced(ctx, string(call.Input), in.CallOptions)
				return reflection.ToolResult{}, err
			})
			switch {
			case err != nil:
				return nil, err
			case res.IsError:
				return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(res.Content)})}, nil
			case stream == nil:
				return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{})}, nil
			default:
				return &compose.EnhancedStreamableToolOutput{Result: stream}, nil
			}
		}
	}
}
