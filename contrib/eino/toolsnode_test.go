package reflectioneino_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// Without the adapter, one failing tool ends the whole graph run: the
// behaviour the adapter exists to change.
func TestWithoutTheAdapterAToolErrorAbortsTheGraph(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			g := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool()}})
			_, err := m.run(context.Background(), g, assistant(call("c1", "weather", `{"city":"Pariss"}`)))
			require.Error(t, err)
			assert.ErrorContains(t, err, `no such city: "Pariss"`)
		})
	}
}

func TestToolsNodeRecovers(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("input fix", func(t *testing.T) {
				weather := weatherTool()
				r := newReflector(inputFix(`{"city":"Paris"}`))
				set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{weather})
				require.NoError(t, err)
				d := retryingDriver(r, reflection.WithSchemas(set.Schemas()))
				log := &callbackLog{}

				out, err := m.run(context.Background(), toolsGraph(t, set.Config(d)),
					assistant(call("c1", "weather", `{"city":"Pariss"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)

				require.Len(t, out, 1)
				assert.Equal(t, "sunny in Paris", out[0].Content)
				assert.Equal(t, "c1", out[0].ToolCallID)
				assert.Equal(t, "weather", out[0].ToolName)
				assert.Equal(t, []string{`{"city":"Pariss"}`, `{"city":"Paris"}`}, weather.Calls())
				assert.Equal(t, []string{"start:weather", "error:weather", "start:weather", "end:weather"}, log.Events(),
					"each attempt fires the tool's callbacks")

				failures := r.Failures()
				require.Len(t, failures, 1)
				f := failures[0]
				assert.Equal(t, "weather", f.Tool)
				assert.JSONEq(t, `{"city":"Pariss"}`, string(f.Input))
				assert.Equal(t, `no such city: "Pariss"`, f.Error)
				require.NotNil(t, f.Schema, "the Toolset's schema reaches the Reflector")
				assert.Equal(t, "weather", f.Schema.Name)
				assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string","description":"a city"}},"required":["city"]}`,
					string(f.Schema.InputSchema))
			})

			t.Run("tool change", func(t *testing.T) {
				old := failingTool("old_weather", "old_weather is retired: use weather")
				weather := weatherTool()
				r := newReflector(toolChange("weather"))
				log := &callbackLog{}
				set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{old, weather})
				require.NoError(t, err)
				d := retryingDriver(r, reflection.WithSchemas(set.Schemas()))

				out, err := m.run(context.Background(), toolsGraph(t, set.Config(d)),
					assistant(call("c1", "old_weather", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)

				require.Len(t, out, 1)
				assert.Equal(t, "sunny in Paris", out[0].Content)
				assert.Equal(t, "c1", out[0].ToolCallID, "the result answers the model's call")
				assert.Len(t, old.Calls(), 1)
				assert.Equal(t, []string{`{"city":"Paris"}`}, weather.Calls())
				assert.Equal(t, []string{"start:old_weather", "error:old_weather", "start:weather", "end:weather"}, log.Events(),
					"the switched tool fires its own callbacks, under its own name")
				assert.Equal(t, "textTool", log.Type("weather"), "the switched tool's RunInfo has its own type")
			})

			t.Run("soft failure", func(t *testing.T) {
				weather := weatherTool()
				out, err := m.run(context.Background(), toolsetGraph(t, reflection.NewDriver(), weather),
					assistant(call("c1", "weather", `{"city":"Lyon"}`)))
				require.NoError(t, err, "a tool error is a result the model sees, not an error that ends the graph")
				require.Len(t, out, 1)
				assert.Equal(t, `no such city: "Lyon"`, out[0].Content)
				assert.Len(t, weather.Calls(), 1, "the stock Driver never retries")
			})

			t.Run("exhaustion", func(t *testing.T) {
				flaky := failingTool("flaky", "still down")
				r := newReflector(retryAgain())
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), flaky),
					assistant(call("c1", "flaky", `{}`)))
				require.NoError(t, err, "exhaustion returns the failure as the tool's output")
				require.Len(t, out, 1)
				assert.Equal(t, "still down", out[0].Content)
				assert.Len(t, flaky.Calls(), reflection.MaxRecoveryAttempts+1)
				assert.Len(t, r.Failures(), reflection.MaxRecoveryAttempts+1)
			})

			t.Run("parallel calls", func(t *testing.T) {
				weather := weatherTool()
				r := newReflector(inputFix(`{"city":"Paris"}`))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), weather, okTool("echo")),
					assistant(
						call("c1", "weather", `{"city":"Pariss"}`),
						call("c2", "echo", `{"city":"Rome"}`),
						call("c3", "weather", `{"city":"Parris"}`),
					))
				require.NoError(t, err)
				assert.Equal(t, []string{"sunny in Paris", `echo got {"city":"Rome"}`, "sunny in Paris"}, contents(out),
					"results in the model's order")
				assert.Len(t, weather.Calls(), 4)
				assert.Len(t, r.Failures(), 2)
			})
		})
	}
}

