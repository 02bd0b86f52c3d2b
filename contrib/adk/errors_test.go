package reflectionadk_test

import (
	"context"
	"errors"
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
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

var errNotFound = errors.New("inventory: no such item")

// TestAFailureReachesTheModelAsADKsToolError: when the Driver gives up, ADK
// gets a *ToolError: the agent's OnToolErrorCallbacks see it (and, through
// it, the tool's own error), and the model reads {"error": <the Driver's
// text>}.
func TestAFailureReachesTheModelAsADKsToolError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := &flaky{fails: []error{errNotFound}}
		var got []error
		m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}}
		r := newRunner(t, agentSetup{
			model:   m,
			tools:   []tool.Tool{newTool(t, "stock", body.run)},
			plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(reflection.NewDriver())},
			callbacks: llmagent.Config{OnToolErrorCallbacks: []llmagent.OnToolErrorCallback{
				func(_ agent.Context, _ tool.Tool, _ map[string]any, err error) (map[string]any, error) {
					got = append(got, err)
					return nil, nil
				},
			}},
		})

		ask(t.Context(), t, r, "s1", "how many widgets?")

		assert.Equal(t, 1, body.count(), "the stock Driver does not retry")
		require.Len(t, got, 1)
		var te *reflectionadk.ToolError
		require.ErrorAs(t, got[0], &te)
		assert.Equal(t, "call-1", te.ID)
		assert.Equal(t, "stock", te.Tool)
		assert.ErrorIs(t, got[0], errNotFound)
		require.Len(t, m.seen(), 1)
		assert.Equal(t, map[string]any{"error": te.Content}, m.seen()[0])
		assert.Contains(t, te.Content, errNotFound.Error())
	})
}

// TestAnErrorResultIsAFailure: a tool that reports its failure in its result
// ({"error": ...}, as ADK itself writes a tool's error) is retried like one
// that returns an error.
func TestAnErrorResultIsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		run := func(_ agent.Context, _ flakyArgs) (map[string]any, error) {
			calls++
			if calls == 1 {
				return map[string]any{"error": "503 Service Unavailable"}, nil
			}
			return map[string]any{"stock": 7}, nil
		}
		d := reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)))
		m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}}
		r := newRunner(t, agentSetup{model: m, tools: []tool.Tool{newTool(t, "stock", run)}, plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)}})

		ask(t.Context(), t, r, "s1", "how many widgets?")

		assert.Equal(t, 2, calls)
		require.Len(t, m.seen(), 1)
		assert.Equal(t, map[string]any{"stock": float64(7)}, m.seen()[0])
	})
}

// TestConfirmationPassesThrough: a tool that asks for ADK's confirmation is
// not retried or analysed; ADK asks the human as it would without the
// adapter.
func TestConfirmationPassesThrough(t *testing.T) {
	ran := 0
	charge, err := functiontool.New(functiontool.Config{Name: "charge_card", Description: "charges a card", RequireConfirmation: true},
		func(agent.Context, chargeArgs) (map[string]any, error) {
			ran++
			return map[string]any{"status": "charged"}, nil
		})
	require.NoError(t, err)
	analysed := 0
	d := reflection.NewDriver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		analysed++
		return reflection.FailureAnalysis{IsRecoverable: true}, nil
	})))
	r := newRunner(t, agentSetup{
		model:   &scriptedModel{tool: "charge_card", args: map[string]any{"card": "4242", "amount": 30}},
		tools:   []tool.Tool{charge},
		plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)},
	})

	events := ask(t.Context(), t, r, "s1", "pay the invoice")

	assert.Zero(t, ran)
	assert.Zero(t, analysed, "the confirmation request is not a failure to recover from")
	requested := false
	for _, ev := range events {
		requested = requested || len(ev.Actions.RequestedToolConfirmations) > 0
	}
	assert.True(t, requested, "ADK asks for the confirmation")
}

// TestAnEndedContextIsAnError: when the run's ctx ends during a call, ADK
// gets Run's error, which matches ctx's, not a *ToolError.
func TestAnEndedContextIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	run := func(agent.Context, flakyArgs) (map[string]any, error) {
		cancel()
		return nil, errUnavailable
	}
	var got []error
	d := reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)))
	r := newRunner(t, agentSetup{
		model:   &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}},
		tools:   []tool.Tool{newTool(t, "stock", run)},
		plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)},
		callbacks: llmagent.Config{OnToolErrorCallbacks: []llmagent.OnToolErrorCallback{
			func(_ agent.Context, _ tool.Tool, _ map[string]any, err error) (map[string]any, error) {
				got = append(got, err)
				return nil, nil
			},
		}},
	})

	for range r.Run(ctx, "user", "s1", genai.NewContentFromText("how many widgets?", genai.RoleUser), agent.RunConfig{}) {
	}

	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0], context.Canceled)
	var te *reflectionadk.ToolError
	assert.False(t, errors.As(got[0], &te))
}
