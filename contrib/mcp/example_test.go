package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"a city name, in English"`
}

// newWeatherServer is an MCP server with one tool that knows one city.
func newWeatherServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_weather", Description: "Current weather of a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in weatherArgs) (*mcp.CallToolResult, any, error) {
			if in.City != "Lisbon" {
				return nil, nil, fmt.Errorf("unknown city %q; try its English name", in.City)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Lisbon: 19°C, clear"}}}, nil, nil
		})
	return server
}

// connect runs server in-process and returns a client session to it, with
// tools installed as the client's tools/list_changed handler.
func connect(ctx context.Context, server *mcp.Server, tools *reflectionmcp.Tools) (*mcp.ClientSession, func()) {
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: tools.HandleListChanged,
	})
	session, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	return session, func() {
		_ = session.Close()
		_ = serverSession.Wait()
	}
}

// The whole glue: the server's tool list as the Driver's schemas, and the
// session as its dispatch. The first call fails on the server; the
// Reflector, which sees the tool's schema, corrects the input.
func Example() {
	ctx := context.Background()
	tools := reflectionmcp.NewTools()
	session, closeAll := connect(ctx, newWeatherServer(), tools)
	defer closeAll()
	if err := tools.Load(ctx, session); err != nil {
		log.Fatal(err)
	}

	reflector := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		fmt.Printf("failed: %s\nschema: %s\n", f.Error, f.Schema.InputSchema)
		return reflection.FailureAnalysis{
			IsRecoverable: true,
			RootCause:     "the city was not given in English",
			Correction: &reflection.Correction{
				Type:          reflection.InputFix,
				ModifiedInput: json.RawMessage(`{"city":"Lisbon"}`),
			},
		}, nil
	})
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(tools.Schemas()),
	)
	call := reflection.ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Lisboa"}`)}
	res, err := driver.Run(ctx, call, reflectionmcp.Dispatch(session))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("result: %+v\n", res)
	// Output:
	// failed: unknown city "Lisboa"; try its English name
	// schema: {"additionalProperties":false,"properties":{"city":{"description":"a city name, in English","type":"string"}},"required":["city"],"type":"object"}
	// result: {ID:call_1 Content:Lisbon: 19°C, clear IsError:false}
}

// CallTool returns an error only when ctx has ended. Here the tool never
// recovers: the strategy keeps retrying until the Driver's ceiling, and the
// model gets the last failure as a soft error, so the agent goes on.
func ExampleCallTool() {
	ctx := context.Background()
	tools := reflectionmcp.NewTools()
	session, closeAll := connect(ctx, newWeatherServer(), tools)
	defer closeAll()

	calls := 0
	dispatch := reflectionmcp.Dispatch(session)
	counting := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		return dispatch(ctx, call)
	}
	driver := reflection.NewDriver(
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "maybe transient"}, nil
		})),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{}
		})),
	)
	call := reflection.ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Atlantis"}`)}

	_, err := driver.Run(ctx, call, counting)
	fmt.Println("Run:", errors.Is(err, reflection.ErrToolRecoveryExhausted), "after", calls, "calls")

	res, err := reflectionmcp.CallTool(ctx, driver, session, call)
	fmt.Printf("CallTool: err=%v IsError=%t Content=%s\n", err, res.IsError, res.Content)
	// Output:
	// Run: true after 6 calls
	// CallTool: err=<nil> IsError=true Content=unknown city "Atlantis"; try its English name
}

// HandleListChanged keeps the lookup in step with the server: a tool added
// after Load is known once the server's notification has been handled.
func ExampleTools_HandleListChanged() {
	ctx := context.Background()
	server := newWeatherServer()
	tools := reflectionmcp.NewTools()

	changed := make(chan struct{}, 1)
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		// The host's own handler calls the adapter's first.
		ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			tools.HandleListChanged(ctx, req)
			changed <- struct{}{}
		},
	})
	session, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		_ = session.Close()
		_ = serverSession.Wait()
	}()
	if err := tools.Load(ctx, session); err != nil {
		log.Fatal(err)
	}
	_, known := tools.Schema("get_forecast")
	fmt.Println("get_forecast known before:", known)

	mcp.AddTool(server, &mcp.Tool{Name: "get_forecast", Description: "Tomorrow's weather."},
		func(context.Context, *mcp.CallToolRequest, weatherArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	<-changed
	s, known := tools.Schema("get_forecast")
	fmt.Println("get_forecast known after:", known, "-", s.Description)
	// Output:
	// get_forecast known before: false
	// get_forecast known after: true - Tomorrow's weather.
}

func ExampleResultText() {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "Here is the chart:"},
		&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1024)},
	}}
	fmt.Println(reflectionmcp.ResultText(res))

	typed := &mcp.CallToolResult{StructuredContent: map[string]any{"temperature": 19, "sky": "clear"}}
	fmt.Println(reflectionmcp.ResultText(typed))
	// Output:
	// Here is the chart:
	// [image: image/png, 1024 bytes]
	// {"sky":"clear","temperature":19}
}

// Effect reads what the server's annotations say about running a tool
// twice. With it, the Driver retries a read-only tool after an error result,
// and does not run again a tool that may already have acted.
func ExampleTools_Effect() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "v1"}, nil)
	sent := 0
	mcp.AddTool(server, &mcp.Tool{Name: "send_mail"}, // no annotations: not idempotent
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			sent++
			return nil, nil, errors.New("gateway timeout after the message was queued")
		})
	mcp.AddTool(server, &mcp.Tool{Name: "list_mail", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3 messages"}}}, nil, nil
		})
	tools := reflectionmcp.NewTools()
	session, closeAll := connect(ctx, server, tools)
	defer closeAll()
	if err := tools.Load(ctx, session); err != nil {
		log.Fatal(err)
	}
	fmt.Println("send_mail:", tools.Effect("send_mail"), "list_mail:", tools.Effect("list_mail"))

	driver := reflection.NewDriver(
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "a timeout"}, nil
		})),
		reflection.WithEffects(tools.Effect), // this server is trusted
	)
	rep, _ := driver.RunWithReport(ctx, reflection.ToolCall{ID: "m1", Name: "send_mail"}, reflectionmcp.Dispatch(session))
	fmt.Println(rep.Outcome, rep.Reason, "- sent", sent, "time")
	// Output:
	// send_mail: non_idempotent list_mail: read_only
	// asked_user ambiguous_effect - sent 1 time
}
