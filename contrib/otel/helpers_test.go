package reflectionotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// harness is a Telemetry wired to the SDK's in-memory span recorder and a
// manual metric reader.
type harness struct {
	tel    *reflectionotel.Telemetry
	tp     *sdktrace.TracerProvider
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newHarness(t *testing.T, opts ...reflectionotel.Option) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	h.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		require.NoError(t, h.tp.Shutdown(context.Background()))
		require.NoError(t, mp.Shutdown(context.Background()))
	})
	opts = append([]reflectionotel.Option{
		reflectionotel.WithTracerProvider(h.tp),
		reflectionotel.WithMeterProvider(mp),
	}, opts...)
	h.tel = reflectionotel.New(opts...)
	return h
}

// driver returns a Driver with the harness' Observer among opts.
func (h *harness) driver(opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append(opts, reflection.WithObserver(h.tel.Observer()))...)
}

// ended returns the spans ended so far, in the order they ended.
func (h *harness) ended() []sdktrace.ReadOnlySpan { return h.spans.Ended() }

// named returns the ended spans called name, in the order they ended.
func (h *harness) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the only ended span called name.
func (h *harness) one(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	s := h.named(name)
	require.Len(t, s, 1, "spans named %q", name)
	return s[0]
}

// tree draws the ended spans as an indented tree of names, children in the
// order they ended (attempts of one call never overlap, so that is the order
// they ran in).
func (h *harness) tree() string {
	spans := h.ended()
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var b strings.Builder
	var draw func(parent trace.SpanID, root bool, depth int)
	draw = func(parent trace.SpanID, root bool, depth int) {
		for _, s := range spans {
			p := s.Parent().SpanID()
			if (root && !ids[p]) || (!root && p == parent) {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth), s.Name())
				draw(s.SpanContext().SpanID(), false, depth+1)
			}
		}
	}
	draw(trace.SpanID{}, true, 0)
	return b.String()
}

// attrs returns kvs as a map.
func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// spanAttrs returns the attributes of s as a map of their values' Go forms.
func spanAttrs(s sdktrace.ReadOnlySpan) map[string]any { return plain(s.Attributes()) }

// plain returns kvs as a map of their values' Go forms.
func plain(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for k, v := range attrs(kvs) {
		m[string(k)] = v.AsInterface()
	}
	return m
}

// eventNames returns the names of the events of s, in order.
func eventNames(s sdktrace.ReadOnlySpan) []string {
	var names []string
	for _, e := range s.Events() {
		names = append(names, e.Name)
	}
	return names
}

// eventsNamed returns the attributes of each event of s called name, in order.
func eventsNamed(s sdktrace.ReadOnlySpan, name string) []map[string]any {
	var out []map[string]any
	for _, e := range s.Events() {
		if e.Name == name {
			out = append(out, plain(e.Attributes))
		}
	}
	return out
}

// collect reads every metric the harness recorded, by name.
func (h *harness) collect(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, h.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// sums returns the data points of an int64 counter, by the value of key.
func sums(t *testing.T, data metricdata.Aggregation, key attribute.Key) map[string]int64 {
	t.Helper()
	sum, ok := data.(metricdata.Sum[int64])
	require.True(t, ok, "want an int64 sum, got %T", data)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		v, _ := dp.Attributes.Value(key)
		out[v.Emit()] += dp.Value
	}
	return out
}

// histogram returns the only data point of a histogram.
func histogram[N int64 | float64](t *testing.T, data metricdata.Aggregation) metricdata.HistogramDataPoint[N] {
	t.Helper()
	h, ok := data.(metricdata.Histogram[N])
	require.True(t, ok, "want a histogram, got %T", data)
	require.Len(t, h.DataPoints, 1)
	return h.DataPoints[0]
}

// tool is a dispatch func that runs a script of outcomes in order (the last
// one again past the end) and opens a span of its own on the context it is
// given, named "<tool>.work", as an instrumented tool does.
type tool struct {
	tracer trace.Tracer
	mu     sync.Mutex
	script []func(call reflection.ToolCall) (reflection.ToolResult, error)
	calls  []reflection.ToolCall
}

func newTool(tp trace.TracerProvider, script ...func(call reflection.ToolCall) (reflection.ToolResult, error)) *tool {
	return &tool{tracer: tp.Tracer("tool"), script: script}
}

func (tl *tool) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	_, span := tl.tracer.Start(ctx, call.Name+".work")
	defer span.End()
	tl.mu.Lock()
	n := min(len(tl.calls), len(tl.script)-1)
	tl.calls = append(tl.calls, call)
	step := tl.script[n]
	tl.mu.Unlock()
	return step(call)
}

func (tl *tool) names() []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []string
	for _, c := range tl.calls {
		out = append(out, c.Name)
	}
	return out
}

// ok succeeds with content.
func ok(content string) func(reflection.ToolCall) (reflection.ToolResult, error) {
	return func(call reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{ID: call.ID, Content: content}, nil
	}
}

// bad fails softly with text.
func bad(text string) func(reflection.ToolCall) (reflection.ToolResult, error) {
	return func(call reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{ID: call.ID, Content: text, IsError: true}, nil
	}
}

// failing returns err.
func failing(err error) func(reflection.ToolCall) (reflection.ToolResult, error) {
	return func(reflection.ToolCall) (reflection.ToolResult, error) { return reflection.ToolResult{}, err }
}

// okWhen succeeds with content when the input is want and fails softly
// otherwise.
func okWhen(want, content string) func(reflection.ToolCall) (reflection.ToolResult, error) {
	return func(call reflection.ToolCall) (reflection.ToolResult, error) {
		if string(call.Input) != want {
			return reflection.ToolResult{ID: call.ID, Content: "bad input " + string(call.Input), IsError: true}, nil
		}
		return reflection.ToolResult{ID: call.ID, Content: content}, nil
	}
}

// analysis is a recoverable analysis with correction c (nil: none).
func analysis(cause string, c *reflection.Correction) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: cause, Severity: reflection.SeverityLow, Correction: c}
}

func inputFix(input string) *reflection.Correction {
	return &reflection.Correction{Type: reflection.InputFix, Description: "fix the input", ModifiedInput: json.RawMessage(input)}
}

func toolChange(to string) *reflection.Correction {
	return &reflection.Correction{Type: reflection.ToolChange, Description: "use another tool", AlternativeTool: to}
}

// schemas knows the tools named.
func schemas(names ...string) reflection.SchemaLookup {
	return func(name string) (reflection.ToolSchema, bool) {
		if !slices.Contains(names, name) {
			return reflection.ToolSchema{}, false
		}
		return reflection.ToolSchema{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, true
	}
}

// always retries at once, whatever the analysis.
var always = reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
	return reflection.Retry{}
})
