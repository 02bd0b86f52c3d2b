package reflectionadk_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

// payer runs one user message in a session, with a fresh model that calls
// charge_card and re-issues the call reissues times after a failure.
type payer struct {
	t      *testing.T
	g      *gateway
	plugin *plugin.Plugin
}

func (p payer) pay(session string, reissues int) {
	p.t.Helper()
	m := &scriptedModel{tool: "charge_card", args: map[string]any{"card": "4242", "amount": 30}, reissues: reissues}
	r := newRunner(p.t, agentSetup{model: m, tools: []tool.Tool{newTool(p.t, "charge_card", p.g.charge)}, plugins: []*plugin.Plugin{p.plugin}})
	ask(p.t.Context(), p.t, r, session, "pay the invoice")
}

// TestSessionsHaveTheirOwnEffectMemory: a charge that may have acted holds
// back its session's re-issue, and never another session's identical call.
func TestSessionsHaveTheirOwnEffectMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ends []reflection.CallEnd
		p := payer{t: t, g: &gateway{}, plugin: reflectionadk.MustNewPlugin(chargeDriver(&ends))}

		p.pay("alice", 1)
		assert.Equal(t, 1, p.g.count(), "alice's re-issue is held back")
		p.pay("bob", 1)
		assert.Equal(t, 2, p.g.count(), "bob's identical call runs: alice's memory is not his")

		require.Len(t, ends, 4)
		for i, calls := range []int{1, 0, 1, 0} {
			assert.Equal(t, reflection.ReasonAmbiguousEffect, ends[i].Reason, "call %d", i)
			assert.Equal(t, calls, ends[i].Calls, "dispatches of call %d", i)
		}
	})
}

// TestSessionsHaveTheirOwnLoopDetector: a model that keeps re-issuing a call
// that fails the same way is stopped by its session's detector, and another
// session's calls are not counted with its.
func TestSessionsHaveTheirOwnLoopDetector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := &flaky{fails: []error{errUnavailable, errUnavailable, errUnavailable, errUnavailable}}
		var ends []reflection.CallEnd
		d := reflection.NewDriver(reflection.WithObserver(recordEnds(&ends)))
		p := reflectionadk.MustNewPlugin(d, reflectionadk.WithLoopLimits(0, 2))
		run := func(session string) {
			m := &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}, reissues: 2}
			r := newRunner(t, agentSetup{model: m, tools: []tool.Tool{newTool(t, "stock", body.run)}, plugins: []*plugin.Plugin{p}})
			ask(t.Context(), t, r, session, "how many widgets?")
		}

		run("alice")
		assert.Equal(t, 2, body.count(), "the third identical call is refused before it runs")
		require.Len(t, ends, 3)
		assert.Equal(t, reflection.ReasonLoopDetected, ends[2].Reason)
		assert.Equal(t, 0, ends[2].Calls)

		run("bob")
		assert.Equal(t, 4, body.count(), "bob's calls are counted apart from alice's")
		require.Len(t, ends, 6)
		assert.Equal(t, reflection.ReasonLoopDetected, ends[5].Reason)
	})
}

// TestSessionsAreBounded: the store forgets the session used least recently
// past its size, a session idle past its bound, and a session the host
// forgets; a forgotten session starts afresh.
func TestSessionsAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sessions := reflectionadk.NewSessions(reflectionadk.WithMaxSessions(2), reflectionadk.WithSessionIdle(time.Minute))
		var ends []reflection.CallEnd
		p := payer{t: t, g: &gateway{}, plugin: reflectionadk.MustNewPlugin(chargeDriver(&ends), reflectionadk.WithSessions(sessions))}

		for _, s := range []string{"s1", "s2", "s3"} {
			p.pay(s, 0)
		}
		assert.Equal(t, 3, p.g.count())
		assert.Equal(t, 2, sessions.Len(), "s1, the least recently used, is forgotten")

		p.pay("s3", 0)
		assert.Equal(t, 3, p.g.count(), "s3 remembers its charge")
		p.pay("s1", 0)
		assert.Equal(t, 4, p.g.count(), "s1 starts afresh")

		time.Sleep(time.Minute)
		assert.Equal(t, 0, sessions.Len(), "idle sessions are forgotten")
		p.pay("s3", 0)
		assert.Equal(t, 5, p.g.count(), "s3, idle past its bound, starts afresh")

		sessions.Forget("app", "user", "s3")
		assert.Equal(t, 0, sessions.Len())
		p.pay("s3", 0)
		assert.Equal(t, 6, p.g.count(), "a forgotten session starts afresh")
	})
}
