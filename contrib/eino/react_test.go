package reflectioneino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// agentModes runs a ReAct agent by Generate or by Stream.
var agentModes = []struct {
	name string
	run  func(ctx context.Context, a *react.Agent, in []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error)
}{
	{"generate", func(ctx context.Context, a *react.Agent, in []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
		return a.Generate(ctx, in, opts...)
	}},
	{"stream", func(ctx context.Context, a *react.Agent, in []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
		sr, err := a.Stream(ctx, in, opts...)
		if err != nil {
			return nil, err
		}
		return schema.ConcatMessageStream(sr)
	}},
}

func TestReactAgent(t *testing.T) {
	question := []*schema.Message{schema.UserMessage("what is the weather in Paris?")}
	for _, m := range agentModes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("without the adapter a tool error ends the agent", func(t *testing.T) {
				cm := newChatModel(callTools(call("c1", "weather", `{"city":"Pariss"}`)), answerWithToolResults)
				a, err := react.NewAgent(context.Background(), &react.AgentConfig{
					ToolCallingModel: cm,
					ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool()}},
				})
				require.NoError(t, err)
				_, err = m.run(context.Background(), a, question)
				assert.ErrorContains(t, err, `no such city: "Pariss"`)
			})

			t.Run("recovers by tool change then input fix", func(t *testing.T) {
				old, weather := failingTool("old_weather", "old_weather is retired"), weatherTool()
				set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{old, weather})
				require.NoError(t, err)
				r := newReflector(toolChange("weather"), inputFix(`{"city":"Paris"}`))
				d := retryingDriver(r, reflection.WithSchemas(set.Schemas()))
				cm := newChatModel(callTools(call("c1", "old_weather", `{"city":"Pariss"}`)), answerWithToolResults)
				a, err := react.NewAgent(context.Background(), &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: set.Config(d)})
				require.NoError(t, err)
				log := &callbackLog{}

				ctx := reflection.ContextWithTask(context.Background(), "tell the user the weather in Paris")
				answer, err := m.run(ctx, a, question, agent.WithComposeOptions(compose.WithCallbacks(log.handler())))
				require.NoError(t, err)

				assert.Equal(t, "tools said: sunny in Paris", answer.Content)
				assert.Len(t, old.Calls(), 1)
				assert.Equal(t, []string{`{"city":"Pariss"}`, `{"city":"Paris"}`}, weather.Calls())
				assert.Equal(t, []string{
					"start:old_weather", "error:old_weather",
					"start:weather", "error:weather",
					"start:weather", "end:weather",
				}, log.Events())
				names := make([]string, 0, len(cm.tools))
				for _, ti := range cm.tools {
					names = append(names, ti.Name)
				}
				assert.Equal(t, []string{"old_weather", "weather"}, names, "the model is offered the Toolset's tools")

				failures := r.Failures()
				require.Len(t, failures, 2)
				assert.Equal(t, "old_weather", failures[0].Tool)
				assert.Equal(t, "tell the user the weather in Paris", failures[0].Task, "the task travels through eino in ctx")
				assert.Equal(t, "weather", failures[1].Tool)
				require.NotNil(t, failures[1].Schema)
				assert.Equal(t, "weather", failures[1].Schema.Name)
			})

			t.Run("the model sees a failure and changes its plan", func(t *testing.T) {
				weather := weatherTool()
				set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{weather})
				require.NoError(t, err)
				cm := newChatModel(
					callTools(call("c1", "wether", `{"city":"Paris"}`)),
					func(msgs []*schema.Message) *schema.Message {
						// The model reads the unknown-tool text and calls the right tool.
						return assistant(call("c2", "weather", `{"city":"Paris"}`))
					},
					answerWithToolResults,
				)
				a, err := react.NewAgent(context.Background(), &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: set.Config(reflection.NewDriver())})
				require.NoError(t, err)

				answer, err := m.run(context.Background(), a, question)
				require.NoError(t, err)
				assert.Equal(t, "tools said: sunny in Paris", answer.Content)
				require.Len(t, cm.seen, 3)
				assert.Equal(t, []string{`reflectioneino: unknown tool "wether" (the tools are: weather)`}, lastToolMessages(cm.seen[1]))
			})
		})
	}
}
