package otel

import (
	"context"
	"fmt"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// dispatch runs one attempt of the call under an "execute_tool" span, child
// of the run span, and gives next that span's context. The context also
// hides the run from the tool: a Driver the tool uses in turn is a call of
// its own, not events of this one.
func (r *run) dispatch(ctx context.Context, call reflection.ToolCall, next reflection.DispatchFunc) (res reflection.ToolResult, err error) {
	r.endWait(ctx)
	t := r.t
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs,
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(call.Name),
		attemptKey.Int(r.calls))
	if call.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(call.ID))
	}
	attrs = t.appendText(attrs, semconv.GenAIToolCallArgumentsKey, string(call.Input))
	r.calls++
	ctx, span := t.tracer.Start(ctx, "execute_tool "+call.Name,
		internalKind, trace.WithAttributes(attrs...))
	ctx = context.WithValue(ctx, runKey{}, (*run)(nil))
	returned := false
	defer func() {
		if !returned {
			t.endPanicked(span, recover())
		}
	}()
	res, err = next(ctx, call)
	returned = true
	t.endAttempt(span, res, err)
	return res, err
}

// endAttempt records what an attempt returned on its span and ends it.
func (t *Telemetry) endAttempt(span trace.Span, res reflection.ToolResult, err error) {
	switch {
	case err != nil:
		span.SetAttributes(errorType(err))
		span.SetStatus(codes.Error, t.errText(err))
	case res.IsError:
		span.SetAttributes(semconv.ErrorTypeKey.String(toolErrorType))
		span.SetStatus(codes.Error, t.text(res.Content))
	default:
		span.SetAttributes(t.appendText(nil, semconv.GenAIToolCallResultKey, res.Content)...)
	}
	span.End()
}

// endPanicked ends the span of an attempt whose tool did not return: it
// panicked with v, and endPanicked panics again with v so the Driver sees the
// panic as it was raised; or (v is nil) the goroutine is exiting through
// runtime.Goexit, which goes on.
func (t *Telemetry) endPanicked(span trace.Span, v any) {
	if v == nil {
		span.SetStatus(codes.Error, "the tool did not return")
		span.End()
		return
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(panicType))
	desc := ""
	if t.texts {
		desc = t.text(fmt.Sprint("panic: ", v)) // fmt survives a panicking String method
	}
	span.SetStatus(codes.Error, desc)
	span.End()
	panic(v)
}
