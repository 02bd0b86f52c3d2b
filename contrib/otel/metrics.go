package reflectionotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// The metrics' names.
const (
	callsMetric       = "reflection.calls"
	attemptsMetric    = "reflection.call.attempts"
	waitMetric        = "reflection.wait.duration"
	refusalsMetric    = "reflection.call.refusals"
	transitionsMetric = "reflection.breaker.transitions"
)

// attemptBounds puts each possible number of attempts (1 to 6) in a bucket of
// its own.
var attemptBounds = []float64{1, 2, 3, 4, 5, 6}

// waitBounds spans the waits of a backoff, from an immediate retry to the
// longest rate-limit hint a Driver accepts by default (60 s), in seconds.
var waitBounds = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// metrics are the instruments a Telemetry records to.
type metrics struct {
	calls       metric.Int64Counter     // one per call, by outcome and reason
	attempts    metric.Int64Histogram   // dispatch calls per call
	waits       metric.Float64Histogram // each wait between attempts, in seconds
	refusals    metric.Int64Counter     // calls a breaker, the budget or the runtime refused, by reason
	transitions metric.Int64Counter     // breaker state changes, by tool and states
	tokens      genaiconv.ClientTokenUsage
	requests    genaiconv.ClientOperationDuration
}

// newMetrics makes the instruments on m. An instrument the provider refuses
// goes to otel.Handle and is replaced by one that records nothing.
func newMetrics(m metric.Meter) metrics {
	var ms metrics
	var err error
	ms.calls = counter(m, callsMetric, "{call}", "Tool calls run through a reflection Driver, by how they ended and why.")
	ms.refusals = counter(m, refusalsMetric, "{call}",
		"Tool calls a circuit breaker, the retry budget or the runtime refused to go on with, by reason.")
	ms.transitions = counter(m, transitionsMetric, "{transition}", "State changes of tools' circuit breakers.")
	ms.attempts, err = m.Int64Histogram(attemptsMetric,
		metric.WithUnit("{attempt}"),
		metric.WithDescription("Dispatch calls a tool call took, the original included."),
		metric.WithExplicitBucketBoundaries(attemptBounds...))
	if err != nil || ms.attempts == nil {
		handle(err)
		ms.attempts = noop.Int64Histogram{}
	}
	ms.waits, err = m.Float64Histogram(waitMetric,
		metric.WithUnit("s"),
		metric.WithDescription("Time spent waiting between two attempts of a tool call."),
		metric.WithExplicitBucketBoundaries(waitBounds...))
	if err != nil || ms.waits == nil {
		handle(err)
		ms.waits = noop.Float64Histogram{}
	}
	ms.tokens, err = genaiconv.NewClientTokenUsage(m)
	handle(err) // genaiconv falls back to a no-op instrument itself
	ms.requests, err = genaiconv.NewClientOperationDuration(m)
	handle(err)
	return ms
}

// counter makes an int64 counter on m, or one that records nothing when the
// provider refuses it.
func counter(m metric.Meter, name, unit, desc string) metric.Int64Counter {
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil || c == nil {
		handle(err)
		return noop.Int64Counter{}
	}
	return c
}

// handle passes a provider's error to OpenTelemetry's error handler.
func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}
