package reflectionadk_test

import (
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

// TestSpansNestUnderADKToolSpans runs a call that fails once through the
// runner, with reflectionotel's Observer on the Driver: the call's span is a
// child of ADK's own execute_tool span, each attempt a child of the call's,
// and the tool's own span a child of its attempt.
func TestSpansNestUnderADKToolSpans(t *testing.T) {
	tracer := provider.Tracer("test")
	body := &flaky{fails: []error{errUnavailable}}
	run := func(ctx agent.Context, a flakyArgs) (map[string]any, error) {
		_, span := tracer.Start(ctx, "inventory.lookup")
		defer span.End()
		return body.run(ctx, a)
	}
	d := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithObserver(reflectionotel.New(reflectionotel.WithTracerProvider(provider)).Observer()),
	)
	r := newRunner(t, agentSetup{
		model:   &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}},
		tools:   []tool.Tool{newTool(t, "stock", run)},
		plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)},
	})

	ctx, root := tracer.Start(t.Context(), "test")
	ask(ctx, t, r, "s1", "how many widgets?")
	root.End()

	mine := spansOf(root.SpanContext().TraceID())
	adkTool := only(t, mine, func(s sdktrace.ReadOnlySpan) bool {
		return s.Name() == "execute_tool stock" && s.InstrumentationScope().Name != reflectionotel.ScopeName
	})
	call := only(t, mine, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "reflection.run stock" })
	assert.Equal(t, adkTool.SpanContext().SpanID(), call.Parent().SpanID(), "the call's span is a child of ADK's tool span")
	assert.Contains(t, call.Attributes(), attribute.String("gen_ai.tool.call.id", "call-1"))

	var attempts []sdktrace.ReadOnlySpan
	for _, s := range mine {
		if s.Name() == "execute_tool stock" && s.InstrumentationScope().Name == reflectionotel.ScopeName {
			attempts = append(attempts, s)
		}
	}
	require.Len(t, attempts, 2, "one span per attempt")
	var lookups []sdktrace.ReadOnlySpan
	for _, s := range mine {
		if s.Name() == "inventory.lookup" {
			lookups = append(lookups, s)
		}
	}
	require.Len(t, lookups, 2, "the tool ran twice")
	for i, a := range attempts {
		assert.Equal(t, call.SpanContext().SpanID(), a.Parent().SpanID(), "attempt %d is a child of the call", i)
		assert.Equal(t, a.SpanContext().SpanID(), lookups[i].Parent().SpanID(), "the tool's span %d is a child of its attempt", i)
	}
}

// spansOf returns the ended spans of one trace, in the order they started.
func spansOf(id trace.TraceID) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.SpanContext().TraceID() == id {
			out = append(out, s)
		}
	}
	for i := 1; i < len(out); i++ { // by start time, a short list
		for j := i; j > 0 && out[j].StartTime().Before(out[j-1].StartTime()); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// only returns the one span that match holds for.
func only(t *testing.T, ss []sdktrace.ReadOnlySpan, match func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range ss {
		if match(s) {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1)
	return found[0]
}
