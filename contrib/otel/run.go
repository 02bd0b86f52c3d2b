package otel

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Run is d.Run(ctx, call, dispatch), traced: it returns exactly what the
// Driver's Run returns, and records the call as a run span with a child span
// per attempt (see the package doc). The context dispatch receives carries
// the attempt's span, so the tool's own spans nest under it. The events
// between attempts come from t.Observer, which d must have among its
// observers. A nil d is the default Driver, as for reflection.Driver.Run.
func (t *Telemetry) Run(ctx context.Context, d *reflection.Driver, call reflection.ToolCall, dispatch reflection.DispatchFunc) (reflection.ToolResult, error) {
	if t.off() {
		return d.Run(ctx, call, dispatch)
	}
	rep, err := t.RunWithReport(ctx, d, call, dispatch)
	return rep.Result, err
}

// RunWithReport is d.RunWithReport(ctx, call, dispatch), traced as Run
// traces it.
func (t *Telemetry) RunWithReport(ctx context.Context, d *reflection.Driver, call reflection.ToolCall, dispatch reflection.DispatchFunc) (reflection.Report, error) {
	if t.off() {
		return d.RunWithReport(ctx, call, dispatch)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, semconv.GenAIToolName(call.Name))
	if call.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(call.ID))
	}
	attrs = t.appendText(attrs, semconv.GenAIToolCallArgumentsKey, string(call.Input))
	ctx, span := t.tracer.Start(ctx, "reflection.run "+call.Name,
		internalKind, trace.WithAttributes(attrs...))
	r := &run{t: t, span: span, tool: semconv.GenAIToolName(call.Name)}
	defer r.abandon() // a panicking host hook must not leave the span open
	ctx = context.WithValue(ctx, runKey{}, r)
	var traced reflection.DispatchFunc
	if dispatch != nil { // nil stays nil, so the Driver still refuses it
		traced = func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			return r.dispatch(ctx, call, dispatch)
		}
	}
	rep, err := d.RunWithReport(ctx, call, traced)
	r.finish(ctx, rep, err)
	return rep, err
}

// internalKind is the kind of every span Telemetry starts, made once.
var internalKind = trace.WithSpanKind(trace.SpanKindInternal)

// runKey is the context key under which a Run keeps its run.
type runKey struct{}

// runFrom returns the run ctx belongs to, or nil for a call Telemetry.Run
// did not start (or the context of a tool, which is not the run's own).
func runFrom(ctx context.Context) *run {
	r, _ := ctx.Value(runKey{}).(*run)
	return r
}

// run is what a Telemetry keeps about one call while it runs. The Driver
// calls dispatch and the observer hooks on the goroutine of Run, one at a
// time, so a run needs no lock.
type run struct {
	t     *Telemetry
	span  trace.Span
	tool  attribute.KeyValue // gen_ai.tool.name of the call as the model made it
	calls int                // attempts dispatched so far
	ended bool

	waiting   bool // a wait is under way
	waitStart time.Time
}

// startWait notes that a wait of a positive delay begins now.
func (r *run) startWait() {
	r.waiting = true
	r.waitStart = time.Now()
}

// endWait records the wait under way, if any, as it ends: when the next
// attempt starts or the call ends (a cancelled wait is shorter than planned).
func (r *run) endWait(ctx context.Context) {
	if !r.waiting {
		return
	}
	r.waiting = false
	r.t.metrics.waits.Record(ctx, time.Since(r.waitStart).Seconds(), metric.WithAttributes(r.tool))
}

// finish records how the call ended on the run span and in the metrics, and
// ends the span.
func (r *run) finish(ctx context.Context, rep reflection.Report, err error) {
	r.endWait(ctx)
	t, span := r.t, r.span
	outcome := outcomeKey.String(rep.Outcome.String())
	span.SetAttributes(outcome, attemptsKey.Int(r.calls))
	if rep.Outcome == reflection.OutcomeSucceeded {
		span.SetAttributes(t.appendText(nil, semconv.GenAIToolCallResultKey, rep.Result.Content)...)
	} else {
		// Every other outcome is a call that did not do its work, soft or
		// hard: the status says so, error.type says how.
		span.SetAttributes(semconv.ErrorTypeKey.String(rep.Outcome.String()))
		desc := t.text(rep.Result.Content)
		if err != nil {
			desc = t.errText(err)
		}
		span.SetStatus(codes.Error, desc)
	}
	set := metric.WithAttributes(r.tool, outcome)
	t.metrics.calls.Add(ctx, 1, set)
	t.metrics.attempts.Record(ctx, int64(r.calls), set)
	r.ended = true
	span.End()
}

// abandon ends the run span when Run is left by a panic (in a host's
// observer hook, say) before finish could.
func (r *run) abandon() {
	if !r.ended {
		r.span.SetStatus(codes.Error, "reflection.run did not return")
		r.span.End()
	}
}
