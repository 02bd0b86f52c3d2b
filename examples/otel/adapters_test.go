package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopctl-go/reflection"
	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestEveryAdapterIsTraced builds one Driver with the Telemetry's Observer,
// the only wiring, and runs a call that recovers by an InputFix through
// three runtimes: Driver.Run, reflectionmcp.CallTool over a real MCP session
// (the SDK's in-memory transports), and reflectioneino.WrapTool. Each call
// leaves its span, one attempt span per dispatch under it, its events and
// its metrics; where the tool runs in-process, its own span nests under the
// attempt that ran it.
func TestEveryAdapterIsTraced(t *testing.T) {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = tp.Shutdown(ctx); _ = mp.Shutdown(ctx) })
	tel := reflectionotel.New(reflectionotel.WithTracerProvider(tp), reflectionotel.WithMeterProvider(mp))

	fix := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "n must be 2",
			Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"n":2}`)},
		}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(fix),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithObserver(tel.Observer()),
	)
	tracer := tp.Tracer("tools")
	work := func(ctx context.Context, name string, n int) (string, error) {
		_, span := tracer.Start(ctx, name+".work")
		defer span.End()
		if n != 2 {
			return "", fmt.Errorf("%s: n=%d is not allowed", name, n)
		}
		return name + " ok", nil
	}

	// Driver.Run.
	plain := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		var in struct{ N int }
		_ = json.Unmarshal(call.Input, &in)
		out, err := work(ctx, "plain", in.N)
		return reflection.ToolResult{Content: out}, err
	}
	res, err := d.Run(ctx, reflection.ToolCall{ID: "p", Name: "plain", Input: json.RawMessage(`{"n":1}`)}, plain)
	if err != nil || res.Content != "plain ok" {
		t.Fatalf("Run: %+v, %v", res, err)
	}

	// reflectionmcp.CallTool over an in-process MCP session.
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	type nArgs struct {
		N int `json:"n"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "mcp_tool"}, func(ctx context.Context, _ *mcp.CallToolRequest, in nArgs) (*mcp.CallToolResult, any, error) {
		out, err := work(ctx, "mcp_tool", in.N) // the server's ctx: the trace does not cross the transport
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil, nil
	})
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close(); _ = serverSession.Wait() })
	res, err = reflectionmcp.CallTool(ctx, d, session, reflection.ToolCall{ID: "m", Name: "mcp_tool", Input: json.RawMessage(`{"n":1}`)})
	if err != nil || res.Content != "mcp_tool ok" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}

	// reflectioneino.WrapTool.
	wrapped, err := reflectioneino.WrapTool(ctx, d, &einoTool{work: work})
	if err != nil {
		t.Fatal(err)
	}
	out, err := wrapped.InvokableRun(ctx, `{"n":1}`)
	if err != nil || out != "eino_tool ok" {
		t.Fatalf("eino: %q, %v", out, err)
	}

	ended := spans.Ended()
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		byID[s.SpanContext().SpanID()] = s
	}
	parentName := func(s sdktrace.ReadOnlySpan) string {
		if p, ok := byID[s.Parent().SpanID()]; ok {
			return p.Name()
		}
		return ""
	}
	got := map[string][]string{} // span name -> names of the parents of its copies
	for _, s := range ended {
		got[s.Name()] = append(got[s.Name()], parentName(s))
	}
	for _, tool := range []string{"plain", "mcp_tool", "eino_tool"} {
		if p := got["reflection.run "+tool]; len(p) != 1 {
			t.Errorf("%s: %d call spans, want 1", tool, len(p))
		}
		if p := got["execute_tool "+tool]; fmt.Sprint(p) != fmt.Sprintf("[reflection.run %s reflection.run %s]", tool, tool) {
			t.Errorf("%s: attempt spans under %q, want two under the call's span", tool, p)
		}
	}
	for _, tool := range []string{"plain", "eino_tool"} {
		if p := got[tool+".work"]; fmt.Sprint(p) != fmt.Sprintf("[execute_tool %s execute_tool %s]", tool, tool) {
			t.Errorf("%s: the tool's spans under %q, want one under each attempt", tool, p)
		}
	}
	for _, s := range ended {
		if s.Name() != "reflection.run mcp_tool" {
			continue
		}
		var events []string
		for _, e := range s.Events() {
			events = append(events, e.Name)
		}
		if fmt.Sprint(events) != "[reflection.analysis reflection.decision reflection.correction]" {
			t.Errorf("events of the MCP call: %v", events)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "reflection.calls" {
				for _, dp := range sum.DataPoints {
					tool, _ := dp.Attributes.Value(attribute.Key("gen_ai.tool.name"))
					calls[tool.AsString()] += dp.Value
				}
			}
		}
	}
	if want := map[string]int64{"plain": 1, "mcp_tool": 1, "eino_tool": 1}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("reflection.calls by tool: %v, want %v", calls, want)
	}
}

// einoTool is an eino tool that takes {"n": <int>}.
type einoTool struct {
	work func(ctx context.Context, name string, n int) (string, error)
}

func (*einoTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "eino_tool", Desc: "Accepts n=2 only."}, nil
}

func (e *einoTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ N int }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", errors.New("eino_tool: arguments are not JSON")
	}
	return e.work(ctx, "eino_tool", in.N)
}
