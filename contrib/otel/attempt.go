package reflectionotel

import (
	"context"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// attemptStart ends the wait before the attempt, if any, and starts the
// attempt's span, "execute_tool <tool>" after the GenAI semantic
// conventions, under the call's span. It returns the context the dispatch
// receives (ctx, with the attempt's span), so the tool's own spans nest
// under the attempt that ran them.
func (t *Telemetry) attemptStart(ctx context.Context, attempt int, tc reflection.ToolCall) context.Context {
	c := t.callOf(ctx)
	if c == nil {
		return ctx
	}
	t.endWait(ctx, c)
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs,
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(tc.Name),
		attemptKey.Int(attempt))
	if tc.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(tc.ID))
	}
	attrs = t.appendText(attrs, semconv.GenAIToolCallArgumentsKey, string(tc.Input))
	// The call's span is the parent, whatever span another observer joined
	// with this one may have put in ctx since.
	ctx, c.attempt = t.tracer.Start(trace.ContextWithSpan(ctx, c.span), "execute_tool "+tc.Name,
		internalKind, trace.WithAttributes(attrs...))
	return ctx
}

// dispatchDone records what the attempt returned on its span and ends it:
// for a failure an error status and error.type ("tool_error" for a result
// with IsError, "timeout" for an attempt cut short by the Driver's attempt
// timeout, with the limit, "panic" for a panic, and the error's type for any
// other error).
func (t *Telemetry) dispatchDone(ctx context.Context, _ int, res reflection.ToolResult, err error) {
	c := t.callOf(ctx)
	if c == nil || c.attempt == nil {
		return
	}
	span := c.attempt
	c.attempt = nil
	switch {
	case err != nil:
		span.SetAttributes(errorType(err))
		if limit, ok := attemptTimeout(err); ok {
			span.SetAttributes(attemptTimeoutKey.Float64(seconds(limit)))
		}
		span.SetStatus(codes.Error, t.errText(err))
	case res.IsError:
		span.SetAttributes(semconv.ErrorTypeKey.String(toolErrorType))
		span.SetStatus(codes.Error, t.text(res.Content))
	default:
		span.SetAttributes(t.appendText(nil, semconv.GenAIToolCallResultKey, res.Content)...)
	}
	span.End()
}
