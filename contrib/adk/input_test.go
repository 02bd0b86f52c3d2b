package reflectionadk_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

// fixInput is a Reflector that answers every failure with an InputFix to
// input, and records the failures it saw.
type fixInput struct {
	input string
	seen  []reflection.Failure
}

func (f *fixInput) Analyze(_ context.Context, fl reflection.Failure) (reflection.FailureAnalysis, error) {
	f.seen = append(f.seen, fl)
	return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(f.input)}}, nil
}

// TestAFunctionToolsRefusalIsInputRejected: a function tool refuses
// arguments that do not match its schema before its handler runs, so the
// failure matches reflection.ErrInputRejected, and the effect guard lets the
// corrected call of a tool that is not idempotent run: one charge.
func TestAFunctionToolsRefusalIsInputRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gateway{}
		ok := func(ctx agent.Context, a chargeArgs) (map[string]any, error) {
			g.charge(ctx, a)
			return map[string]any{"status": "charged"}, nil
		}
		reflector := &fixInput{input: `{"card":"4242","amount":30}`}
		d := reflection.NewDriver(reflection.WithReflector(reflector), reflection.WithEffects(chargeEffects))
		m := &scriptedModel{tool: "charge_card", args: map[string]any{"card": "4242", "amount": "thirty"}}
		r := newRunner(t, agentSetup{model: m, tools: []tool.Tool{newTool(t, "charge_card", ok)}, plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)}})

		ask(t.Context(), t, r, "s1", "pay the invoice")

		require.Len(t, reflector.seen, 1)
		assert.ErrorIs(t, reflector.seen[0].Err, reflection.ErrInputRejected)
		assert.Equal(t, []chargeArgs{{Card: "4242", Amount: 30}}, g.charges, "the corrected call ran, once")
		require.Len(t, m.seen(), 1)
		assert.Equal(t, map[string]any{"status": "charged"}, m.seen()[0])
	})
}
