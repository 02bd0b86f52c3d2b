package reflectionlangchaingo_test

import (
	"context"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
)

// BenchmarkCall compares calling a tool directly with calling it through
// the wrapper on the happy path: the difference is what the wrapper adds
// (the {"input": ...} round trip and Driver.Run).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		tool := &adder{}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tool.Call(ctx, "2 + 3"); err != nil {
				b.Fatal(err)
			}
			tool.inputs = tool.inputs[:0]
		}
	})
	b.Run("wrapped", func(b *testing.B) {
		tool := &adder{}
		w := reflectionlangchaingo.WrapTool(reflection.NewDriver(), tool)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.Call(ctx, "2 + 3"); err != nil {
				b.Fatal(err)
			}
			tool.inputs = tool.inputs[:0]
		}
	})
}
