package reflectionmcp

import (
	"errors"
	"strings"

	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusedRequest reports whether err carries a JSON-RPC error whose code
// says the server refused the request as such, before any method ran: the
// JSON was not parsed (-32700), the request was malformed (-32600),
// tools/call is not a method of the server (-32601), or its parameters were
// invalid (-32602, which the SDK's server answers for an unknown tool). A
// failure a tool itself reports, an internal error (-32603) and a server's
// own codes may follow a run, and do not count.
func refusedRequest(err error) bool {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		return false
	}
	switch wire.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return true
	}
	return false
}

// argumentsRejectedPrefix starts the text of the error result the SDK's
// server returns, before the tool's handler runs, for arguments that do not
// validate against a typed tool's input schema (go-sdk v1.8.0,
// mcp/server.go: `validating "arguments": ` and the schema's complaint).
const argumentsRejectedPrefix = `validating "arguments": `

// argumentsRejected reports whether res is the SDK server's answer to
// arguments that failed its input schema: an error result whose only
// content is a text that starts as the SDK writes it.
func argumentsRejected(res *mcp.CallToolResult) bool {
	if res == nil || !res.IsError || len(res.Content) != 1 {
		return false
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	return ok && strings.HasPrefix(text.Text, argumentsRejectedPrefix)
}

// rejected marks err as the failure of an attempt whose input was refused
// before the tool ran: it matches reflection.ErrInputRejected (and so
// reflection.ErrNoEffect) as well as everything err matches, and reads as
// err.
func rejected(err error) error { return &rejectedError{err: err} }

// rejectedError is what rejected returns.
type rejectedError struct{ err error }

func (e *rejectedError) Error() string { return e.err.Error() }

func (e *rejectedError) Unwrap() error { return e.err }

// Is reports whether target is reflection.ErrInputRejected or a sentinel it
// matches: what a rejected input means is the root package's to say.
func (e *rejectedError) Is(target error) bool {
	return target == reflection.ErrInputRejected || errors.Is(reflection.ErrInputRejected, target)
}
