package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

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
