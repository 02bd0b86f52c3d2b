package reflectioneino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// The adapter's own cost: one successful call through the Invokable
// middleware against the bare endpoint it wraps.
func BenchmarkInvokableEndpoint(b *testing.B) {
	next := func(_ context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
		return &compose.ToolOutput{Result: "sunny in Paris"}, nil
	}
	set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{weatherTool()})
	if err != nil {
		b.Fatal(err)
	}
	in := &compose.ToolInput{Name: "weather", Arguments: `{"city":"Paris"}`, CallID: "c1"}
	endpoints := []struct {
		name string
		call compose.InvokableToolEndpoint
	}{
		{"bare", next},
		{"middleware", set.Middleware(reflection.NewDriver()).Invokable(next)},
	}
	for _, e := range endpoints {
		b.Run(e.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.call(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A whole ToolsNode call, with and without the adapter: what a graph pays.
func BenchmarkToolsNode(b *testing.B) {
	ctx := context.Background()
	in := assistant(call("c1", "weather", `{"city":"Paris"}`))
	plain, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool()}})
	if err != nil {
		b.Fatal(err)
	}
	set, err := reflectioneino.NewToolset(ctx, []tool.BaseTool{weatherTool()})
	if err != nil {
		b.Fatal(err)
	}
	conf := set.Config(reflection.NewDriver())
	adapted, err := compose.NewToolNode(ctx, &conf)
	if err != nil {
		b.Fatal(err)
	}
	recovering, err := compose.NewToolNode(ctx, func() *compose.ToolsNodeConfig {
		c := set.Config(reflection.NewDriver(
			reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return inputFix(`{"city":"Paris"}`), nil
			})),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		))
		return &c
	}())
	if err != nil {
		b.Fatal(err)
	}
	nodes := []struct {
		name string
		node *compose.ToolsNode
		in   *schema.Message
	}{
		{"plain", plain, in},
		{"adapter", adapted, in},
		{"adapter/input-fix", recovering, assistant(call("c1", "weather", `{"city":"Pariss"}`))},
	}
	for _, n := range nodes {
		b.Run(n.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := n.node.Invoke(ctx, n.in)
				if err != nil || out[0].Content != "sunny in Paris" {
					b.Fatal(err, out)
				}
			}
		})
	}
}
