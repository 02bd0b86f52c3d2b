package reflectionotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans and metrics Telemetry
// records: the import path of this package.
const ScopeName = "github.com/loopctl-go/reflection/contrib/otel"

// Telemetry traces and measures the tool calls of every reflection.Driver
// that has its [Telemetry.Observer]: a span per call, a child span per
// attempt that the tool's own spans nest under, events for what recovery
// did, and metrics for what it cost. Get one from New; it is immutable and
// safe for concurrent use, and one Telemetry serves any number of Drivers.
// A nil *Telemetry records nothing: its Observer is empty.
type Telemetry struct {
	tracer  trace.Tracer
	metrics metrics
	texts   bool
	redact  func(string) string
}

// New returns a Telemetry configured by opts. Without options it uses the
// global tracer and meter providers and records no texts.
func New(opts ...Option) *Telemetry {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	tp := c.tracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	mp := c.meterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	return &Telemetry{
		tracer:  tp.Tracer(ScopeName),
		metrics: newMetrics(mp.Meter(ScopeName)),
		texts:   c.texts,
		redact:  c.redact,
	}
}

// off reports whether t records nothing (nil, or not made by New).
func (t *Telemetry) off() bool { return t == nil || t.tracer == nil }
