package reflection_test

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// The pieces shared by the tests of recovery that is safe across calls
// (effects, health, budget, loops, reasons, Refuse). Their names start with
// "sf" so they never meet the helpers of the package's other tests.

// sfCall is a call of tool with input (a JSON text).
func sfCall(tool, input string) reflection.ToolCall {
	return reflection.ToolCall{ID: "call-sf", Name: tool, Input: json.RawMessage(input)}
}

// sfRecoverable is a recoverable, low-severity analysis with correction c.
func sfRecoverable(c *reflection.Correction) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "transient failure",
		Severity:      reflection.SeverityLow,
		Correction:    c,
	}
}

// sfInputFix is an InputFix to input.
func sfInputFix(input string) *reflection.Correction {
	return &reflection.Correction{Type: reflection.InputFix, Description: "fix the input", ModifiedInput: json.RawMessage(input)}
}

// sfToolChange is a ToolChange to tool.
func sfToolChange(tool string) *reflection.Correction {
	return &reflection.Correction{Type: reflection.ToolChange, Description: "use " + tool, AlternativeTool: tool}
}

// sfAlways is a Reflector that gives the same answer to every failure.
func sfAlways(a reflection.FailureAnalysis) reflection.Reflector {
	return reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return a, nil
	})
}

// sfRetry is a strategy that always answers Retry{Delay: d}.
func sfRetry(d time.Duration) reflection.RecoveryStrategy {
	return reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
		return reflection.Retry{Delay: d}
	})
}

// sfEffects is an effect lookup from a table; a tool not in it is
// EffectUndeclared.
func sfEffects(table map[string]reflection.Effect) func(string) reflection.Effect {
	return func(tool string) reflection.Effect { return table[tool] }
}

// sfOneEffect gives every tool the effect e.
func sfOneEffect(e reflection.Effect) func(string) reflection.Effect {
	return func(string) reflection.Effect { return e }
}

// sfKnown is a SchemaLookup that knows exactly names.
func sfKnown(names ...string) reflection.SchemaLookup {
	return func(tool string) (reflection.ToolSchema, bool) {
		for _, n := range names {
			if n == tool {
				return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, true
			}
		}
		return reflection.ToolSchema{}, false
	}
}

// sfTimeoutError is a network-style error with a Timeout method.
type sfTimeoutError struct{ timeout bool }

func (e sfTimeoutError) Error() string { return "read tcp 10.0.0.1:443: i/o timeout" }
func (e sfTimeoutError) Timeout() bool { return e.timeout }

// sfHintError is a failure whose error carries a rate-limit hint.
type sfHintError struct{ after time.Duration }

func (e sfHintError) Error() string             { return "429 Too Many Requests" }
func (e sfHintError) RetryAfter() time.Duration { return e.after }

// sfEnds records every CallEnd an Observer's Ended hook sees.
type sfEnds struct {
	mu   sync.Mutex
	ends []reflection.CallEnd
}

func (e *sfEnds) observer() reflection.Observer {
	return reflection.Observer{Ended: func(_ context.Context, end reflection.CallEnd) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.ends = append(e.ends, end)
	}}
}

func (e *sfEnds) all() []reflection.CallEnd {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]reflection.CallEnd(nil), e.ends...)
}

// sfWaits records the delays an Observer's Waiting hook sees.
type sfWaits struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (w *sfWaits) observer() reflection.Observer {
	return reflection.Observer{Waiting: func(_ context.Context, _ int, d time.Duration) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.delays = append(w.delays, d)
	}}
}

func (w *sfWaits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.delays...)
}

// sfCounter counts calls of a Reflector, a dispatch, or anything else.
type sfCounter struct {
	mu sync.Mutex
	n  int
}

func (c *sfCounter) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *sfCounter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// sfCountingReflector counts the failures r is asked about.
func sfCountingReflector(r reflection.Reflector, c *sfCounter) reflection.Reflector {
	return reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		c.add()
		return r.Analyze(ctx, f)
	})
}
