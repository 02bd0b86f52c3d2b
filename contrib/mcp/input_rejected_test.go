package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// refusing is server middleware that answers tools/call for the names in
// codeFor with a JSON-RPC error of that code, as a server that refuses the
// request itself does; every other request goes on.
func refusing(codeFor map[string]int64) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
				if code, ok := codeFor[p.Name]; ok {
					return nil, &jsonrpc.Error{Code: code, Message: "refused " + p.Name}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// TestInputRejected checks which failures of Dispatch match
// reflection.ErrInputRejected (and so reflection.ErrNoEffect): those in
// which the call was refused before the tool ran, and no other; their text
// and the SDK's error stay as they were.
func TestInputRejected(t *testing.T) {
	f := newFixtureWith(t, setup{serverMiddle: refusing(map[string]int64{
		"internal": jsonrpc.CodeInternalError,
		"method":   jsonrpc.CodeMethodNotFound,
		"params":   jsonrpc.CodeInvalidParams,
		"parse":    jsonrpc.CodeParseError,
		"request":  jsonrpc.CodeInvalidRequest,
		"server":   -32000, // a server's own code: it may have run something
	})})
	closed := newFixture(t, 0)
	require.NoError(t, closed.session.Close())
	ctx := context.Background()
	tests := []struct {
		name     string
		session  *mcp.ClientSession
		call     reflection.ToolCall
		rejected bool
		code     int64 // of the *jsonrpc.Error errors.As finds; 0 for none
		text     string
	}{
		{"unknown tool", f.session, reflection.ToolCall{Name: "nope", Input: json.RawMessage(`{}`)}, true, jsonrpc.CodeInvalidParams,
			`reflectionmcp: tool "nope": calling "tools/call": unknown tool "nope"`},
		{"invalid params", f.session, reflection.ToolCall{Name: "params"}, true, jsonrpc.CodeInvalidParams, ""},
		{"method not found", f.session, reflection.ToolCall{Name: "method"}, true, jsonrpc.CodeMethodNotFound, ""},
		{"parse error", f.session, reflection.ToolCall{Name: "parse"}, true, jsonrpc.CodeParseError, ""},
		{"invalid request", f.session, reflection.ToolCall{Name: "request"}, true, jsonrpc.CodeInvalidRequest, ""},
		{"internal error", f.session, reflection.ToolCall{Name: "internal"}, false, jsonrpc.CodeInternalError, ""},
		{"a server's own code", f.session, reflection.ToolCall{Name: "server"}, false, -32000, ""},
		{"input that is not JSON", f.session, reflection.ToolCall{Name: "read_file", Input: json.RawMessage(`{`)}, true, 0,
			`reflectionmcp: tool "read_file": input is not valid JSON`},
		{"nil session", nil, reflection.ToolCall{Name: "read_file"}, true, 0, `reflectionmcp: tool "read_file": reflectionmcp: nil client session`},
		{"closed session", closed.session, reflection.ToolCall{Name: "flaky", Input: json.RawMessage(`{}`)}, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reflectionmcp.Dispatch(tt.session)(ctx, tt.call)
			require.Error(t, err)
			assert.Equal(t, tt.rejected, errors.Is(err, reflection.ErrInputRejected), "matches ErrInputRejected: %v", err)
			assert.Equal(t, tt.rejected, errors.Is(err, reflection.ErrNoEffect), "matches ErrNoEffect: %v", err)
			var wire *jsonrpc.Error
			if tt.code != 0 {
				require.ErrorAs(t, err, &wire)
				assert.Equal(t, tt.code, wire.Code)
			} else {
				assert.False(t, errors.As(err, &wire))
			}
			if tt.text != "" {
				assert.EqualError(t, err, tt.text)
			}
			assert.NotContains(t, err.Error(), reflection.ErrInputRejected.Error(), "the text is the failure's own")
		})
	}
	t.Run("arguments the SDK's schema rejects", func(t *testing.T) {
		res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{ID: "x", Name: "read_file", Input: json.RawMessage(`{"file":"a"}`)})
		require.ErrorIs(t, err, reflection.ErrInputRejected)
		require.ErrorIs(t, err, reflection.ErrNoEffect)
		assert.True(t, res.IsError, "the result is kept")
		assert.Equal(t, "x", res.ID)
		assert.Contains(t, res.Content, `validating "arguments": `)
		assert.Equal(t, res.Content, err.Error(), "the error reads as the result")
		assert.Equal(t, 0, f.ran("read_file"), "the handler never ran")
	})
	t.Run("an error result of the tool itself", func(t *testing.T) {
		res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{Name: "flaky", Input: json.RawMessage(`{}`)})
		require.NoError(t, err)
		assert.True(t, res.IsError, "the tool ran and failed: a result, not an error")
	})
	t.Run("a tool's error that only resembles the SDK's", func(t *testing.T) {
		res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{Name: "read_file", Input: json.RawMessage(`{"path":"validating \"arguments\""}`)})
		require.NoError(t, err, "the handler ran: its failure may have acted")
		assert.True(t, res.IsError)
	})
}

