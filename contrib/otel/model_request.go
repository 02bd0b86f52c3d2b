package reflectionotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"
)

// ModelRequest is one request a model-backed Reflector made while it
// analysed a failure: what it cost and whether its answer could be used. The
// llm package's exchange hook (llm.WithExchangeHook) reports what fills one,
// for each request.
type ModelRequest struct {
	Round        int           // 0 for the first request of an analysis, 1.. for repair rounds
	Provider     string        // gen_ai.provider.name, as the semantic conventions spell it; "" means "openai", the API the llm package speaks
	Model        string        // the model asked (gen_ai.request.model); "" when unknown
	InputTokens  int64         // as the server reported them; 0 when it did not
	OutputTokens int64         // as the server reported them; 0 when it did not
	FinishReason string        // why the model stopped ("stop", "length", ...); "" when unknown
	Latency      time.Duration // from the request sent to the answer read
	Err          error         // what was wrong with the answer or the transport; nil when the answer was used
}

// RecordModelRequest records req as an event on the span of ctx (the call's
// span, when ctx is the one a Reflector received from a Driver that has t's
// Observer) and
// in the GenAI client metrics gen_ai.client.token.usage (when the server
// reported tokens) and gen_ai.client.operation.duration, both with
// gen_ai.operation.name "chat". Call it from the Reflector's goroutine with
// the context it was given. The error's text goes into the event only
// WithTexts: an unusable answer's error quotes what the model said. A nil t
// records nothing.
//
// If the host's model client is itself instrumented with the GenAI
// conventions, its metrics already count these requests: drop this package's
// copies with a view that matches the instruments named "gen_ai.client.*" of
// the scope ScopeName and gives them sdkmetric.AggregationDrop.
func (t *Telemetry) RecordModelRequest(ctx context.Context, req ModelRequest) {
	if t.off() {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	provider := genaiconv.ProviderNameAttr(req.Provider)
	if provider == "" {
		provider = genaiconv.ProviderNameOpenAI
	}
	attrs := make([]attribute.KeyValue, 0, 9)
	attrs = append(attrs, semconv.GenAIProviderNameKey.String(string(provider)), roundKey.Int(req.Round),
		latencyKey.Float64(seconds(req.Latency)))
	var model []attribute.KeyValue // what both metrics carry besides operation and provider
	if req.Model != "" {
		model = []attribute.KeyValue{semconv.GenAIRequestModel(req.Model)}
		attrs = append(attrs, model...)
	}
	durationAttrs := model
	if req.InputTokens > 0 || req.OutputTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageInputTokensKey.Int64(req.InputTokens),
			semconv.GenAIUsageOutputTokensKey.Int64(req.OutputTokens))
	}
	if req.FinishReason != "" {
		attrs = append(attrs, semconv.GenAIResponseFinishReasons(req.FinishReason))
	}
	if req.Err != nil {
		attrs = t.appendErr(attrs, errorKey, req.Err)
		durationAttrs = append(durationAttrs[:len(model):len(model)], errorType(req.Err))
	}
	trace.SpanFromContext(ctx).AddEvent(modelRequestEvent, trace.WithAttributes(attrs...))

	chat := genaiconv.OperationNameChat
	t.metrics.requests.Record(ctx, seconds(req.Latency), chat, provider, durationAttrs...)
	if req.InputTokens > 0 || req.OutputTokens > 0 {
		t.metrics.tokens.Record(ctx, req.InputTokens, chat, provider, genaiconv.TokenTypeInput, model...)
		t.metrics.tokens.Record(ctx, req.OutputTokens, chat, provider, genaiconv.TokenTypeOutput, model...)
	}
}
