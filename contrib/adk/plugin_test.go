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
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

func TestPluginRetriesThroughTheRunner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := &flaky{fails: []error{errUnavailable}}
		var ends []reflection.CallEnd
		d := reflection.NewDriver(
			reflection.WithReflector(rules.New(rules.Defaults()...)),
			reflection.WithObserver(reflection.Observer{Ended: func(_ context.Context, e reflection.CallEnd) { ends = append(ends, e) }}),
		)
		m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}}
		r := newRunner(t, agentSetup{
			model:   m,
			tools:   []tool.Tool{newTool(t, "stock", body.run)},
			plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)},
		})

		ask(t.Context(), t, r, "s1", "how many widgets?")

		assert.Equal(t, 2, body.count(), "one failure, one retry")
		assert.Equal(t, []string{"call-1", "call-1"}, body.ids, "every attempt has the model's function call ID")
		require.Len(t, m.seen(), 1)
		assert.Equal(t, map[string]any{"stock": float64(7), "item": "widget"}, m.seen()[0], "the model reads the retry's result")
		require.Len(t, ends, 1)
		assert.Equal(t, reflection.OutcomeSucceeded, ends[0].Outcome)
		assert.Equal(t, "call-1", ends[0].Result.ID)
	})
}
