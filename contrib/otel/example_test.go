package reflectionotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A Driver with the Telemetry's Observer, and a call whose input the
// Reflector corrects, run by the Driver's own Run: one span for the call,
// two attempt spans (each with the tool's own span inside), and the
// recovery's events on the call's span.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	tel := reflectionotel.New(
		reflectionotel.WithTracerProvider(tp),
		reflectionotel.WithMeterProvider(noop.NewMeterProvider()),
	)

	reflector := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{
			IsRecoverable: true,
			RootCause:     "the city is misspelled",
			Correction:    &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"city":"Lisbon"}`)},
		}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithObserver(tel.Observer()),
	)
	weather := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		_, span := tp.Tracer("weather").Start(ctx, "GET /forecast") // the tool's own span
		defer span.End()
		if string(call.Input) != `{"city":"Lisbon"}` {
			return reflection.ToolResult{Content: "unknown city", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "19°C"}, nil
	}

	call := reflection.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"city":"Lisbn"}`)}
	res, err := d.Run(context.Background(), call, weather)
	fmt.Println(res.Content, err)
	printTree(spans.Ended())
	// Output:
	// 19°C <nil>
	// reflection.run weather [reflection.outcome=succeeded reflection.attempts=2]
	//   event reflection.analysis
	//   event reflection.decision
	//   event reflection.correction
	//   execute_tool weather [reflection.attempt=0 error.type=tool_error]
	//     GET /forecast
	//   execute_tool weather [reflection.attempt=1]
	//     GET /forecast
}

// printTree prints spans as a tree, with a few of their attributes and the
// names of their events.
func printTree(spans []sdktrace.ReadOnlySpan) {
	show := map[string]bool{"reflection.outcome": true, "reflection.attempts": true, "reflection.attempt": true, "error.type": true}
	var walk func(parent trace.SpanID, depth int)
	walk = func(parent trace.SpanID, depth int) {
		for _, s := range spans {
			if s.Parent().SpanID() != parent {
				continue
			}
			indent := strings.Repeat("  ", depth)
			var kvs []string
			for _, kv := range s.Attributes() {
				if show[string(kv.Key)] {
					kvs = append(kvs, fmt.Sprintf("%s=%s", kv.Key, kv.Value.Emit()))
				}
			}
			line := indent + s.Name()
			if len(kvs) > 0 {
				line += " [" + strings.Join(kvs, " ") + "]"
			}
			fmt.Println(line)
			for _, e := range s.Events() {
				fmt.Println(indent + "  event " + e.Name)
			}
			walk(s.SpanContext().SpanID(), depth+1)
		}
	}
	walk(trace.SpanID{}, 0)
}

// The host keeps its own observer: the Driver gets both, joined.
func ExampleTelemetry_Observer() {
	tel := reflectionotel.New() // the global providers
	host := reflection.Observer{
		Decided: func(ctx context.Context, attempt int, action reflection.RecoveryAction) {
			fmt.Printf("host: attempt %d: %v\n", attempt, action)
		},
	}
	transient := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "a timeout"}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(transient),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithObserver(reflection.JoinObservers(host, tel.Observer())),
	)
	calls := 0
	save := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if calls++; calls == 1 {
			return reflection.ToolResult{Content: "timeout", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "saved"}, nil
	}
	res, err := d.Run(context.Background(), reflection.ToolCall{Name: "save"}, save)
	fmt.Println(res.Content, err)
	// Output:
	// host: attempt 0: retry after 0s
	// saved <nil>
}

// A model-backed Reflector reports what each of its requests cost; the
// event lands on the call's span, since the Reflector runs with its context.
func ExampleTelemetry_RecordModelRequest() {
	spans := tracetest.NewSpanRecorder()
	tel := reflectionotel.New(
		reflectionotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		reflectionotel.WithMeterProvider(noop.NewMeterProvider()),
	)
	reflector := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		// ... ask the model, then:
		tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{
			Model: "gpt-4o-mini", InputTokens: 412, OutputTokens: 57, FinishReason: "stop", Latency: 900 * time.Millisecond,
		})
		return reflection.FailureAnalysis{RootCause: "the file does not exist"}, nil
	})
	d := reflection.NewDriver(reflection.WithReflector(reflector), reflection.WithObserver(tel.Observer()))
	missing := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{Content: "no such file", IsError: true}, nil
	}
	_, _ = d.Run(context.Background(), reflection.ToolCall{Name: "read_file"}, missing)
	for _, e := range spans.Ended()[1].Events() {
		fmt.Print(e.Name)
		for _, kv := range e.Attributes {
			if strings.HasPrefix(string(kv.Key), "gen_ai.usage.") {
				fmt.Printf(" %s=%s", kv.Key, kv.Value.Emit())
			}
		}
		fmt.Println()
	}
	// Output:
	// reflection.model_request gen_ai.usage.input_tokens=412 gen_ai.usage.output_tokens=57
	// reflection.analysis
	// reflection.decision
}
