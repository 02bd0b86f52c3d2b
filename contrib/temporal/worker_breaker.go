package reflectiontemporal

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
)

// A circuit breaker is state of a process: workflow code must not consult
// one (a replay, in another process perhaps, would read another state and
// decide otherwise). Its home under Temporal is the worker that runs the
// tool: the tool activity asks the worker's Health before the tool runs
// and tells it how the tool did, through a Driver of its own that holds the
// Health, so the root package's rules of a breaker apply unchanged (which
// failures count, half-open probes, the open time). The workflow tells the
// activity which tools the call's failures have already counted on, so
// that a call adds at most one to a tool's count across its attempts, as
// under Driver.Run; the activity's answer, a refusal included, is recorded
// in history like any other.

// workerBreaker is the worker's circuit breaker (WithWorkerHealth).
type workerBreaker struct {
	h *reflection.Health
	d *reflection.Driver // the Health, a strategy that never retries, a Reflector that answers at once
}

// newWorkerBreaker returns the breaker over h.
func newWorkerBreaker(h *reflection.Health) *workerBreaker {
	return &workerBreaker{h: h, d: oneDispatch(reflection.WithHealth(h))}
}

// oneDispatch is a Driver that runs a call's tool once, with opts: its
// strategy never retries and its Reflector answers at once.
func oneDispatch(opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append(opts,
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Fail{}
		})),
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{}, nil
		})))...)
}

// breakerRun is what came of a dispatch through the worker's breaker.
type breakerRun struct {
	res     reflection.ToolResult
	err     error
	refused bool          // the breaker is open: the tool did not run
	retryIn time.Duration // then, how long it stays open
	counted bool          // the tool failed, and the failure counted on the breaker
}

// run runs call's tool once through the breaker. counted says a failure of
// this tool earlier in the call has counted already: a failure now adds
// nothing, unless the dispatch is the half-open breaker's probe (whose
// failure opens it again).
func (b *workerBreaker) run(ctx context.Context, dispatch reflection.DispatchFunc, call reflection.ToolCall, counted bool) breakerRun {
	var out breakerRun
	hide := counted && b.h.State(call.Name) != reflection.BreakerHalfOpen
	ran := false
	_, _ = b.d.Run(ctx, call, func(ctx context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
		ran = true
		out.res, out.err = callTool(ctx, dispatch, c)
		if hide && (out.err != nil || out.res.IsError) {
			return reflection.ToolResult{}, errCountedAlready
		}
		return out.res, out.err
	})
	if !ran {
		out.refused, out.retryIn = true, b.h.RemainingDelay(call.Name)
		return out
	}
	out.counted = !hide && (out.err != nil || out.res.IsError) && ctx.Err() == nil && countsOnBreaker(call.Name, out.res, out.err)
	return out
}

// errCountedAlready stands, for the worker's breaker, for a failure of a
// call that has counted on the tool's breaker already: it says nothing of
// the tool's health, so the breaker counts it neither way.
var errCountedAlready error = &countedAlreadyError{}

type countedAlreadyError struct{}

func (*countedAlreadyError) Error() string {
	return "reflectiontemporal: a failure of a call that has counted on the breaker already"
}
func (*countedAlreadyError) Is(target error) bool { return target == reflection.ErrInputRejected }

// countsOnBreaker reports whether a failure with res and err counts on a
// breaker by the root package's rules (a 400 or an input the tool rejected
// does not): a Health that opens at its first counted failure is told about
// it, and says.
func countsOnBreaker(tool string, res reflection.ToolResult, err error) bool {
	h := reflection.NewHealth(1, time.Hour)
	_, _ = oneDispatch(reflection.WithHealth(h)).Run(context.Background(), reflection.ToolCall{Name: tool},
		func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) { return res, err })
	return h.State(tool) == reflection.BreakerOpen
}

// breakerRefusal is the refusal of a dispatch that the worker's breaker
// refused: it matches reflection.ErrCircuitOpen (and so ErrNoEffect), and
// its RetryAfter says how long the breaker stays open, which the machine
// tells the model.
type breakerRefusal struct{ retryIn time.Duration }

func (e *breakerRefusal) Error() string { return reflection.ErrCircuitOpen.Error() }
func (e *breakerRefusal) Is(target error) bool {
	return target == reflection.ErrCircuitOpen || target == reflection.ErrNoEffect
}
func (e *breakerRefusal) RetryAfter() time.Duration { return e.retryIn }
