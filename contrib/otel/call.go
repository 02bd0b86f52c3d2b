package reflectionotel

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

// call is what a Telemetry keeps about one call while it runs, from
// CallStart to Ended. The Driver calls the hooks of a call on the goroutine
// of Run, one at a time, so a call needs no lock.
type call struct {
	span    trace.Span         // the call's span
	attempt trace.Span         // the running attempt's span, between AttemptStart and DispatchDone
	tool    attribute.KeyValue // gen_ai.tool.name of the call as the model made it

	waiting   bool          // a wait is under way
	waitStart time.Time     // when it began
	waitDelay time.Duration // how long it was to last
}

// internalKind is the kind of every span Telemetry starts, made once.
var internalKind = trace.WithSpanKind(trace.SpanKindInternal)

// callStart starts the call's span, "reflection.run <tool>", under the span
// of ctx, and returns the context the call runs under: it carries the span
// and the call. The Reflector and the Asker receive it, so a model request
// they make is a sibling of the attempts.
func (t *Telemetry) callStart(ctx context.Context, tc reflection.ToolCall) context.Context {
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, semconv.GenAIToolName(tc.Name))
	if tc.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(tc.ID))
	}
	attrs = t.appendText(attrs, semconv.GenAIToolCallArgumentsKey, string(tc.Input))
	ctx, span := t.tracer.Start(ctx, "reflection.run "+tc.Name, internalKind, trace.WithAttributes(attrs...))
	return context.WithValue(ctx, callKey{t}, &call{span: span, tool: attrs[0]})
}

// startWait notes that a wait of delay begins now.
func (c *call) startWait(delay time.Duration) {
	c.waiting, c.waitStart, c.waitDelay = true, time.Now(), delay
}

// endWait records the wait under way, if any, as it ends: when the next
// attempt starts or the call ends (a cancelled wait is shorter than
// planned).
func (t *Telemetry) endWait(ctx context.Context, c *call) {
	if !c.waiting {
		return
	}
	c.waiting = false
	t.metrics.waits.Record(ctx, time.Since(c.waitStart).Seconds(), metric.WithAttributes(c.tool))
}

// ended records how the call ended on its span and in the metrics, and ends
// the span: the outcome and the reason as attributes, an error status for
// any end but a success, a refusal as an event.
func (t *Telemetry) ended(ctx context.Context, end reflection.CallEnd) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	if end.Reason == reflection.ReasonDeadline && c.waiting {
		// The wait was refused before it began: no wait to measure, but the
		// span says which wait it was, by the wait event's name for it.
		c.waiting = false
		c.span.SetAttributes(waitDelayKey.Float64(seconds(c.waitDelay)))
	}
	t.endWait(ctx, c)

	outcome := outcomeKey.String(end.Outcome.String())
	set := []attribute.KeyValue{c.tool, outcome} // the metrics' attributes
	c.span.SetAttributes(outcome, attemptsKey.Int(end.Calls))
	if end.Reason != "" {
		reason := reasonKey.String(string(end.Reason))
		c.span.SetAttributes(reason)
		set = append(set, reason)
	}
	if refused(end.Reason) {
		c.span.AddEvent(refusalEvent, trace.WithAttributes(reasonKey.String(string(end.Reason))))
		t.metrics.refusals.Add(ctx, 1, metric.WithAttributes(c.tool, reasonKey.String(string(end.Reason))))
	}
	if end.Outcome == reflection.OutcomeSucceeded {
		c.span.SetAttributes(t.appendText(nil, semconv.GenAIToolCallResultKey, end.Result.Content)...)
	} else {
		// Every other outcome is a call that did not do its work, soft or
		// hard: the status says so, error.type says how.
		c.span.SetAttributes(semconv.ErrorTypeKey.String(end.Outcome.String()))
		desc := t.text(end.Result.Content)
		if end.Err != nil {
			desc = t.errText(end.Err)
		}
		c.span.SetStatus(codes.Error, desc)
	}
	opt := metric.WithAttributes(set...)
	t.metrics.calls.Add(ctx, 1, opt)
	t.metrics.attempts.Record(ctx, int64(end.Calls), opt)
	c.span.End()
}

// refused reports whether reason is a refusal: a call a breaker, the retry
// budget or the runtime refused to go on with.
func refused(reason reflection.Reason) bool {
	switch reason {
	case reflection.ReasonCircuitOpen, reflection.ReasonBudgetExhausted, reflection.ReasonRefused:
		return true
	}
	return false
}

// seconds is d in seconds, the unit OpenTelemetry gives durations in.
func seconds(d time.Duration) float64 { return d.Seconds() }
