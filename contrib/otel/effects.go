package reflectionotel

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The hooks below record, as events on the call's span, what the effect
// guard (reflection.WithEffects) learns about a tool that may already have
// acted: that the Driver's effect memory holds an earlier call of the same
// tool and input, and what a verifier (reflection.WithVerifier) found.

// remembered records an effect-memory match, before the call's first
// dispatch: the earlier call's ID, how long ago it ended, the tool as its
// last ambiguous dispatch ran, and, with texts, its last failure text.
func (t *Telemetry) remembered(ctx context.Context, _ reflection.ToolCall, earlier reflection.RememberedCall) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 4)
	if earlier.Ran.Name != "" {
		attrs = append(attrs, semconv.GenAIToolName(earlier.Ran.Name))
	}
	if earlier.ID != "" {
		attrs = append(attrs, rememberedIDKey.String(earlier.ID))
	}
	if !earlier.At.IsZero() {
		attrs = append(attrs, rememberedAgeKey.Float64(seconds(max(time.Since(earlier.At), 0))))
	}
	attrs = t.appendText(attrs, failureKey, earlier.Failure)
	c.span.AddEvent(rememberedEvent, trace.WithAttributes(attrs...))
}

// verified records a verifier's verdict about call (the dispatch whose
// ambiguous failure is in question), or its failure: error.type and, with
// texts, the error's text. A verifier that failed is a broken component;
// its verdict is then "unknown", and the guard asks as without one.
func (t *Telemetry) verified(ctx context.Context, call reflection.ToolCall, v reflection.Verdict, err error) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, semconv.GenAIToolName(call.Name), verdictKey.String(v.String()))
	if err != nil {
		attrs = t.appendErr(attrs, errorKey, err)
	}
	c.span.AddEvent(verificationEvent, trace.WithAttributes(attrs...))
}