// TestInputRejectedSparesTheBreaker runs invalid calls from one agent and a
// valid call from another through one Driver whose breaker opens at the
// first counted failure: the invalid calls (an unknown tool, arguments the
// SDK rejects, a server's invalid params) count for nothing, so the valid
// call runs; a failure of the tool itself does open the breaker.
func TestInputRejectedSparesTheBreaker(t *testing.T) {
	f := newFixtureWith(t, setup{serverMiddle: refusing(map[string]int64{"read_file": jsonrpc.CodeInvalidParams})})
	h := reflection.NewHealth(1, time.Hour)
	d := reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(transient).RepeatLast()),
		reflection.WithStrategy(reflection.NewExponentialBackoff(2).WithBaseDelay(0)),
		reflection.WithHealth(h),
	)
	ctx := context.Background()
	invalid := []reflection.ToolCall{
		{ID: "bad1", Name: "search_v2", Input: json.RawMessage(`{"q":"todo"}`)},     // the SDK's schema rejects it
		{ID: "bad2", Name: "search_v2", Input: json.RawMessage(`{"query":7}`)},      // the SDK's schema rejects it
		{ID: "bad3", Name: "search_v3", Input: json.RawMessage(`{"query":"todo"}`)}, // unknown tool
		{ID: "bad4", Name: "read_file", Input: json.RawMessage(`{"path":"x"}`)},     // the server's invalid params
	}
	for _, call := range invalid {
		rep, err := d.RunWithReport(ctx, call, reflectionmcp.Dispatch(f.session))
		require.NoError(t, err)
		assert.Equal(t, reflection.OutcomeFailed, rep.Outcome, call.ID)
		assert.Len(t, rep.Attempts, 3, "%s: every retry ran, the breaker stayed closed", call.ID)
		assert.Equal(t, reflection.BreakerClosed, h.State(call.Name), call.ID)
	}
	res, err := d.Run(ctx, reflection.ToolCall{ID: "good", Name: "search_v2", Input: json.RawMessage(`{"query":"todo"}`)}, reflectionmcp.Dispatch(f.session))
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "good", Content: `{"hits":["notes/todo.md"],"query":"todo"}`}, res)
	assert.Equal(t, 1, f.ran("search_v2"), "only the valid call reached the handler")

	rep, err := d.RunWithReport(ctx, reflection.ToolCall{ID: "down", Name: "flaky", Input: json.RawMessage(`{}`)}, reflectionmcp.Dispatch(f.session))
	require.NoError(t, err)
	assert.Equal(t, reflection.ReasonCircuitOpen, rep.Reason, "the tool's own failure counts")
	assert.Equal(t, 1, f.ran("flaky"))
	assert.Equal(t, reflection.BreakerOpen, h.State("flaky"))
}

// TestInputRejectedRetriesGuardedTool checks that the effect guard retries
// a tool that is not idempotent (read_file has no annotations) after the
// SDK rejected its arguments, without asking: the handler never ran.
func TestInputRejectedRetriesGuardedTool(t *testing.T) {
	f := newFixture(t, 0)
	require.Equal(t, reflection.EffectNonIdempotent, f.tools.Effect("read_file"))
	var asked atomic.Int32
	asker := reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
		asked.Add(1)
		return reflection.Answer{Approve: true}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(inputFix(`{"path":"notes/todo.md"}`)).RepeatLast()),
		reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
		reflection.WithSchemas(f.tools.Schemas()),
		reflection.WithEffects(f.tools.Effect),
		reflection.WithAsker(asker),
	)
	rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{ID: "c", Name: "read_file", Input: json.RawMessage(`{"file":"notes/todo.md"}`)}, reflectionmcp.Dispatch(f.session))
	require.NoError(t, err)
	assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome)
	assert.Equal(t, "- ship v1", rep.Result.Content)
	assert.Equal(t, 1, f.ran("read_file"), "the rejected call never reached the handler")
	assert.Zero(t, asked.Load(), "nothing ran, so nobody is asked")
}