func TestToolChangeNeedsAToolThatExists(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("without a schema lookup the dispatch says the tool is unknown", func(t *testing.T) {
				flaky := failingTool("flaky", "down")
				r := newReflector(toolChange("nowhere"), reflection.FailureAnalysis{RootCause: "give up"})
				errs := &dispatchErrors{}
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r, errs.option()), flaky, okTool("echo")),
					assistant(call("c1", "flaky", `{}`)))
				require.NoError(t, err)
				assert.Equal(t, []string{`reflectioneino: unknown tool "nowhere" (the tools are: flaky, echo)`}, contents(out))
				failures := r.Failures()
				require.Len(t, failures, 2)
				assert.Equal(t, "nowhere", failures[1].Tool)
				require.Len(t, errs.Errors(), 2)
				assert.ErrorIs(t, errs.Errors()[1], reflectioneino.ErrUnknownTool)
				assert.Len(t, flaky.Calls(), 1)
			})
			t.Run("with the Toolset's schema lookup the Driver drops it", func(t *testing.T) {
				flaky := failingTool("flaky", "down")
				r := newReflector(toolChange("nowhere"), reflection.FailureAnalysis{RootCause: "give up"})
				set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{flaky})
				require.NoError(t, err)
				d := retryingDriver(r, reflection.WithSchemas(set.Schemas()))
				out, err := m.run(context.Background(), toolsGraph(t, set.Config(d)), assistant(call("c1", "flaky", `{}`)))
				require.NoError(t, err)
				assert.Equal(t, []string{"down"}, contents(out))
				assert.Len(t, flaky.Calls(), 2, "the retry ran the same tool")
			})
		})
	}
}

func TestUnknownTool(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("recovers by tool change", func(t *testing.T) {
				weather := weatherTool()
				r := newReflector(toolChange("weather"))
				log := &callbackLog{}
				errs := &dispatchErrors{}
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r, errs.option()), weather, okTool("echo")),
					assistant(call("c1", "wether", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				require.Len(t, out, 1)
				assert.Equal(t, "sunny in Paris", out[0].Content)
				assert.Equal(t, "c1", out[0].ToolCallID)
				assert.Equal(t, []string{"start:weather", "end:weather"}, log.Events())

				failures := r.Failures()
				require.Len(t, failures, 1)
				assert.Equal(t, "wether", failures[0].Tool)
				require.Len(t, errs.Errors(), 2)
				assert.ErrorIs(t, errs.Errors()[0], reflectioneino.ErrUnknownTool)
				assert.NoError(t, errs.Errors()[1])
				assert.Equal(t, `reflectioneino: unknown tool "wether" (the tools are: weather, echo)`, failures[0].Error)
			})
			t.Run("the model sees the failure", func(t *testing.T) {
				out, err := m.run(context.Background(), toolsetGraph(t, reflection.NewDriver(), weatherTool()),
					assistant(call("c1", "wether", `{"city":"Paris"}`)))
				require.NoError(t, err, "a made-up tool name no longer ends the graph")
				assert.Equal(t, []string{`reflectioneino: unknown tool "wether" (the tools are: weather)`}, contents(out))
			})
		})
	}
}

func TestCancel(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tl := newTextTool("slow", func(context.Context, string) (string, error) {
				cancel() // the caller gives up while the tool runs
				return "", errors.New("interrupted by the caller")
			})
			r := newReflector(retryAgain())
			_, err := m.run(ctx, toolsetGraph(t, retryingDriver(r), tl), assistant(call("c1", "slow", `{}`)))
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.Empty(t, r.Failures(), "the Reflector is not asked once ctx has ended")
			assert.Len(t, tl.Calls(), 1)
		})
	}
}

func TestToolArgumentsThatAreNotJSON(t *testing.T) {
	weather := weatherTool()
	r := newReflector(inputFix(`{"city":"Paris"}`))
	out, err := toolsetGraph(t, retryingDriver(r), weather).Invoke(context.Background(),
		assistant(call("c1", "weather", `{"city": "Paris"`)))
	require.NoError(t, err)
	assert.Equal(t, []string{"sunny in Paris"}, contents(out))
	failures := r.Failures()
	require.Len(t, failures, 1)
	assert.Equal(t, json.RawMessage(`{"city": "Paris"`), failures[0].Input, "the model's text reaches the Reflector as it was")
}

func TestToolOptionsReachTheSwitchedTool(t *testing.T) {
	old := failingTool("old_weather", "retired")
	var got string
	weather := newTextTool("weather", func(context.Context, string) (string, error) { return "ok", nil })
	withOpts := &optionTool{textTool: weather, seen: &got}
	set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{old, withOpts})
	require.NoError(t, err)
	g := toolsGraph(t, set.Config(retryingDriver(newReflector(toolChange("weather")))))
	out, err := g.Invoke(context.Background(), assistant(call("c1", "old_weather", `{}`)),
		compose.WithToolsNodeOption(compose.WithToolOption(withUnit("celsius"))))
	require.NoError(t, err)
	assert.Equal(t, []string{"ok"}, contents(out))
	assert.Equal(t, "celsius", got)
}

// unit is an implementation-specific tool option.
type unit struct{ name string }

func withUnit(name string) tool.Option {
	return tool.WrapImplSpecificOptFn(func(u *unit) { u.name = name })
}

// optionTool reads an implementation-specific option.
type optionTool struct {
	*textTool
	seen *string
}

func (o *optionTool) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	u := tool.GetImplSpecificOptions(&unit{}, opts...)
	*o.seen = u.name
	return o.textTool.InvokableRun(ctx, args, opts...)
}

func TestPanickingTool(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			boom := newTextTool("boom", func(context.Context, string) (string, error) { panic("nil map write") })
			out, err := m.run(context.Background(), toolsetGraph(t, reflection.NewDriver(), boom), assistant(call("c1", "boom", `{}`)))
			require.NoError(t, err, "the Driver recovers a panic into a failure the model sees")
			assert.Equal(t, []string{`tool "boom" panicked: nil map write`}, contents(out))
		})
	}
}
