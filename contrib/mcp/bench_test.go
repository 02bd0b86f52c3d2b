package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
)

// BenchmarkSchema is the cost the Driver pays per failure to find a schema.
func BenchmarkSchema(b *testing.B) {
	f := newFixture(b, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := f.tools.Schema("search_v2"); !ok {
			b.Fatal("search_v2 not found")
		}
	}
}

// BenchmarkResultText converts a typical mixed result.
func BenchmarkResultText(b *testing.B) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "line one"},
		&mcp.TextContent{Text: "line two"},
		&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1024)},
	}}
	b.ReportAllocs()
	for b.Loop() {
		_ = reflectionmcp.ResultText(res)
	}
}

// BenchmarkCall compares a successful tools/call made directly with the SDK
// and the same call through a Driver and Dispatch: the difference is what
// the adapter adds on the happy path.
func BenchmarkCall(b *testing.B) {
	f := newFixture(b, 0)
	ctx := context.Background()
	input := json.RawMessage(`{"path":"notes/todo.md"}`)

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: input})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("driver", func(b *testing.B) {
		d := reflection.NewDriver(reflection.WithSchemas(f.tools.Schemas()))
		dispatch := reflectionmcp.Dispatch(f.session)
		call := reflection.ToolCall{ID: "c", Name: "read_file", Input: input}
		b.ReportAllocs()
		for b.Loop() {
			res, err := d.Run(ctx, call, dispatch)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
