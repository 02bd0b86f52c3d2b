package reflectiontest

import (
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// The model of what calls share, for the runtimes that consult it
// (WithSharedState): a circuit breaker per tool, and a loop detector. The
// retry budget's few rules are in wait and succeed.

// breaker is the model's circuit breaker of one tool.
type breaker struct {
	failures  int
	open      bool
	half      bool
	openUntil time.Duration
	probing   bool
}

// prefail records the failures of the call's tool that the Health saw
// before the call.
func (m *model) prefail() {
	h := m.s.health
	if h == nil {
		return
	}
	for range h.prefail {
		if m.admit(m.s.Call.Name) {
			m.breakerFailed(m.s.Call.Name)
		}
	}
}

// admit says whether a dispatch of tool may run now.
func (m *model) admit(tool string) bool {
	b := m.breakers[tool]
	if b == nil || !b.open && !b.half {
		return true
	}
	if b.open {
		if m.now < b.openUntil {
			return false
		}
		b.open, b.half = false, true
	}
	if b.probing {
		return false
	}
	b.probing = true
	m.probe = true
	return true
}

// openFor is how long tool's open breaker stays open, in whole seconds
// rounded up, as a refusal tells the model.
func (m *model) openFor(tool string) int {
	b := m.breakers[tool]
	if b == nil || !b.open {
		return 0
	}
	return max(int((b.openUntil-m.now+time.Second-1)/time.Second), 1)
}

// afterDispatch tells the breaker and the loop detector what came of a
// dispatch.
func (m *model) afterDispatch(st *step) {
	s, tool := m.s, m.cur.Name
	if s.health != nil {
		probe := m.probe
		m.probe = false
		switch {
		case m.ctxEnd != hardNone: // neither a success nor a failure
			if b := m.breakers[tool]; b != nil && b.half {
				b.probing = false
			}
		case st.does == doSucceed:
			if b := m.breakers[tool]; b != nil {
				*b = breaker{}
			}
		case s.schemas != nil && !s.schemas[tool]:
		case probe || !m.counted[tool]: // a call counts once per tool; a probe's failure reopens
			m.counted[tool] = true
			m.breakerFailed(tool)
		}
	}
	if s.detector != nil {
		key := callKey(m.cur)
		res := key + "\x00" + st.resultText(tool)
		if m.results[res] == 0 {
			m.byCall[key] = append(m.byCall[key], res)
		}
		m.results[res]++
	}
}

// breakerFailed records a failure of tool: the threshold-th in a row, or a
// probe's, opens its breaker.
func (m *model) breakerFailed(tool string) {
	b := m.breakers[tool]
	if b == nil {
		b = &breaker{}
		m.breakers[tool] = b
	}
	b.failures++
	if !b.open && !b.half && b.failures < m.s.breakerThreshold() {
		return
	}
	until := m.now + m.s.breakerOpenFor()
	if b.open && b.openUntil > until {
		until = b.openUntil
	}
	b.open, b.half, b.probing, b.openUntil = true, false, false, until
}

// mostRepeats is how often call has returned its most frequent result.
func (m *model) mostRepeats(call reflection.ToolCall) int {
	most := 0
	for _, res := range m.byCall[callKey(call)] {
		most = max(most, m.results[res])
	}
	return most
}

// resultText names the result of st for the loop detector: whether it
// failed, and its text.
func (st *step) resultText(tool string) string {
	if v, ok := st.panicValue(); ok {
		return "failed\x00" + reflection.ToolPanic(tool, v).Error()
	}
	res, err := st.output()
	switch {
	case err != nil:
		return "failed\x00" + errchain.Text(err)
	case res.IsError:
		return "failed\x00" + res.Content
	}
	return "ok\x00" + res.Content
}
