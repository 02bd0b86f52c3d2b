package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNilSession is returned, wrapped, when a nil *mcp.ClientSession is given
// to Dispatch, CallTool or Tools.Load.
var ErrNilSession = errors.New("mcp: nil client session")

// Dispatch returns a reflection.DispatchFunc that runs each call as one
// tools/call request over session.
//
// The call's Input is sent as the request's arguments as it is; an empty
// input or a JSON null sends no arguments (the SDK then sends an empty
// object), and an input that is not valid JSON fails the attempt without a
// request. The result's content becomes the ToolResult's Content as
// [ResultText] says, and its IsError is kept, so the Driver treats an error
// result as a failure. A Go error from the session (an unknown tool, a
// closed connection, a protocol error) is returned wrapped, so the Driver
// sees a failure whose text names the tool and the SDK's message, and
// errors.As still reaches the SDK's *jsonrpc.Error.
//
// A ToolChange needs nothing more: a retry under another name is a
// tools/call for that name. The func is safe for concurrent use, as the
// session is. With a nil session every call fails with an error wrapping
// ErrNilSession.
func Dispatch(session *mcp.ClientSession) reflection.DispatchFunc {
	return func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		return callTool(ctx, session, call)
	}
}

func callTool(ctx context.Context, session *mcp.ClientSession, call reflection.ToolCall) (reflection.ToolResult, error) {
	if session == nil {
		return reflection.ToolResult{ID: call.ID}, fmt.Errorf("mcp: tool %q: %w", call.Name, ErrNilSession)
	}
	params := &mcp.CallToolParams{Name: call.Name}
	if args := bytes.TrimSpace(call.Input); len(args) > 0 && !bytes.Equal(args, []byte("null")) {
		if !json.Valid(args) {
			return reflection.ToolResult{ID: call.ID}, fmt.Errorf("mcp: tool %q: input is not valid JSON", call.Name)
		}
		params.Arguments = json.RawMessage(args)
	}
	res, err := session.CallTool(ctx, params)
	if err != nil {
		return reflection.ToolResult{ID: call.ID}, fmt.Errorf("mcp: tool %q: %w", call.Name, err)
	}
	return reflection.ToolResult{ID: call.ID, Content: ResultText(res), IsError: res.IsError}, nil
}

// CallTool runs call through d over session and returns what the model
// should see. It returns a non-nil error only when ctx has ended: on every
// other end of the call (a success, Skip, AskUser, Fail, a wait refused
// because of ctx's deadline, or the sixth failed call with the strategy
// still saying Retry) the error is nil and the result, with IsError set for
// a failure, carries the latest failure text, so the agent goes on and the
// model can change its plan.
//
// A nil session is the host's mistake, not the model's: CallTool returns an
// error wrapping ErrNilSession (and an error result) without running d. A
// nil d behaves as reflection.NewDriver() does. A host that wants Run's own
// error (to tell exhaustion from a soft end, say) calls d.Run with
// [Dispatch] instead.
func CallTool(ctx context.Context, d *reflection.Driver, session *mcp.ClientSession, call reflection.ToolCall) (reflection.ToolResult, error) {
	if session == nil {
		err := fmt.Errorf("mcp: tool %q: %w", call.Name, ErrNilSession)
		return reflection.ToolResult{ID: call.ID, Content: err.Error(), IsError: true}, err
	}
	res, err := d.Run(ctx, call, Dispatch(session))
	if err != nil && ctx != nil && ctx.Err() != nil {
		return res, err
	}
	return res, nil
}
