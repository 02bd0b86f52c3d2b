// Command mcp runs an MCP server and an MCP client in one process, over the
// Go SDK's in-memory transports, and sends the client's tool calls through a
// reflection.Driver. It is offline and needs no model: a small rule-based
// Reflector stands in for one.
//
// Four calls show what the adapter does:
//
//   - get_weather is called with a city name the server does not know; the
//     server rejects it, and the Reflector, which sees the tool's schema
//     from the server's tool list, corrects the input;
//   - search_v1 is deprecated; the server adds search_v2 while the client is
//     connected, the tool list follows the server's notification, and the
//     Reflector's ToolChange to search_v2 applies;
//   - stock_price never answers; it is annotated read-only, so the Driver
//     retries it, and after the strategy's retries the failure goes back to
//     the model as a soft error, and the agent goes on;
//   - book_room times out; it has no annotations, so by the MCP
//     specification's defaults it may have booked the room already, and the
//     Driver does not run it again blindly.
//
// Run it with: go run .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcp example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	server := newServer()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		return err
	}
	defer func() { _ = serverSession.Wait() }()

	// The glue: a Tools installed as the client's list-changed handler before
	// Connect, loaded once connected, and given to the Driver as its schemas
	// and, since this server is our own and trusted, its effects.
	tools := reflectionmcp.NewTools()
	listChanged := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			tools.HandleListChanged(ctx, req)
			listChanged <- struct{}{}
		},
	})
	session, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		return err
	}
	defer func() { _ = session.Close() }()
	if err := tools.Load(ctx, session); err != nil {
		return err
	}
	fmt.Fprintf(w, "server tools: %s\n", strings.Join(toolNames(tools), ", "))

	driver := reflection.NewDriver(
		reflection.WithReflector(rules{}),
		reflection.WithStrategy(reflection.NewExponentialBackoff(2).WithBaseDelay(0)),
		reflection.WithSchemas(tools.Schemas()),
		reflection.WithEffects(tools.Effect),
		reflection.WithObserver(trace(w)),
	)

	call := func(c reflection.ToolCall) error {
		fmt.Fprintf(w, "\n== %s %s\n", c.Name, c.Input)
		res, err := reflectionmcp.CallTool(ctx, driver, session, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.ID, err) // only when ctx has ended
		}
		status := "ok"
		if res.IsError {
			status = "soft error, handed to the model"
		}
		fmt.Fprintf(w, "   => %s: %s\n", status, res.Content)
		return nil
	}

	if err := call(reflection.ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Lisboa"}`)}); err != nil {
		return err
	}

	// The server deploys search_v2; the client's tool list follows.
	addSearchV2(server)
	<-listChanged
	fmt.Fprintf(w, "\nserver tools changed: %s\n", strings.Join(toolNames(tools), ", "))
	if err := call(reflection.ToolCall{ID: "call_2", Name: "search_v1", Input: json.RawMessage(`{"query":"release notes"}`)}); err != nil {
		return err
	}

	if err := call(reflection.ToolCall{ID: "call_3", Name: "stock_price", Input: json.RawMessage(`{"symbol":"ACME"}`)}); err != nil {
		return err
	}
	return call(reflection.ToolCall{ID: "call_4", Name: "book_room", Input: json.RawMessage(`{"room":"Tagus","hour":15}`)})
}

func toolNames(tools *reflectionmcp.Tools) []string {
	var names []string
	for _, s := range tools.Catalog(context.Background()) {
		names = append(names, s.Name)
	}
	return names
}

type cityArgs struct {
	City string `json:"city" jsonschema:"a city name, in English"`
}

type queryArgs struct {
	Query string `json:"query" jsonschema:"what to search for"`
}

type symbolArgs struct {
	Symbol string `json:"symbol" jsonschema:"a ticker symbol"`
}

type bookingArgs struct {
	Room string `json:"room" jsonschema:"the room to book"`
	Hour int    `json:"hour" jsonschema:"the hour the meeting starts"`
}

// readOnly annotates a tool that changes nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

// newServer is the MCP server: four tools, one of them deprecated, three
// annotated read-only.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "office", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_weather", Description: "Current weather of a city.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in cityArgs) (*mcp.CallToolResult, any, error) {
			if in.City != "Lisbon" {
				return nil, nil, fmt.Errorf("unknown city %q; use the English name", in.City)
			}
			return text("Lisbon: 19°C, clear"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "search_v1", Description: "Deprecated search.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, queryArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("search_v1 is deprecated; use search_v2")
		})
	mcp.AddTool(server, &mcp.Tool{Name: "stock_price", Description: "Latest price of a stock.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, symbolArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("quote service unavailable")
		})
	mcp.AddTool(server, &mcp.Tool{Name: "book_room", Description: "Book a meeting room."},
		func(context.Context, *mcp.CallToolRequest, bookingArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("calendar service unavailable: timed out waiting for the booking to be confirmed")
		})
	return server
}

func addSearchV2(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "search_v2", Description: "Search the documents.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in queryArgs) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprintf("3 results for %q", in.Query)), nil, nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// rules is a Reflector that reads the failure text: no model needed.
type rules struct{}

var english = map[string]string{"Lisboa": "Lisbon"}

func (rules) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}
	switch {
	case strings.Contains(f.Error, "unknown city"):
		var in cityArgs
		if err := json.Unmarshal(f.Input, &in); err == nil && english[in.City] != "" && f.Schema != nil {
			fixed, _ := json.Marshal(cityArgs{City: english[in.City]})
			a.IsRecoverable = true
			a.Correction = &reflection.Correction{
				Type:          reflection.InputFix,
				Description:   "the schema asks for " + schemaHint(f.Schema),
				ModifiedInput: fixed,
			}
		}
	case strings.Contains(f.Error, "deprecated; use "):
		alt := f.Error[strings.LastIndex(f.Error, " ")+1:]
		a.IsRecoverable = true
		a.Correction = &reflection.Correction{Type: reflection.ToolChange, Description: "switch to " + alt, AlternativeTool: alt}
	case strings.Contains(f.Error, "unavailable"):
		a.IsRecoverable, a.Severity = true, reflection.SeverityLow
	}
	return a, nil
}

// schemaHint is the description of the schema's city property.
func schemaHint(s *reflection.ToolSchema) string {
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(s.InputSchema, &schema)
	return schema.Properties["city"].Description
}

// trace prints every step of the recovery loop.
func trace(w io.Writer) reflection.Observer {
	return reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, call reflection.ToolCall) {
			fmt.Fprintf(w, "   attempt %d: %s %s\n", attempt+1, call.Name, call.Input)
		},
		DispatchDone: func(_ context.Context, _ int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(w, "     failed: %v\n", err)
			case res.IsError:
				fmt.Fprintf(w, "     failed: %s\n", res.Content)
			}
		},
		Decided: func(_ context.Context, _ int, action reflection.RecoveryAction) {
			fmt.Fprintf(w, "     decision: %s\n", action)
		},
		Corrected: func(_ context.Context, _ int, c reflection.Correction, applied bool, why string) {
			if applied {
				fmt.Fprintf(w, "     correction applied: %s\n", c.Description)
			} else {
				fmt.Fprintf(w, "     correction dropped: %s\n", why)
			}
		},
	}
}
