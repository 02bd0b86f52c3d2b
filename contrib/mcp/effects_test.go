package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
	"github.com/loopctl-go/reflection/reflectiontest"
)

func yes() *bool { v := true; return &v }
func no() *bool  { v := false; return &v }

// annotated registers tools that differ only in their annotations; each
// fails its first run with an error result and succeeds after.
func annotated(f *fixture) {
	for name, a := range map[string]*mcp.ToolAnnotations{
		"search":      {ReadOnlyHint: true},
		"search_all":  {ReadOnlyHint: true, IdempotentHint: false, DestructiveHint: yes()},
		"put":         {IdempotentHint: true},
		"delete":      {IdempotentHint: true, DestructiveHint: yes()},
		"append":      {DestructiveHint: no()},
		"send":        nil,
		"titled_only": {Title: "Send a message"},
	} {
		mcp.AddTool(f.server, &mcp.Tool{Name: name, Annotations: a},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				if f.ranAndCount(name) == 1 {
					return nil, nil, fmt.Errorf("%s: the backend timed out", name)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
			})
	}
}

// TestEffectFromAnnotations checks the effect each tool's annotations give,
// after they crossed the wire, and the effect of a tool the server does not
// list.
func TestEffectFromAnnotations(t *testing.T) {
	f := newFixtureWith(t, setup{more: annotated})
	want := map[string]reflection.Effect{
		"search":      reflection.EffectReadOnly,
		"search_all":  reflection.EffectReadOnly, // the other hints mean nothing for a read-only tool
		"put":         reflection.EffectIdempotent,
		"delete":      reflection.EffectIdempotent, // destructive, but a second run changes nothing more
		"append":      reflection.EffectNonIdempotent,
		"send":        reflection.EffectNonIdempotent, // no annotations: the specification's defaults
		"titled_only": reflection.EffectNonIdempotent,
		"read_file":   reflection.EffectNonIdempotent,
		"missing":     reflection.EffectUndeclared,
	}
	for tool, effect := range want {
		assert.Equal(t, effect, f.tools.Effect(tool), tool)
	}
	assert.Equal(t, reflection.EffectUndeclared, reflectionmcp.NewTools().Effect("search"), "before Load")
}

// TestEffectGuard runs calls through a Driver whose effects come from the
// server's annotations: a tool that may not be run twice is not retried
// after an error result, an idempotent or read-only one is, and an unknown
// tool (a JSON-RPC error, so nothing ran) may switch to a tool that is not
// idempotent.
func TestEffectGuard(t *testing.T) {
	tests := []struct {
		name    string
		call    string
		answer  reflection.FailureAnalysis
		outcome reflection.Outcome
		reason  reflection.Reason
		runs    map[string]int
	}{
		{"read-only is retried", "search", transient, reflection.OutcomeSucceeded, "", map[string]int{"search": 2}},
		{"idempotent is retried", "delete", transient, reflection.OutcomeSucceeded, "", map[string]int{"delete": 2}},
		{"not idempotent is not", "send", transient, reflection.OutcomeAskedUser, reflection.ReasonAmbiguousEffect, map[string]int{"send": 1}},
		{"no annotations is not", "titled_only", transient, reflection.OutcomeAskedUser, reflection.ReasonAmbiguousEffect, map[string]int{"titled_only": 1}},
		{"an unknown tool changes to one", "sned", toolChange("send"), reflection.OutcomeFailed, reflection.ReasonStrategy, map[string]int{"send": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, setup{more: annotated})
			d := reflection.NewDriver(
				reflection.WithReflector(reflectiontest.NewReflector(tt.answer).RepeatLast()),
				reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
				reflection.WithSchemas(f.tools.Schemas()),
				reflection.WithEffects(f.tools.Effect),
			)
			rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{ID: "c", Name: tt.call, Input: json.RawMessage(`{}`)}, reflectionmcp.Dispatch(f.session))
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome, "outcome")
			assert.Equal(t, tt.reason, rep.Reason, "reason")
			for tool, n := range tt.runs {
				assert.Equal(t, n, f.ran(tool), "runs of %s", tool)
			}
		})
	}
}

// TestNoEffect checks which failures of Dispatch match reflection.ErrNoEffect:
// those that certainly ran nothing, and no other; their text and the SDK's
// error stay as they were.
func TestNoEffect(t *testing.T) {
	codeFor := map[string]int64{
		"internal": jsonrpc.CodeInternalError,
		"method":   jsonrpc.CodeMethodNotFound,
		"parse":    jsonrpc.CodeParseError,
		"request":  jsonrpc.CodeInvalidRequest,
		"server":   -32000, // a server's own code: it may have run something
	}
	refuse := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
				if code, ok := codeFor[p.Name]; ok {
					return nil, &jsonrpc.Error{Code: code, Message: "refused " + p.Name}
				}
			}
			return next(ctx, method, req)
		}
	}
	f := newFixtureWith(t, setup{serverMiddle: refuse})
	closed := newFixture(t, 0)
	require.NoError(t, closed.session.Close())
	ctx := context.Background()
	tests := []struct {
		name     string
		session  *mcp.ClientSession
		call     reflection.ToolCall
		noEffect bool
		code     int64 // of the *jsonrpc.Error errors.As finds; 0 for none
		text     string
	}{
		{"unknown tool", f.session, reflection.ToolCall{Name: "nope", Input: json.RawMessage(`{}`)}, true, jsonrpc.CodeInvalidParams,
			`reflectionmcp: tool "nope": calling "tools/call": unknown tool "nope"`},
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
			assert.Equal(t, tt.noEffect, errors.Is(err, reflection.ErrNoEffect), "matches ErrNoEffect: %v", err)
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
			assert.NotContains(t, err.Error(), reflection.ErrNoEffect.Error(), "the text is the failure's own")
		})
	}
	t.Run("an error result", func(t *testing.T) {
		res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{Name: "flaky", Input: json.RawMessage(`{}`)})
		require.NoError(t, err)
		assert.True(t, res.IsError, "the tool ran and failed: a result, not an error")
	})
	assert.True(t, errors.Is(func() error {
		_, err := reflectionmcp.Dispatch(nil)(ctx, reflection.ToolCall{})
		return err
	}(), reflectionmcp.ErrNilSession))
}
