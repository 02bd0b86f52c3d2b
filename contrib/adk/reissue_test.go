package reflectionadk_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/plugin/retryandreflect"
	"google.golang.org/adk/v2/tool"
)

// chargeArgs are the arguments of charge_card.
type chargeArgs struct {
	Card   string `json:"card"`
	Amount int    `json:"amount"`
}

// gateway is a payment gateway that charges the card, then times out
// before it answers: every call acts, and every caller is told it failed.
type gateway struct {
	mu      sync.Mutex
	charges []chargeArgs
}

var errGatewayTimeout = errors.New("payment gateway: 504 Gateway Timeout")

func (g *gateway) charge(_ agent.Context, a chargeArgs) (map[string]any, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.charges = append(g.charges, a)
	return nil, errGatewayTimeout
}

func (g *gateway) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.charges)
}

// charged reports whether the gateway holds a charge of call's card and
// amount: what a verifier looks up.
func (g *gateway) charged(call reflection.ToolCall) bool {
	var a chargeArgs
	if json.Unmarshal(call.Input, &a) != nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.charges {
		if c == a {
			return true
		}
	}
	return false
}

// chargeEffects declares charge_card not idempotent.
func chargeEffects(name string) reflection.Effect {
	if name == "charge_card" {
		return reflection.EffectNonIdempotent
	}
	return reflection.EffectReadOnly
}

// TestTimeoutAfterActingSideBySide runs a charge_card whose gateway charges
// and then times out, through the real runner, with a model that re-issues
// the same call after each failure it reads (up to three times, as
// retryandreflect's guidance allows), under four set-ups. retryandreflect
// alone hands every timeout back to the model, and every re-issue charges
// the card again: four charges. The adapter remembers the ambiguous call in
// the session's effect memory: the re-issues are not dispatched, one charge
// and a question each time (or, with a verifier that finds the charge, one
// charge and a success the model reads at once, no re-issue). With both
// plugins, retryandreflect's guidance still reaches the model and provokes
// the re-issues, and the adapter's memory still holds them back: one charge.
func TestTimeoutAfterActingSideBySide(t *testing.T) {
	tests := []struct {
		name    string
		plugins func(g *gateway, ends *[]reflection.CallEnd) []*plugin.Plugin
		charges int
		calls   int // calls of the model
		// check reads what the model read, and how the adapter's calls ended.
		check func(t *testing.T, seen []map[string]any, ends []reflection.CallEnd)
	}{
		{
			name: "retryandreflect alone",
			plugins: func(*gateway, *[]reflection.CallEnd) []*plugin.Plugin {
				return []*plugin.Plugin{retryandreflect.MustNew()}
			},
			charges: 4, calls: 4,
			check: func(t *testing.T, seen []map[string]any, _ []reflection.CallEnd) {
				for i, s := range seen[:3] {
					assert.Equal(t, reflectionGuidance, s["response_type"], "response %d", i)
				}
				assert.Contains(t, seen[3]["reflection_guidance"], "retry limit has been exceeded")
			},
		},
		{
			name: "reflectionadk alone",
			plugins: func(g *gateway, ends *[]reflection.CallEnd) []*plugin.Plugin {
				return []*plugin.Plugin{reflectionadk.MustNewPlugin(chargeDriver(ends))}
			},
			charges: 1, calls: 4,
			check: func(t *testing.T, seen []map[string]any, ends []reflection.CallEnd) {
				for i, s := range seen {
					assert.Contains(t, s["error"], "may already have taken effect", "response %d", i)
				}
				assert.Contains(t, seen[1]["error"], "call-1", "a re-issue names the call that may have acted")
				require.Len(t, ends, 4)
				for i, calls := range []int{1, 0, 0, 0} {
					assert.Equal(t, reflection.ReasonAmbiguousEffect, ends[i].Reason, "call %d", i)
					assert.Equal(t, calls, ends[i].Calls, "dispatches of call %d: the re-issues are not dispatched", i)
				}
			},
		},
		{
			name: "reflectionadk with a verifier",
			plugins: func(g *gateway, ends *[]reflection.CallEnd) []*plugin.Plugin {
				d := chargeDriver(ends).With(reflection.WithVerifier(func(_ context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
					if g.charged(call) {
						return reflection.VerdictApplied, reflection.ToolResult{Content: `{"status":"charged"}`}, nil
					}
					return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
				}))
				return []*plugin.Plugin{reflectionadk.MustNewPlugin(d)}
			},
			charges: 1, calls: 1,
			check: func(t *testing.T, seen []map[string]any, ends []reflection.CallEnd) {
				assert.Equal(t, map[string]any{"result": `{"status":"charged"}`}, seen[0])
				require.Len(t, ends, 1)
				assert.Equal(t, reflection.OutcomeSucceeded, ends[0].Outcome)
			},
		},
		{
			name: "reflectionadk beside retryandreflect",
			plugins: func(g *gateway, ends *[]reflection.CallEnd) []*plugin.Plugin {
				return []*plugin.Plugin{reflectionadk.MustNewPlugin(chargeDriver(ends)), retryandreflect.MustNew()}
			},
			charges: 1, calls: 4,
			check: func(t *testing.T, seen []map[string]any, ends []reflection.CallEnd) {
				for i, s := range seen[:3] {
					assert.Equal(t, reflectionGuidance, s["response_type"], "response %d", i)
					assert.Contains(t, s["error_details"], "may already have taken effect", "response %d", i)
					assert.Equal(t, "*reflectionadk.ToolError", s["error_type"], "response %d", i)
				}
				assert.Contains(t, seen[3]["reflection_guidance"], "retry limit has been exceeded")
				require.Len(t, ends, 4)
				for i, e := range ends {
					assert.Equal(t, reflection.ReasonAmbiguousEffect, e.Reason, "call %d", i)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &gateway{}
				var ends []reflection.CallEnd
				m := &scriptedModel{tool: "charge_card", args: map[string]any{"card": "4242", "amount": 30}, reissues: 3}
				r := newRunner(t, agentSetup{
					model:   m,
					tools:   []tool.Tool{newTool(t, "charge_card", g.charge)},
					plugins: tt.plugins(g, &ends),
				})

				ask(t.Context(), t, r, "s1", "pay the invoice")

				t.Logf("%s: %d charges, %d calls of the model", tt.name, g.count(), m.calls)
				assert.Equal(t, tt.charges, g.count(), "charges")
				assert.Equal(t, tt.calls, m.calls, "calls the model made")
				seen := m.seen()
				require.Len(t, seen, tt.calls)
				tt.check(t, seen, ends)
			})
		})
	}
}

// chargeDriver is the Driver of the side-by-side test: the stock rules (a
// 504 is transient), charge_card declared not idempotent, and its ends
// recorded.
func chargeDriver(ends *[]reflection.CallEnd) *reflection.Driver {
	return reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithEffects(chargeEffects),
		reflection.WithObserver(recordEnds(ends)),
	)
}

// recordEnds is an Observer that appends every call's end to ends. The
// runner runs one call at a time in these tests.
func recordEnds(ends *[]reflection.CallEnd) reflection.Observer {
	return reflection.Observer{Ended: func(_ context.Context, e reflection.CallEnd) { *ends = append(*ends, e) }}
}
