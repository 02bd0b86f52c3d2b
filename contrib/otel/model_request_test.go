package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// TestRecordModelRequest has a Reflector report two requests, an unusable
// answer and its repair, from inside an analysis: both are events on the run
// span, and the GenAI client metrics count their tokens and durations.
func TestRecordModelRequest(t *testing.T) {
	h := newHarness(t)
	errShape := fmt.Errorf("llm: answer is not JSON: %w", reflection.ErrInternal)
	refl := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		h.tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{
			Round: 0, Model: "gpt-test", InputTokens: 120, OutputTokens: 30,
			FinishReason: "stop", Latency: 800 * time.Millisecond, Err: errShape,
		})
		h.tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{
			Round: 1, Model: "gpt-test", InputTokens: 170, OutputTokens: 40,
			FinishReason: "stop", Latency: 1200 * time.Millisecond,
		})
		return analysis("typo", inputFix(`{"n":2}`)), nil
	})
	d := h.driver(reflection.WithReflector(refl), reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job", Input: []byte(`{"n":1}`)},
		newTool(h.tp, okWhen(`{"n":2}`, "two")).dispatch)
	require.NoError(t, err)

	runSpan := h.one(t, "reflection.run job")
	assert.Equal(t, []string{"reflection.model_request", "reflection.model_request", "reflection.analysis",
		"reflection.decision", "reflection.correction"}, eventNames(runSpan))
	assert.Equal(t, []map[string]any{
		{
			"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-test",
			"gen_ai.usage.input_tokens": int64(120), "gen_ai.usage.output_tokens": int64(30),
			"gen_ai.response.finish_reasons": []string{"stop"},
			"reflection.round":               int64(0), "reflection.latency": 0.8,
			"error.type": semconv.ErrorType(errShape).Value.AsString(),
		},
		{
			"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-test",
			"gen_ai.usage.input_tokens": int64(170), "gen_ai.usage.output_tokens": int64(40),
			"gen_ai.response.finish_reasons": []string{"stop"},
			"reflection.round":               int64(1), "reflection.latency": 1.2,
		},
	}, eventsNamed(runSpan, "reflection.model_request"))

	m := h.collect(t)
	tokens, isHist := m["gen_ai.client.token.usage"].(metricdata.Histogram[int64])
	require.True(t, isHist, "gen_ai.client.token.usage is %T", m["gen_ai.client.token.usage"])
	byType := map[string]int64{}
	for _, dp := range tokens.DataPoints {
		typ, _ := dp.Attributes.Value("gen_ai.token.type")
		byType[typ.AsString()] += dp.Sum
		for _, kv := range []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", "gpt-test"),
		} {
			v, _ := dp.Attributes.Value(kv.Key)
			assert.Equal(t, kv.Value, v, "%s", kv.Key)
		}
		assert.False(t, dp.Attributes.HasValue("error.type"), "tokens are counted by model, not by how the answer was judged")
	}
	assert.Equal(t, map[string]int64{"input": 290, "output": 70}, byType)

	durations, isHist := m["gen_ai.client.operation.duration"].(metricdata.Histogram[float64])
	require.True(t, isHist)
	byError := map[string]float64{}
	for _, dp := range durations.DataPoints {
		et, _ := dp.Attributes.Value("error.type")
		byError[et.AsString()] += dp.Sum
	}
	assert.InDeltaMapValues(t, map[string]float64{"": 1.2, semconv.ErrorType(errShape).Value.AsString(): 0.8}, byError, 1e-9)
}

// TestRecordModelRequestOutsideARun checks a request reported with a context
// that has no span (and a nil one): the metrics still count it, nothing
// panics, and a request without usage records no tokens.
func TestRecordModelRequestOutsideARun(t *testing.T) {
	h := newHarness(t)
	//nolint:staticcheck // a nil context is what is being tested
	h.tel.RecordModelRequest(nil, reflectionotel.ModelRequest{Provider: "anthropic", InputTokens: 5, OutputTokens: 1})
	h.tel.RecordModelRequest(context.Background(), reflectionotel.ModelRequest{Err: errors.New("connection refused")})
	assert.Empty(t, h.ended())
	m := h.collect(t)
	tokens := histogram[int64](t, filterHistogram(t, m["gen_ai.client.token.usage"], "gen_ai.token.type", "input"))
	provider, _ := tokens.Attributes.Value("gen_ai.provider.name")
	assert.Equal(t, "anthropic", provider.AsString())
	assert.Equal(t, int64(5), tokens.Sum)
	durations, isHist := m["gen_ai.client.operation.duration"].(metricdata.Histogram[float64])
	require.True(t, isHist)
	assert.Len(t, durations.DataPoints, 2)
}

// filterHistogram keeps the data points of an int64 histogram whose key is
// value.
func filterHistogram(t *testing.T, data metricdata.Aggregation, key attribute.Key, value string) metricdata.Aggregation {
	t.Helper()
	h, isHist := data.(metricdata.Histogram[int64])
	require.True(t, isHist, "want an int64 histogram, got %T", data)
	var keep []metricdata.HistogramDataPoint[int64]
	for _, dp := range h.DataPoints {
		if v, _ := dp.Attributes.Value(key); v.AsString() == value {
			keep = append(keep, dp)
		}
	}
	h.DataPoints = keep
	return h
}

// TestDropModelMetricsWithAView checks the recipe the docs give for a host
// whose model client already records the GenAI client metrics: a view drops
// this package's copies and keeps its own metrics and the event.
func TestDropModelMetricsWithAView(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithView(sdkmetric.NewView(
		sdkmetric.Instrument{Name: "gen_ai.client.*", Scope: instrumentation.Scope{Name: reflectionotel.ScopeName}},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationDrop{}},
	)))
	defer func() { require.NoError(t, mp.Shutdown(context.Background())) }()
	h := newHarness(t, reflectionotel.WithMeterProvider(mp))
	refl := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		h.tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{InputTokens: 10, OutputTokens: 2, Latency: time.Second})
		return analysis("flaky", nil), nil
	})
	d := h.driver(reflection.WithReflector(refl), reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom"), ok("fine")).dispatch)
	require.NoError(t, err)

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			names = append(names, m.Name)
		}
	}
	assert.ElementsMatch(t, []string{"reflection.calls", "reflection.call.attempts"}, names)
	assert.Len(t, eventsNamed(h.one(t, "reflection.run job"), "reflection.model_request"), 1)
}
