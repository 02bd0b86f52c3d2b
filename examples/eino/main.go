// Command eino runs a cloudwego/eino ReAct agent whose tool calls go through
// a reflection.Driver, offline: the chat model is a script that plays the
// part of an LLM, and the Reflector is a handful of rules.
//
// One conversation shows what the adapter changes:
//
//   - get_weather is called with "NYC"; the tool wants a full city name, and
//     the Reflector's InputFix spells it out;
//   - search_flights_v1 is retired; the Reflector's ToolChange runs
//     search_flights in its place, with eino's callbacks for it;
//   - the model makes up book_hotell; eino would fail the whole run on it,
//     but the unknown-tool handler sends it through the Driver, and a
//     ToolChange points it to book_hotel;
//   - book_hotel then fails for a reason no retry can fix: the failure
//     becomes the tool's output, and the model tells the user, where without
//     the adapter the agent would have stopped with an error.
//
// Run it with: go run ./examples/eino (from the repository root).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "eino example:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx := context.Background()
	tools, err := travelTools()
	if err != nil {
		return err
	}

	// The glue: a Toolset from the agent's tools, a Driver that knows their
	// schemas, and the ToolsNodeConfig that joins them.
	set, err := reflectioneino.NewToolset(ctx, tools)
	if err != nil {
		return err
	}
	driver := reflection.NewDriver(
		reflection.WithReflector(travelRules(tools)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(set.Schemas()),
		reflection.WithObserver(traceDriver(w)),
	)
	toolsConfig := set.Config(driver)
	toolsConfig.ExecuteSequentially = true // a stable trace
	travelAgent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: &scriptedModel{},
		ToolsConfig:      toolsConfig,
	})
	if err != nil {
		return err
	}

	question := "I fly from Lisbon to New York on Friday: weather, a flight and a hotel, please."
	fmt.Fprintf(w, "user: %s\n", question)
	answer, err := travelAgent.Generate(ctx, []*schema.Message{schema.UserMessage(question)},
		agent.WithComposeOptions(compose.WithCallbacks(traceCallbacks(w))))
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	fmt.Fprintf(w, "assistant: %s\n", answer.Content)
	return nil
}

// ---- the tools

type cityArgs struct {
	City string `json:"city" jsonschema:"description=the city's full name"`
}

type flightArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type hotelArgs struct {
	City   string `json:"city"`
	Nights int    `json:"nights"`
}

func travelTools() ([]tool.BaseTool, error) {
	weather, err := utils.InferTool("get_weather", "the forecast for a city",
		func(_ context.Context, in cityArgs) (string, error) {
			forecasts := map[string]string{"New York": "New York: 21°C, light wind", "Lisbon": "Lisbon: 24°C, sunny"}
			if f, ok := forecasts[in.City]; ok {
				return f, nil
			}
			return "", fmt.Errorf("unknown city %q: give the full name", in.City)
		})
	if err != nil {
		return nil, err
	}
	oldFlights, err := utils.InferTool("search_flights_v1", "searches flights (retired)",
		func(context.Context, flightArgs) (string, error) {
			return "", errors.New("search_flights_v1 was retired: use search_flights")
		})
	if err != nil {
		return nil, err
	}
	flights, err := utils.InferTool("search_flights", "searches flights between two cities",
		func(_ context.Context, in flightArgs) (string, error) {
			return fmt.Sprintf("TP 1351 %s-%s, Friday 10:25, 612 EUR", in.From, in.To), nil
		})
	if err != nil {
		return nil, err
	}
	hotel, err := utils.InferTool("book_hotel", "books a hotel room",
		func(context.Context, hotelArgs) (string, error) {
			return "", errors.New("permission denied: booking needs a signed-in user")
		})
	if err != nil {
		return nil, err
	}
	return []tool.BaseTool{weather, oldFlights, flights, hotel}, nil
}

// ---- the Reflector: a few rules, offline

