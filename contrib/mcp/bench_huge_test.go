package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
)

// hugeError is the finding's 15 MiB error text.
var hugeError = strings.Repeat("e", 15<<20)

// BenchmarkHugeError measures what a 15 MiB error result costs: ResultText
// alone (a short line before it, so the text must be joined), and a whole
// call over an in-memory session: the SDK's own tools/call (server side
// included: the floor no adapter can lower), and the call through a Driver
// whose Reflector reads the failure and gives up. Compare B/op with the
// same benchmark before the cap.
func BenchmarkHugeError(b *testing.B) {
	b.Run("ResultText", func(b *testing.B) {
		res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "stack:"}, &mcp.TextContent{Text: hugeError}}}
		b.ReportAllocs()
		for b.Loop() {
			_ = reflectionmcp.ResultText(res)
		}
	})
	b.Run("call", func(b *testing.B) {
		ctx := context.Background()
		server := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "v1"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "stack:"}, &mcp.TextContent{Text: hugeError}}}, nil, nil
		})
		serverEnd, clientEnd := mcp.NewInMemoryTransports()
		serverSession, err := server.Connect(ctx, serverEnd, nil)
		if err != nil {
			b.Fatal(err)
		}
		session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = session.Close()
			_ = serverSession.Wait()
		})
		b.Run("sdk", func(b *testing.B) { // the SDK alone, server side included: the floor
			b.ReportAllocs()
			for b.Loop() {
				if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "crash", Arguments: json.RawMessage(`{}`)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		read := 0
		d := reflection.NewDriver(
			reflection.WithReflector(reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
				read += len(f.Error)
				return reflection.FailureAnalysis{RootCause: "a crash"}, nil
			})),
			reflection.WithLogger(nil),
		)
		call := reflection.ToolCall{ID: "c", Name: "crash", Input: json.RawMessage(`{}`)}
		b.Run("driver", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := d.Run(ctx, call, reflectionmcp.Dispatch(session))
				if err != nil || !res.IsError {
					b.Fatal(err, res.IsError)
				}
			}
			b.ReportMetric(float64(read)/float64(b.N), "failure-bytes/op")
			read = 0
		})
	})
}
