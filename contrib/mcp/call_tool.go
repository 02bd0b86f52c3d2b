package reflectionmcp

import (
	"context"
	"fmt"

	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTool runs call through d over session, as [Dispatch] runs each
// attempt, and returns what the model should see. Its error is
// reflection.FrameworkError's: non-nil only when ctx has ended. On every
// other end of the call (a success, Skip, AskUser, Fail, a wait refused
// because of ctx's deadline, a refusal of the breaker or the budget, or the
// sixth failed call with the strategy still saying Retry) the error is nil
// and the result, with IsError set for a failure, carries the latest failure
// text, so the agent goes on and the model can change its plan.
//
// A nil session is the host's mistake, not the model's: CallTool returns an
// error wrapping ErrNilSession (and an error result) without running d. A
// nil d behaves as reflection.NewDriver() does. A host that wants Run's own
// error (to tell exhaustion from a soft end, say) calls d.Run with Dispatch
// instead.
func CallTool(ctx context.Context, d *reflection.Driver, session *mcp.ClientSession, call reflection.ToolCall, opts ...Option) (reflection.ToolResult, error) {
	if session == nil {
		err := fmt.Errorf("reflectionmcp: tool %q: %w", call.Name, ErrNilSession)
		return reflection.ToolResult{ID: call.ID, Content: err.Error(), IsError: true}, err
	}
	res, err := d.Run(ctx, call, Dispatch(session, opts...))
	return res, reflection.FrameworkError(ctx, err)
}