func travelRules(tools []tool.BaseTool) reflection.Reflector {
	var names []string
	for _, t := range tools {
		if info, err := t.Info(context.Background()); err == nil {
			names = append(names, info.Name)
		}
	}
	fullNames := map[string]string{"NYC": "New York", "LIS": "Lisbon"}
	return reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}
		switch {
		case strings.Contains(f.Error, "unknown city"):
			var in cityArgs
			if json.Unmarshal(f.Input, &in) == nil && fullNames[in.City] != "" {
				fixed, _ := json.Marshal(cityArgs{City: fullNames[in.City]})
				a.IsRecoverable, a.Severity = true, reflection.SeverityLow
				a.Correction = &reflection.Correction{Type: reflection.InputFix, Description: "spell the city out", ModifiedInput: fixed}
			}
		case strings.Contains(f.Error, "was retired: use "):
			to := f.Error[strings.LastIndex(f.Error, "use ")+len("use "):]
			a.IsRecoverable, a.Severity = true, reflection.SeverityLow
			a.Correction = &reflection.Correction{Type: reflection.ToolChange, Description: "use the successor", AlternativeTool: to}
		case strings.Contains(f.Error, "unknown tool"):
			if to := closest(f.Tool, names); to != "" {
				a.IsRecoverable, a.Severity = true, reflection.SeverityLow
				a.Correction = &reflection.Correction{Type: reflection.ToolChange, Description: "the closest tool name", AlternativeTool: to}
			}
		}
		return a, nil
	})
}

// closest returns the name at edit distance 2 or less from name, if any.
func closest(name string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// ---- the chat model: a script in the part of an LLM

// scriptedModel plays the model: it asks for weather and flights, then for
// a hotel (misspelling the tool), then sums up what its tools said.
type scriptedModel struct{ turn int }

func (m *scriptedModel) Generate(_ context.Context, msgs []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.turn++
	switch m.turn {
	case 1:
		return schema.AssistantMessage("", []schema.ToolCall{
			toolCall("call_1", "get_weather", `{"city":"NYC"}`),
			toolCall("call_2", "search_flights_v1", `{"from":"LIS","to":"JFK"}`),
		}), nil
	case 2:
		return schema.AssistantMessage("", []schema.ToolCall{
			toolCall("call_3", "book_hotell", `{"city":"New York","nights":3}`),
		}), nil
	default:
		var said []string
		for _, msg := range msgs {
			if msg.Role == schema.Tool {
				said = append(said, msg.Content)
			}
		}
		return schema.AssistantMessage("Here is what I found. "+strings.Join(said, ". ")+
			". I could not book the hotel: please sign in first.", nil), nil
	}
}

func (m *scriptedModel) Stream(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, msgs, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

func toolCall(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// ---- the trace

// traceDriver prints what the Driver does.
func traceDriver(w io.Writer) reflection.Observer {
	return reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, c reflection.ToolCall) {
			fmt.Fprintf(w, "  [driver] %s attempt %d: %s %s\n", c.ID, attempt+1, c.Name, c.Input)
		},
		Analyzed: func(_ context.Context, f reflection.Failure, a reflection.FailureAnalysis, err error) {
			if err != nil {
				fmt.Fprintf(w, "  [driver] analysis failed: %v\n", err)
				return
			}
			fmt.Fprintf(w, "  [driver] failed: %s (recoverable: %v)\n", f.Error, a.IsRecoverable)
		},
		Decided: func(_ context.Context, _ int, action reflection.RecoveryAction) {
			fmt.Fprintf(w, "  [driver] decision: %s\n", action)
		},
		Corrected: func(_ context.Context, _ int, c reflection.Correction, applied bool, _ string) {
			if applied {
				fmt.Fprintf(w, "  [driver] correction: %s (%s)\n", c.Type, c.Description)
			}
		},
	}
}

// traceCallbacks prints eino's tool callbacks.
func traceCallbacks(w io.Writer) callbacks.Handler {
	isTool := func(info *callbacks.RunInfo) bool { return info != nil && info.Component == components.ComponentOfTool }
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			if isTool(info) {
				fmt.Fprintf(w, "  [eino] %s started\n", info.Name)
			}
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			if isTool(info) {
				fmt.Fprintf(w, "  [eino] %s ended\n", info.Name)
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			if isTool(info) {
				fmt.Fprintf(w, "  [eino] %s failed\n", info.Name)
			}
			return ctx
		}).
		Build()
}
