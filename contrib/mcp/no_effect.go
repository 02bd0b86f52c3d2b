package reflectionmcp

import (
	"errors"

	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// refusedUnrun reports whether err carries a JSON-RPC error whose code says
// the server refused the request as such, before any method ran: the JSON
// was not parsed (-32700), the request was malformed (-32600), tools/call is
// not a method of the server (-32601), or its parameters were invalid
// (-32602, which the SDK's server answers for an unknown tool). A failure a
// tool itself reports, an internal error (-32603) and a server's own codes
// may follow a run, and do not count.
func refusedUnrun(err error) bool {
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

// notRun marks err as the failure of an attempt that certainly did not run
// the tool: it matches reflection.ErrNoEffect as well as everything err
// matches, and reads as err.
func notRun(err error) error { return &noEffectError{err: err} }

// noEffectError is what notRun returns.
type noEffectError struct{ err error }

func (e *noEffectError) Error() string { return e.err.Error() }

func (e *noEffectError) Unwrap() error { return e.err }

func (e *noEffectError) Is(target error) bool { return target == reflection.ErrNoEffect }
