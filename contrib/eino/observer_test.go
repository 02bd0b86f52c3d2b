package reflectioneino_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// ctxKey keys the values a test puts in a context.
type ctxKey string

// tracing is a Driver whose Observer does what a tracer (the otel Observer)
// does: it puts values in the ctx that CallStart and AttemptStart return,
// and records each call's end.
type tracing struct {
	mu    sync.Mutex
	ended []string
}

func (tr *tracing) observer() reflection.Observer {
	return reflection.Observer{
		CallStart: func(ctx context.Context, call reflection.ToolCall) context.Context {
			return context.WithValue(ctx, ctxKey("call"), call.Name)
		},
		AttemptStart: func(ctx context.Context, attempt int, _ reflection.ToolCall) context.Context {
			return context.WithValue(ctx, ctxKey("attempt"), attempt)
		},
		Ended: func(ctx context.Context, end reflection.CallEnd) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.ended = append(tr.ended, fmt.Sprint(ctx.Value(ctxKey("call")), " ", end.Outcome))
		},
	}
}

func (tr *tracing) Ended() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.ended...)
}

// probeTool answers with what its ctx carries: the host's value, the
// Observer's two, and eino's tool call id.
func probeTool() *textTool {
	return newTextTool("probe", func(ctx context.Context, _ string) (string, error) {
		return fmt.Sprint(ctx.Value(ctxKey("host")), " ", ctx.Value(ctxKey("call")), " ",
			ctx.Value(ctxKey("attempt")), " ", compose.GetToolCallID(ctx)), nil
	})
}

// Every way into the adapter runs its calls through the Driver with the
// ctx the Observer's hooks return, keeping the caller's values and eino's.
func TestEveryCallRunsThroughTheDriversObserver(t *testing.T) {
	host := context.WithValue(context.Background(), ctxKey("host"), "host")

	for _, m := range modes {
		t.Run("ToolsNode middleware/"+m.name, func(t *testing.T) {
			tr := &tracing{}
			d := reflection.NewDriver(reflection.WithObserver(tr.observer()))
			out, err := m.run(host, toolsetGraph(t, d, probeTool()), assistant(call("c1", "probe", `{}`)))
			require.NoError(t, err)
			assert.Equal(t, []string{"host probe 0 c1"}, contents(out))
			assert.Equal(t, []string{"probe succeeded"}, tr.Ended())
		})
	}

	t.Run("UnknownToolsHandler, then a ToolChange", func(t *testing.T) {
		tr := &tracing{}
		set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{probeTool()})
		require.NoError(t, err)
		d := retryingDriver(newReflector(toolChange("probe")), reflection.WithObserver(tr.observer()))
		out, err := toolsGraph(t, set.Config(d)).Invoke(host, assistant(call("c1", "prob", `{}`)))
		require.NoError(t, err)
		assert.Equal(t, []string{"host prob 1 c1"}, contents(out))
		assert.Equal(t, []string{"prob succeeded"}, tr.Ended())
	})

	t.Run("WrapTool", func(t *testing.T) {
		tr := &tracing{}
		d := reflection.NewDriver(reflection.WithObserver(tr.observer()))
		wrapped, err := reflectioneino.WrapTool(context.Background(), d, probeTool())
		require.NoError(t, err)
		got, err := wrapped.InvokableRun(host, `{}`)
		require.NoError(t, err)
		assert.Equal(t, "host probe 0 ", got)
		assert.Equal(t, []string{"probe succeeded"}, tr.Ended())
	})
}
