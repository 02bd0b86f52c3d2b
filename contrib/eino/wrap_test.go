package reflectioneino_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

func wrap(t *testing.T, d *reflection.Driver, tl tool.InvokableTool) tool.InvokableTool {
	t.Helper()
	w, err := reflectioneino.WrapTool(context.Background(), d, tl)
	require.NoError(t, err)
	return w
}

func TestWrapToolOnItsOwn(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		tool      *textTool
		reflector *reflectiontest.Reflector // nil: the stock Driver
		args      string
		want      string
		calls     int
		failures  int
	}{
		{name: "success", tool: weatherTool(), args: `{"city":"Paris"}`, want: "sunny in Paris", calls: 1},
		{name: "input fix", tool: weatherTool(), reflector: newReflector(inputFix(`{"city":"Paris"}`)),
			args: `{"city":"Pariss"}`, want: "sunny in Paris", calls: 2, failures: 1},
		{name: "soft failure", tool: weatherTool(), args: `{"city":"Lyon"}`, want: `no such city: "Lyon"`, calls: 1},
		{name: "exhaustion", tool: failingTool("flaky", "still down"), reflector: newReflector(retryAgain()),
			args: `{}`, want: "still down", calls: reflection.MaxRecoveryAttempts + 1, failures: reflection.MaxRecoveryAttempts + 1},
		{name: "a tool change cannot run the tool under another name", tool: weatherTool(),
			reflector: newReflector(toolChange("forecast"), reflection.FailureAnalysis{RootCause: "give up"}),
			args:      `{"city":"Lyon"}`, want: `no such city: "Lyon"`, calls: 2, failures: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := reflection.NewDriver()
			if tc.reflector != nil {
				d = retryingDriver(tc.reflector)
			}
			w := wrap(t, d, tc.tool)
			info, err := w.Info(ctx)
			require.NoError(t, err)
			got, err := w.InvokableRun(ctx, tc.args)
			require.NoError(t, err, "a soft result is never an error")
			assert.Equal(t, tc.want, got)
			assert.Len(t, tc.tool.Calls(), tc.calls)
			if tc.reflector != nil {
				failures := tc.reflector.Failures()
				assert.Len(t, failures, tc.failures)
				for _, f := range failures {
					require.NotNil(t, f.Schema, "the Reflector sees the wrapped tool's schema")
					assert.Equal(t, info.Name, f.Schema.Name)
				}
			}
		})
	}
}

func TestWrapToolCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tl := newTextTool("slow", func(context.Context, string) (string, error) {
		cancel()
		return "", errors.New("interrupted by the caller")
	})
	r := newReflector(retryAgain())
	_, err := wrap(t, retryingDriver(r), tl).InvokableRun(ctx, `{}`)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, r.Failures())
}

func TestWrapToolInAToolsNode(t *testing.T) {
	t.Run("input fix, with the call id and callbacks around the call", func(t *testing.T) {
		weather := weatherTool()
		var ids []string
		d := retryingDriver(newReflector(inputFix(`{"city":"Paris"}`)), reflection.WithObserver(reflection.Observer{
			DispatchStart: func(_ context.Context, _ int, c reflection.ToolCall) { ids = append(ids, c.ID) },
		}))
		log := &callbackLog{}
		g := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{wrap(t, d, weather)}})
		out, err := g.Invoke(context.Background(), assistant(call("c1", "weather", `{"city":"Pariss"}`)), compose.WithCallbacks(log.handler()))
		require.NoError(t, err)
		assert.Equal(t, []string{"sunny in Paris"}, contents(out))
		assert.Equal(t, []string{"c1", "c1"}, ids, "the Driver sees the model's call id")
		assert.Equal(t, []string{"start:weather", "end:weather"}, log.Events(),
			"eino's callbacks wrap the whole call of a tool that fires none of its own")
		assert.Equal(t, "textTool", log.Type("weather"), "the wrapper keeps the tool's RunInfo type")
	})

	t.Run("a tool that fires its own callbacks fires them on every attempt", func(t *testing.T) {
		weather := &ownCallbacksTool{weatherTool()}
		log := &callbackLog{}
		g := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{
			wrap(t, retryingDriver(newReflector(inputFix(`{"city":"Paris"}`))), weather),
		}})
		out, err := g.Invoke(context.Background(), assistant(call("c1", "weather", `{"city":"Pariss"}`)), compose.WithCallbacks(log.handler()))
		require.NoError(t, err)
		assert.Equal(t, []string{"sunny in Paris"}, contents(out))
		assert.Equal(t, []string{"start:weather", "error:weather", "start:weather", "end:weather"}, log.Events())
	})

	t.Run("an interrupt passes through", func(t *testing.T) {
		pay := func() *textTool {
			return newTextTool("pay", func(ctx context.Context, _ string) (string, error) {
				return "", tool.Interrupt(ctx, "approve the payment?")
			})
		}
		in := assistant(call("c1", "pay", `{}`))
		_, plainErr := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{pay()}}).Invoke(context.Background(), in)
		r := newReflector(retryAgain())
		tl := pay()
		_, err := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{wrap(t, retryingDriver(r), tl)}}).Invoke(context.Background(), in)
		assert.Equal(t, interruptPoints(t, plainErr), interruptPoints(t, err))
		assert.Empty(t, r.Failures())
		assert.Len(t, tl.Calls(), 1)
	})

	t.Run("info is the tool's own", func(t *testing.T) {
		weather := weatherTool()
		info, err := wrap(t, nil, weather).Info(context.Background())
		require.NoError(t, err)
		assert.Same(t, weather.info, info)
	})
}

func TestWrapToolRefusesBadInput(t *testing.T) {
	_, err := reflectioneino.WrapTool(context.Background(), nil, nil)
	assert.EqualError(t, err, "reflectioneino: WrapTool: nil tool")

	_, err = reflectioneino.WrapTool(context.Background(), nil, &brokenInfoTool{err: errors.New("registry offline")})
	assert.ErrorContains(t, err, "registry offline")

	_, err = reflectioneino.WrapTool(context.Background(), nil, &brokenInfoTool{})
	assert.ErrorContains(t, err, "returned no tool info")
}

// ownCallbacksTool fires eino's callbacks itself, as a component that
// reports IsCallbacksEnabled does.
type ownCallbacksTool struct{ *textTool }

func (o *ownCallbacksTool) IsCallbacksEnabled() bool { return true }

func (o *ownCallbacksTool) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	ctx = callbacks.OnStart(ctx, args)
	out, err := o.textTool.InvokableRun(ctx, args, opts...)
	if err != nil {
		callbacks.OnError(ctx, err)
		return "", err
	}
	callbacks.OnEnd(ctx, out)
	return out, nil
}

// brokenInfoTool has no usable ToolInfo.
type brokenInfoTool struct{ err error }

func (b *brokenInfoTool) Info(context.Context) (*schema.ToolInfo, error) { return nil, b.err }

func (b *brokenInfoTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "", nil
}
