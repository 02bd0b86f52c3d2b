package reflectionotel_test

import (
	"context"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// discard is a span processor that drops every span: the SDK records the
// spans in full, and nothing is exported.
type discard struct{}

func (discard) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discard) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error                  { return nil }
func (discard) ForceFlush(context.Context) error                { return nil }

// BenchmarkRun measures what the telemetry adds to a call: the Driver's Run
// without an Observer, with the Telemetry's over no-op providers, and over
// the SDK (spans recorded and dropped, metrics aggregated), for a call that
// succeeds at once and one that recovers by an InputFix.
func BenchmarkRun(b *testing.B) {
	fix := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, Correction: inputFix(`{"n":2}`)}, nil
	})
	tool := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if string(call.Input) != `{"n":2}` {
			return reflection.ToolResult{Content: "bad n", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "ok"}, nil
	}
	sdkTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discard{}))
	sdkMP := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = sdkTP.Shutdown(context.Background())
		_ = sdkMP.Shutdown(context.Background())
	})
	tels := []struct {
		name string
		tel  *reflectionotel.Telemetry
	}{
		{"driver", nil},
		{"noop", reflectionotel.New(reflectionotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			reflectionotel.WithMeterProvider(metricnoop.NewMeterProvider()))},
		{"sdk", reflectionotel.New(reflectionotel.WithTracerProvider(sdkTP), reflectionotel.WithMeterProvider(sdkMP))},
	}
	calls := []struct {
		name  string
		input string
	}{
		{"success", `{"n":2}`},
		{"one_fix", `{"n":1}`},
	}
	for _, c := range calls {
		for _, tt := range tels {
			b.Run(c.name+"/"+tt.name, func(b *testing.B) {
				d := reflection.NewDriver(reflection.WithReflector(fix),
					reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
					reflection.WithObserver(tt.tel.Observer()))
				call := reflection.ToolCall{ID: "c", Name: "job", Input: []byte(c.input)}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.Run(ctx, call, tool); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
