package reflectionotel

import (
	"context"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// breakerChanged records a change of a tool's circuit breaker
// (reflection.WithHealth) that a dispatch of the call caused: an event on
// the call's span, and one count in reflection.breaker.transitions. The
// tool is the one dispatched, which a ToolChange may have made another than
// the call's.
func (t *Telemetry) breakerChanged(ctx context.Context, tool string, from, to reflection.BreakerState) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	name := semconv.GenAIToolName(tool)
	fromKV, toKV := breakerFromKey.String(from.String()), breakerToKey.String(to.String())
	c.span.AddEvent(breakerEvent, trace.WithAttributes(name, fromKV, toKV))
	t.metrics.transitions.Add(ctx, 1, metric.WithAttributes(name, fromKV, toKV))
}
