package reflectionadk_test

import (
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"
)

// spans records every span of the test binary. ADK takes its tracer from
// the global provider when its telemetry package loads, and the global
// provider forwards only to the first provider set, so the binary sets one
// for all its tests; each test reads the spans of its own trace.
var (
	spans    = tracetest.NewSpanRecorder()
	provider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
)

func TestMain(m *testing.M) {
	otel.SetTracerProvider(provider)
	goleak.VerifyTestMain(m)
}
