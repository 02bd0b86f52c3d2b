package reflectiontemporal

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
	"go.temporal.io/sdk/workflow"
)

// ErrProcessState is wrapped by the error with which Run refuses a Driver
// given reflection.WithRetryBudget or reflection.WithLoopDetection. A retry
// budget and a session's loop detector are state that the calls of a
// process share: it changes between a run of workflow code and its replay,
// in another process perhaps, so workflow code must not consult it, and
// the root package lets only Driver.Run charge a budget or feed a detector,
// so the worker cannot hold them either (a circuit breaker can: see
// WithWorkerHealth). Run does not run without the protection such a Driver
// asks for: it ends the call at once, before any tool runs, with a
// non-retryable error of type ErrorTypeStopped. Give Run a Driver without
// them: d.With(reflection.WithRetryBudget(nil)) removes the budget; a
// Driver for Run is built without WithLoopDetection.
var ErrProcessState = errors.New("reflectiontemporal: the Driver holds state shared across a process, which workflow code cannot consult")

// runtimeParts is what Run makes of its Driver's runtime options
// (reflection.Driver.RuntimeOptions): the attempt timeout it maps, the
// parts it does not call, and the state shared across calls it refuses.
type runtimeParts struct {
	attemptTimeout time.Duration
	rules          *rules.Reflector // the Driver's Reflector when it is the rules package's: it runs in workflow code
	ignored        []string         // "Reflector", "Asker", "Observer", "logger", "redactor", "Health", in that order
	shared         []string         // "WithRetryBudget", "WithLoopDetection", in that order
}

// runtimePartsOf reads d's runtime options; a nil d has none.
func runtimePartsOf(d *reflection.Driver) runtimeParts {
	o := d.RuntimeOptions()
	p := runtimeParts{attemptTimeout: o.AttemptTimeout}
	_, rulesReflector := o.Reflector.(*rules.Reflector)
	if rulesReflector {
		p.rules = o.Reflector.(*rules.Reflector)
	}
	for _, part := range [...]struct {
		set  bool
		name string
	}{
		{o.Reflector != nil && !rulesReflector, "Reflector"},
		{o.Asker != nil, "Asker"},
		{o.Observer != nil, "Observer"},
		{o.Logger != nil, "logger"},
		{o.Redactor != nil, "redactor"},
		{o.Health != nil, "Health"},
	} {
		if part.set {
			p.ignored = append(p.ignored, part.name)
		}
	}
	for _, part := range [...]struct {
		set  bool
		name string
	}{
		{o.RetryBudget != nil, "WithRetryBudget"},
		{o.LoopDetection, "WithLoopDetection"},
	} {
		if part.set {
			p.shared = append(p.shared, part.name)
		}
	}
	return p
}

// refusal returns the error with which Run refuses a Driver that holds
// state shared across a process, or nil.
func (p *runtimeParts) refusal() error {
	if len(p.shared) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (see the package documentation, Safety across calls)", ErrProcessState, strings.Join(p.shared, ", "))
}

// warnIgnored tells, through the workflow's logger (silent during replay),
// which parts of the Driver Run does not call.
func (rt *runtime) warnIgnored() {
	if len(rt.cfg.runtime.ignored) == 0 {
		return
	}
	workflow.GetLogger(rt.ctx).Warn("reflectiontemporal: Run does not call the Driver's "+
		strings.Join(rt.cfg.runtime.ignored, ", ")+
		" (Register's Reflector or WithWorkflowReflector analyses, WithAsk asks, Register's WithWorkerHealth is the circuit breaker, "+
		"the Report and the history record)",
		"CallID", rt.state.status.CallID)
}
