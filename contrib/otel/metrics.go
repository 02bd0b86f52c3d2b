package otel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// The metrics' names.
const (
	callsMetric    = "reflection.calls"
	attemptsMetric = "reflection.call.attempts"
	waitMetric     = "reflection.wait.duration"
)

// attemptBounds puts each possible number of attempts (1 to 6) in a bucket of
// its own.
var attemptBounds = []float64{1, 2, 3, 4, 5, 6}

// waitBounds spans the waits of a backoff, from an immediate retry to the
// longest rate-limit hint a Driver accepts by default (60 s), in seconds.
var waitBounds = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// metrics are the instruments a Telemetry records to.
type metrics struct {
	calls    metric.Int64Counter     // one per Run, by outcome
	attempts metric.Int64Histogram   // dispatch calls per Run
	waits    metric.Float64Histogram // each wait between attempts, in seconds
	tokens   genaiconv.ClientTokenUsage
	requests genaiconv.ClientOperationDuration
}

// newMetrics makes the instruments on m. An instrument the provider refuses
// goes to otel.Handle and is replaced by one that records nothing.
func newMetrics(m metric.Meter) metrics {
	var ms metrics
	var err error
	ms.calls, err = m.Int64Counter(callsMetric,
		metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls run through a reflection Driver, by how they ended."))
	if err != nil || ms.calls == nil {
		handle(err)
		ms.calls = noop.Int64Counter{}
	}
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

// handle passes a provider's error to OpenTelemetry's error handler.
func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}
