package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/loopctl-go/reflection"
)

// The fake tools. Every library runs the same tool, and every caller (the
// direct floor included) reaches it through a package-level variable, so the
// compiler can neither inline nor devirtualize the call in any of the cases.

// call is the tool call every scenario makes.
var call = reflection.ToolCall{
	ID:    "call_0001",
	Name:  "read_file",
	Input: json.RawMessage(`{"path":"docs/notes.md"}`),
}

// okTool always succeeds.
var okTool reflection.DispatchFunc = func(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
	return reflection.ToolResult{ID: c.ID, Content: "ok"}, nil
}

// errFlaky is what flakyTool returns while it fails. It is a plain error so
// that every library sees the same failure: the peers retry on any error, and
// the Driver counts a returned error as a failure.
var errFlaky = errors.New("read_file: resource temporarily unavailable")

// flakyTool fails three calls out of four: calls 1, 2 and 3 fail, call 4
// succeeds, and so on. A run that retries until success therefore makes
// exactly four calls and leaves the tool ready for the next run. The padding
// keeps the counters of different goroutines on different cache lines.
type flakyTool struct {
	n int
	_ [120]byte
}

func (t *flakyTool) dispatch(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
	t.n++
	if t.n&3 != 0 {
		return reflection.ToolResult{}, errFlaky
	}
	return reflection.ToolResult{ID: c.ID, Content: "ok"}, nil
}

// flakyDispatch is the flaky tool of the single-goroutine benchmarks.
var flakyDispatch reflection.DispatchFunc = new(flakyTool).dispatch

// newFlaky returns a flaky tool of its own, for one goroutine of a parallel
// benchmark. It is not inlined, so callers see an opaque func value.
//
//go:noinline
func newFlaky() reflection.DispatchFunc { return new(flakyTool).dispatch }

// registry is a host's tool registry, the shape the README's set-up has:
// its Dispatch method is given to Run as a method value written in the
// call (driver.Run(ctx, call, reg.Dispatch)), or called from a closure
// written there. The benchmarks make one per run, in a local variable, so
// that the method value or the closure binds a receiver the compiler cannot
// see through: were the func to escape, Run would allocate it per call.
type registry struct{ content string }

// Dispatch runs one call. It is not inlined, as a real registry's
// dispatch is not.
//
//go:noinline
func (r *registry) Dispatch(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
	return reflection.ToolResult{ID: c.ID, Content: r.content}, nil
}

// newRegistry returns a registry whose tool succeeds. It is not inlined,
// so callers see an opaque pointer.
//
//go:noinline
func newRegistry() *registry { return &registry{content: "ok"} }

// The InputFix scenario: the tool rejects the call's input until it is given
// fixedInput, which the reflector proposes as an InputFix.
var (
	badInput    = json.RawMessage(`{"path":""}`)
	fixedInput  = json.RawMessage(`{"path":"docs/notes.md"}`)
	errBadInput = errors.New(`read_file: "path" must not be empty`)
	badCall     = reflection.ToolCall{ID: "call_0002", Name: "read_file", Input: badInput}
)

var inputTool reflection.DispatchFunc = func(_ context.Context, c reflection.ToolCall) (reflection.ToolResult, error) {
	if !bytes.Equal(c.Input, fixedInput) {
		return reflection.ToolResult{}, errBadInput
	}
	return reflection.ToolResult{ID: c.ID, Content: "ok"}, nil
}

// The Driver side: rule-based reflectors (no model) and a zero-delay backoff.

// zeroBackoff allows three retries with no delay at all: the default base
// delay is 100ms, so it must be set to 0.
var zeroBackoff = reflection.NewExponentialBackoff(3).WithBaseDelay(0)

// retryReflector calls the flaky tool's failure recoverable and anything else
// not, as a hand-written rule would.
var retryReflector = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if f.Error == errFlaky.Error() {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "transient", Severity: reflection.SeverityLow}, nil
	}
	return reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}, nil
})

// fixCorrection is the InputFix the fix reflector proposes.
var fixCorrection = reflection.Correction{
	Type:          reflection.InputFix,
	Description:   "path must not be empty",
	ModifiedInput: fixedInput,
}

// fixReflector proposes fixCorrection for the bad-input failure.
var fixReflector = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if f.Error == errBadInput.Error() {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "empty path", Severity: reflection.SeverityLow, Correction: &fixCorrection}, nil
	}
	return reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}, nil
})

var (
	// defaultDriver has the stock settings: it never retries.
	defaultDriver = reflection.NewDriver()
	// retryDriver retries the flaky tool three times without waiting.
	retryDriver = reflection.NewDriver(reflection.WithReflector(retryReflector), reflection.WithStrategy(zeroBackoff))
	// fixDriver retries a bad input once, with the InputFix applied.
	fixDriver = reflection.NewDriver(reflection.WithReflector(fixReflector), reflection.WithStrategy(zeroBackoff))
)

// The peers, each set up once for four calls in all (three retries), zero
// delay and no jitter. Each set-up is shared by every call and goroutine,
// which every peer allows.

// cenkaltiOpts: a ZeroBackOff (stateless, always 0) instead of the default
// exponential backoff with its randomisation, and four tries in all.
var cenkaltiOpts = []backoff.RetryOption{
	backoff.WithBackOff(&backoff.ZeroBackOff{}),
	backoff.WithMaxTries(4),
}

// retrygoOpts: retry-go adds up to 100ms of random jitter to a 100ms
// exponential backoff unless told otherwise. FixedDelay with a zero delay and
// zero jitter makes every wait 0; LastErrorOnly keeps the result an ordinary
// error instead of a list of every attempt's error.
var retrygoOpts = []retry.Option{
	retry.Attempts(4),
	retry.Delay(0),
	retry.DelayType(retry.FixedDelay),
	retry.MaxJitter(0),
	retry.LastErrorOnly(true),
}

// failsafeExec: three retries, no delay (the default, set explicitly), no
// jitter (none is configured). Executors are safe for concurrent use.
var failsafeExec = failsafe.With[reflection.ToolResult](
	retrypolicy.NewBuilder[reflection.ToolResult]().
		WithMaxRetries(3).
		WithDelay(0).
		Build(),
)

// Sinks keep results alive so the compiler cannot drop the work.
var (
	sinkRes      reflection.ToolResult
	sinkErr      error
	sinkAnalysis reflection.FailureAnalysis
)
