// Command otel runs three tool calls of a pretend agent through a
// reflection.Driver traced by reflectionotel, offline, and prints the spans
// (with their events) and the metrics they left, as a tracing backend would
// show them: a call recovered by an InputFix, one recovered by a ToolChange,
// and one that fails softly with a secret in its texts, redacted.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run plays the agent's turn and prints what the telemetry recorded.
func run(w io.Writer) error {
	ctx := context.Background()

	// The host's OpenTelemetry setup: spans kept in memory, metrics read by
	// hand. A real host exports them (OTLP, stdout, ...).
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(ctx); _ = mp.Shutdown(ctx) }()

	// The glue: a Telemetry, and its Observer joined with the host's own in
	// the Driver. Nothing else: every call the Driver runs is traced.
	tel := reflectionotel.New(
		reflectionotel.WithTracerProvider(tp),
		reflectionotel.WithMeterProvider(mp),
		reflectionotel.WithTexts(reflection.RedactSecrets),
	)
	var decisions []string
	hostObserver := reflection.Observer{
		Decided: func(_ context.Context, attempt int, action reflection.RecoveryAction) {
			decisions = append(decisions, fmt.Sprintf("attempt %d: %v", attempt, action))
		},
	}
	d := reflection.NewDriver(
		reflection.WithReflector(newReflector(tel)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(10*time.Millisecond)),
		reflection.WithSchemas(registry.schema),
		reflection.WithObserver(reflection.JoinObservers(hostObserver, tel.Observer())),
	)
	tools := &toolbox{tracer: tp.Tracer("example/tools")}

	turnCtx, turn := tp.Tracer("example/agent").Start(ctx, "agent.turn")
	for _, call := range []reflection.ToolCall{
		{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Lisbn"}`)},
		{ID: "call_2", Name: "search", Input: json.RawMessage(`{"query":"release notes"}`)},
		{ID: "call_3", Name: "login", Input: json.RawMessage(`{"user":"ana","api_key":"sk-proj-0123456789abcdefghijklmnop"}`)},
	} {
		res, err := d.Run(turnCtx, call, tools.dispatch)
		if err != nil {
			return fmt.Errorf("%s: %w", call.Name, err)
		}
		// What the model sees is the tool's own text; it is printed here
		// through the same redactor as the spans.
		fmt.Fprintf(w, "%s -> error=%v: %s\n", call.Name, res.IsError, reflection.RedactSecrets(firstLine(res.Content)))
	}
	turn.End()

	fmt.Fprintln(w, "\n== the host's own observer saw")
	for _, line := range decisions {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\n== spans")
	printSpans(w, spans.Ended())
	fmt.Fprintln(w, "\n== metrics")
	return printMetrics(ctx, w, reader)
}

// registry is the host's tool registry.
var registry = toolRegistry{"get_weather", "search", "search_v2", "login"}

type toolRegistry []string

func (r toolRegistry) schema(name string) (reflection.ToolSchema, bool) {
	if !slices.Contains(r, name) {
		return reflection.ToolSchema{}, false
	}
	return reflection.ToolSchema{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, true
}

// toolbox is the host's dispatch: each tool opens a span of its own, as an
// instrumented HTTP client would, on the context it is given.
type toolbox struct{ tracer trace.Tracer }

func (tb *toolbox) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	var in map[string]string
	_ = json.Unmarshal(call.Input, &in)
	switch call.Name {
	case "get_weather":
		_, span := tb.tracer.Start(ctx, "GET /forecast")
		defer span.End()
		if in["city"] != "Lisbon" {
			return reflection.ToolResult{Content: "unknown city " + in["city"], IsError: true}, nil
		}
		return reflection.ToolResult{Content: "Lisbon: 19°C, clear"}, nil
	case "search":
		return reflection.ToolResult{Content: "search was retired; use search_v2", IsError: true}, nil
	case "search_v2":
		_, span := tb.tracer.Start(ctx, "GET /v2/search")
		defer span.End()
		return reflection.ToolResult{Content: `3 results for "` + in["query"] + `"`}, nil
	case "login":
		return reflection.ToolResult{Content: "invalid credentials: api_key=" + in["api_key"], IsError: true}, nil
	}
	return reflection.ToolResult{Content: "unknown tool " + call.Name, IsError: true}, nil
}

// newReflector is a scripted Reflector, standing in for the llm one. Like a
// model-backed Reflector, it reports what its (pretend) model request cost.
func newReflector(tel *reflectionotel.Telemetry) reflection.Reflector {
	return reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{
			Model: "gpt-4o-mini", InputTokens: 350, OutputTokens: 60, FinishReason: "stop", Latency: 700 * time.Millisecond,
		})
		switch f.Tool {
		case "get_weather":
			return reflection.FailureAnalysis{
				IsRecoverable: true, RootCause: "the city name is misspelled", Severity: reflection.SeverityLow,
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"city":"Lisbon"}`)},
			}, nil
		case "search":
			return reflection.FailureAnalysis{
				IsRecoverable: true, RootCause: "the tool was retired", Severity: reflection.SeverityLow,
				Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "search_v2"},
			}, nil
		}
		return reflection.FailureAnalysis{IsRecoverable: false, RootCause: "the credentials are wrong", Severity: reflection.SeverityHigh}, nil
	})
}

// printSpans prints the spans as a tree under their roots, each with its
// attributes, status and events.
func printSpans(w io.Writer, spans []sdktrace.ReadOnlySpan) {
	var walk func(parent trace.SpanID, depth int)
	walk = func(parent trace.SpanID, depth int) {
		for _, s := range spans {
			if s.Parent().SpanID() != parent {
				continue
			}
			indent := strings.Repeat("  ", depth)
			line := indent + s.Name() + formatAttrs(s.Attributes())
			if st := s.Status(); st.Code.String() == "Error" {
				line += fmt.Sprintf(" status=Error(%q)", firstLine(st.Description))
			}
			fmt.Fprintln(w, line)
			for _, e := range s.Events() {
				fmt.Fprintf(w, "%s  · %s%s\n", indent, e.Name, formatAttrs(e.Attributes))
			}
			walk(s.SpanContext().SpanID(), depth+1)
		}
	}
	walk(trace.SpanID{}, 0)
}

// printMetrics prints every data point the reader collects, sorted.
func printMetrics(ctx context.Context, w io.Writer, reader *sdkmetric.ManualReader) error {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					lines = append(lines, fmt.Sprintf("%s%s = %d", m.Name, formatSet(dp.Attributes), dp.Value))
				}
			case metricdata.Histogram[int64]:
				for _, dp := range data.DataPoints {
					lines = append(lines, fmt.Sprintf("%s%s count=%d sum=%d", m.Name, formatSet(dp.Attributes), dp.Count, dp.Sum))
				}
			case metricdata.Histogram[float64]:
				// Durations vary from run to run: their count is what is printed.
				for _, dp := range data.DataPoints {
					lines = append(lines, fmt.Sprintf("%s%s count=%d", m.Name, formatSet(dp.Attributes), dp.Count))
				}
			}
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// formatAttrs writes kvs as " {k=v ...}", sorted by key, or "" for none.
func formatAttrs(kvs []attribute.KeyValue) string {
	if len(kvs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		parts = append(parts, fmt.Sprintf("%s=%s", kv.Key, kv.Value.Emit()))
	}
	slices.Sort(parts)
	return " {" + strings.Join(parts, " ") + "}"
}

func formatSet(s attribute.Set) string { return formatAttrs(s.ToSlice()) }

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
