package reflectionadk_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

// switchTo is a Reflector that calls every failure recoverable by running
// another tool, and records the failures it saw.
type switchTo struct {
	tool string
	seen []reflection.Failure
}

func (s *switchTo) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	s.seen = append(s.seen, f)
	return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: s.tool}}, nil
}

// TestWrapToolsRunsTheAgentsCallbacksOnce: a wrapped tool is the tool ADK
// runs, so the agent's own BeforeToolCallbacks run before it, once per call
// of the model, while the Driver retries inside.
func TestWrapToolsRunsTheAgentsCallbacksOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := &flaky{fails: []error{errUnavailable, errUnavailable}}
		d := reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)))
		tools, err := reflectionadk.WrapTools(d, []tool.Tool{newTool(t, "stock", body.run)})
		require.NoError(t, err)
		before := 0
		m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}}
		r := newRunner(t, agentSetup{model: m, tools: tools, callbacks: llmagent.Config{
			BeforeToolCallbacks: []llmagent.BeforeToolCallback{func(agent.Context, tool.Tool, map[string]any) (map[string]any, error) {
				before++
				return nil, nil
			}},
		}})

		ask(t.Context(), t, r, "s1", "how many widgets?")

		assert.Equal(t, 3, body.count(), "two failures, then a success")
		assert.Equal(t, 1, before, "the agent's callback ran once")
		require.Len(t, m.seen(), 1)
		assert.Equal(t, float64(7), m.seen()[0]["stock"])
	})
}

// TestToolChange: a Reflector's ToolChange runs another tool the agent
// offers, through the plugin and among wrapped tools; the model reads the
// result under the name it called.
func TestToolChange(t *testing.T) {
	setups := map[string]func(t *testing.T, d *reflection.Driver, tools []tool.Tool) agentSetup{
		"plugin": func(t *testing.T, d *reflection.Driver, tools []tool.Tool) agentSetup {
			return agentSetup{tools: tools, plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)}}
		},
		"WrapTools": func(t *testing.T, d *reflection.Driver, tools []tool.Tool) agentSetup {
			wrapped, err := reflectionadk.WrapTools(d, tools)
			require.NoError(t, err)
			return agentSetup{tools: wrapped}
		},
	}
	for name, setup := range setups {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				old := &flaky{fails: []error{errUnavailable}}
				replacement := &flaky{}
				reflector := &switchTo{tool: "stock_v2"}
				d := reflection.NewDriver(reflection.WithReflector(reflector))
				s := setup(t, d, []tool.Tool{newTool(t, "stock", old.run), newTool(t, "stock_v2", replacement.run)})
				m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}}
				s.model = m
				ask(t.Context(), t, newRunner(t, s), "s1", "how many widgets?")

				assert.Equal(t, 1, old.count())
				assert.Equal(t, 1, replacement.count(), "the retry ran stock_v2")
				assert.Equal(t, []string{"call-1"}, replacement.ids, "with the model's function call ID")
				require.Len(t, m.seen(), 1)
				assert.Equal(t, float64(7), m.seen()[0]["stock"])
				require.Len(t, reflector.seen, 1)
				assert.JSONEq(t, `{"item":"widget"}`, string(reflector.seen[0].Input))
				assert.JSONEq(t, `{"type":"object","required":["item"],"properties":{"item":{"type":"string","description":"the item to look up"}},"additionalProperties":false}`,
					string(reflector.seen[0].Schema.InputSchema), "the Reflector sees the tool's declaration")
			})
		})
	}
}

// notAFunction is a tool ADK does not run with arguments.
type notAFunction struct{}

func (notAFunction) Name() string        { return "search" }
func (notAFunction) Description() string { return "a built-in tool" }
func (notAFunction) IsLongRunning() bool { return false }

func TestWrapRefusesWhatItCannotRun(t *testing.T) {
	_, err := reflectionadk.WrapTool(nil, nil)
	assert.EqualError(t, err, "reflectionadk: WrapTool: nil tool")
	_, err = reflectionadk.WrapTool(nil, notAFunction{})
	assert.EqualError(t, err, `reflectionadk: WrapTool: tool "search" is not a function tool ADK runs with arguments`)
	_, err = reflectionadk.WrapTools(nil, []tool.Tool{nil})
	assert.EqualError(t, err, "reflectionadk: WrapTools: tool 0 is nil")

	stock := newTool(t, "stock", (&flaky{}).run)
	got, err := reflectionadk.WrapTools(nil, []tool.Tool{notAFunction{}, stock})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, notAFunction{}, got[0], "a tool the adapter does not run is kept as it is")
	assert.NotSame(t, stock, got[1])
	assert.Equal(t, "stock", got[1].Name())
	assert.Equal(t, stock.Description(), got[1].Description())
}
