package reflectioneino_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// weatherArgs are the arguments of the examples' weather tool.
type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city, spelled in full"`
}

// exampleTools returns a weather tool that knows Paris only, and a retired
// tool that points to it.
func exampleTools() []tool.BaseTool {
	weather, err := utils.InferTool("weather", "today's weather in a city",
		func(_ context.Context, in weatherArgs) (string, error) {
			if in.City != "Paris" {
				return "", fmt.Errorf("unknown city %q", in.City)
			}
			return "sunny, 24°C", nil
		})
	if err != nil {
		panic(err)
	}
	old, err := utils.InferTool("weather_v1", "retired",
		func(context.Context, weatherArgs) (string, error) {
			return "", errors.New("weather_v1 is retired, use weather")
		})
	if err != nil {
		panic(err)
	}
	return []tool.BaseTool{weather, old}
}

// exampleReflector fixes two kinds of failure by rule: a retired tool, and a
// city the model abbreviated.
var exampleReflector = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityLow}
	switch {
	case strings.Contains(f.Error, "retired, use weather"):
		a.IsRecoverable = true
		a.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "weather"}
	case strings.Contains(f.Error, `unknown city "PAR"`):
		a.IsRecoverable = true
		a.Correction = &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"city":"Paris"}`)}
	}
	return a, nil
})

// A ToolsNode whose calls run through a Driver: a retired tool is replaced,
// an abbreviated city is spelled out, and a failure nobody can fix reaches
// the model as the tool's output instead of ending the graph.
func ExampleToolset_Config() {
	ctx := context.Background()
	set, err := reflectioneino.NewToolset(ctx, exampleTools())
	if err != nil {
		panic(err)
	}
	driver := reflection.NewDriver(
		reflection.WithReflector(exampleReflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(set.Schemas()),
	)
	conf := set.Config(driver)
	conf.ExecuteSequentially = true // other fields are yours to set
	node, err := compose.NewToolNode(ctx, &conf)
	if err != nil {
		panic(err)
	}

	msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{
		{ID: "call_1", Function: schema.FunctionCall{Name: "weather_v1", Arguments: `{"city":"Paris"}`}},
		{ID: "call_2", Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"PAR"}`}},
		{ID: "call_3", Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Atlantis"}`}},
	}))
	if err != nil {
		panic(err)
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.ToolCallID, m.Content)
	}
	// Output:
	// call_1: sunny, 24°C
	// call_2: sunny, 24°C
	// call_3: [LocalFunc] failed to invoke tool, toolName=weather, err=unknown city "Atlantis"
}

// A call to a tool the model made up goes through the Driver too, which can
// point it to a tool that exists.
func ExampleToolset_UnknownToolsHandler() {
	ctx := context.Background()
	set, err := reflectioneino.NewToolset(ctx, exampleTools())
	if err != nil {
		panic(err)
	}
	closestName := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		a := reflection.FailureAnalysis{RootCause: f.Error}
		if f.Tool == "get_weather" {
			a.IsRecoverable = true
			a.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "weather"}
		}
		return a, nil
	})
	driver := reflection.NewDriver(
		reflection.WithReflector(closestName),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(set.Schemas()),
	)
	handler := set.UnknownToolsHandler(driver)

	out, err := handler(ctx, "get_weather", `{"city":"Paris"}`)
	fmt.Println(out, err)
	out, err = handler(ctx, "horoscope", `{}`)
	fmt.Println(out, err)
	// Output:
	// sunny, 24°C <nil>
	// reflectioneino: unknown tool "horoscope" (the tools are: weather, weather_v1) <nil>
}

// One tool wrapped on its own: its calls recover by InputFix.
func ExampleWrapTool() {
	ctx := context.Background()
	weather := exampleTools()[0].(tool.InvokableTool)
	driver := reflection.NewDriver(
		reflection.WithReflector(exampleReflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
	)
	wrapped, err := reflectioneino.WrapTool(ctx, driver, weather)
	if err != nil {
		panic(err)
	}
	out, err := wrapped.InvokableRun(ctx, `{"city":"PAR"}`)
	fmt.Println(out, err)
	out, err = wrapped.InvokableRun(ctx, `{"city":"Atlantis"}`)
	fmt.Println(out, err)
	// Output:
	// sunny, 24°C <nil>
	// [LocalFunc] failed to invoke tool, toolName=weather, err=unknown city "Atlantis" <nil>
}
