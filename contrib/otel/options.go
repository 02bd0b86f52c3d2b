package reflectionotel

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures a Telemetry in New.
type Option func(*config)

// config is what the options set.
type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	texts          bool
	redact         func(string) string
}

// WithTracerProvider sets where spans go. nil means the global provider
// (otel.GetTracerProvider) as it is when New runs; the global provider
// forwards to one set later.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets where metrics go. nil means the global provider
// (otel.GetMeterProvider) as it is when New runs; the global provider
// forwards to one set later.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithTexts opts in to texts in spans and events: tool inputs
// (gen_ai.tool.call.arguments), outputs (gen_ai.tool.call.result), failure
// texts and errors (span status descriptions, reflection.failure,
// reflection.error), root causes, reasons, prompts, replies and corrected
// inputs. Every text passes through redact first; redact is the function
// type reflection.WithRedactor takes, reflection.RedactSecrets is a stock
// one, and it must be safe for concurrent use. A nil redact records the
// texts as they are. Without this option no such text reaches a span.
//
// Texts are recorded whole: to bound their size, set the SDK's attribute
// value length limit (sdktrace.WithRawSpanLimits, or the environment variable
// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT).
func WithTexts(redact func(string) string) Option {
	return func(c *config) {
		c.texts = true
		c.redact = redact
	}
}
