package reflectionmcp

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
var ErrNilSession = errors.New("reflectionmcp: nil client session")

// Dispatch returns a reflection.DispatchFunc that runs each call as one
// tools/call request over session.
//
// The call's Input is sent as the request's arguments as it is; an empty
// input or a JSON null sends no arguments (the SDK then sends an empty
// object), and an input that is not valid JSON fails the attempt without a
// request. The result's content becomes the ToolResult's Content as
// [ResultText] says, cut at WithMaxResultBytes, and its IsError is kept, so
// the Driver treats an error result as a failure. A Go error from the
// session (an unknown tool, a closed connection, a protocol error) is
// returned wrapped, so the Driver sees a failure whose text names the tool
// and the SDK's message, and errors.As still reaches the SDK's
// *jsonrpc.Error.
//
// A failure in which the call was refused before the tool ran matches
// reflection.ErrInputRejected, and so reflection.ErrNoEffect: a Health
// counts it neither as a failure nor as a success (one agent's invalid
// calls never open a breaker for the others), and the effect guard of
// reflection.WithEffects knows nothing ran. Those failures are a nil
// session, an input that is not JSON, a JSON-RPC error whose code says the
// server refused the request before running anything (parse error, invalid
// request, method not found, invalid params: the SDK's answer to an unknown
// tool), and the error result the SDK's server returns for arguments that
// fail a typed tool's input schema (its text starts `validating
// "arguments": `); that one is returned as the result it is, with an error
// whose text is the result's. Every other failure may have acted.
//
// A ToolChange needs nothing more: a retry under another name is a
// tools/call for that name. The func is safe for concurrent use, as the
// session is.
func Dispatch(session *mcp.ClientSession, opts ...Option) reflection.DispatchFunc {
	limit := newConfig(opts).maxResultBytes
	return func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		return callTool(ctx, session, call, limit)
	}
}

// callTool runs one tools/call; limit caps the result's text.
func callTool(ctx context.Context, session *mcp.ClientSession, call reflection.ToolCall, limit int) (reflection.ToolResult, error) {
	if session == nil {
		return reflection.ToolResult{ID: call.ID}, rejected(fmt.Errorf("reflectionmcp: tool %q: %w", call.Name, ErrNilSession))
	}
	params := &mcp.CallToolParams{Name: call.Name}
	if args := bytes.TrimSpace(call.Input); len(args) > 0 && !bytes.Equal(args, []byte("null")) {
		if !json.Valid(args) {
			return reflection.ToolResult{ID: call.ID}, rejected(fmt.Errorf("reflectionmcp: tool %q: input is not valid JSON", call.Name))
		}
		params.Arguments = json.RawMessage(args)
	}
	res, err := session.CallTool(ctx, params)
	if err != nil {
		err = fmt.Errorf("reflectionmcp: tool %q: %w", call.Name, err)
		if refusedRequest(err) {
			err = rejected(err)
		}
		return reflection.ToolResult{ID: call.ID}, err
	}
	out := reflection.ToolResult{ID: call.ID, Content: resultText(res, limit), IsError: res.IsError}
	if argumentsRejected(res) {
		return out, rejected(errors.New(out.Content))
	}
	return out, nil
}
