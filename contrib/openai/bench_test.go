package reflectionopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
)

// okDispatch succeeds at once, so the benchmarks measure the adapter.
func okDispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	return reflection.ToolResult{ID: call.ID, Content: "ok"}, nil
}

// BenchmarkRunner compares Runner.Run with the glue a host writes by hand:
// translate each call, Driver.Run it, build the tool message.
//
//	go test -run '^$' -bench Runner -benchmem ./contrib/openai
func BenchmarkRunner(b *testing.B) {
	ctx := context.Background()
	d := reflection.NewDriver()
	for _, n := range []int{1, 8} {
		msg := manyCalls(b, n)
		b.Run(fmt.Sprintf("by hand/%d calls", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(msg.ToolCalls))
				for _, tc := range msg.ToolCalls {
					res, err := d.Run(ctx, reflection.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)}, okDispatch)
					if err != nil {
						b.Fatal(err)
					}
					msgs = append(msgs, openai.ToolMessage(res.Content, res.ID))
				}
			}
		})
		b.Run(fmt.Sprintf("Runner/%d calls", n), func(b *testing.B) {
			r := reflectionopenai.NewRunner(d, okDispatch)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Run(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		if n > 1 {
			b.Run(fmt.Sprintf("Runner WithConcurrency(%d)/%d calls", n, n), func(b *testing.B) {
				r := reflectionopenai.NewRunner(d, okDispatch, reflectionopenai.WithConcurrency(n))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := r.Run(ctx, msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSchemaLookup: a lookup returns the schema built once.
func BenchmarkSchemaLookup(b *testing.B) {
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := lookup("read_file"); !ok {
			b.Fatal("read_file unknown")
		}
	}
}
