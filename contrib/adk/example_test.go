package reflectionadk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/loopctl-go/reflection/rules"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

// offlineModel plays the model of the examples: it calls get_weather once,
// then says what the tool answered.
type offlineModel struct{}

func (offlineModel) Name() string { return "offline" }

func (offlineModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		last := req.Contents[len(req.Contents)-1]
		if r := last.Parts[0].FunctionResponse; r != nil {
			yield(&model.LLMResponse{Content: genai.NewContentFromText(fmt.Sprint("the tool said: ", r.Response), genai.RoleModel)}, nil)
			return
		}
		call := &genai.FunctionCall{ID: "call-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}
		yield(&model.LLMResponse{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: call}}}}, nil)
	}
}

type weatherArgs struct {
	City string `json:"city"`
}

// weatherTool fails once with a 503, then answers.
func weatherTool() tool.Tool {
	calls := 0
	t, err := functiontool.New(functiontool.Config{Name: "get_weather", Description: "the weather in a city"},
		func(_ agent.Context, a weatherArgs) (map[string]any, error) {
			calls++
			if calls == 1 {
				return nil, errors.New("weather service: 503 Service Unavailable")
			}
			return map[string]any{"city": a.City, "sky": "clear"}, nil
		})
	if err != nil {
		panic(err)
	}
	return t
}

// run sends one message through a runner and prints the agent's answer.
func run(a agent.Agent, plugins ...*plugin.Plugin) {
	r, err := runner.New(runner.Config{
		AppName:           "weather",
		Agent:             a,
		SessionService:    session.InMemoryService(),
		PluginConfig:      runner.PluginConfig{Plugins: plugins},
		AutoCreateSession: true,
	})
	if err != nil {
		panic(err)
	}
	msg := genai.NewContentFromText("weather in Paris?", genai.RoleUser)
	for ev, err := range r.Run(context.Background(), "user", "session-1", msg, agent.RunConfig{}) {
		if err != nil {
			panic(err)
		}
		if ev.Content != nil && ev.Content.Parts[0].Text != "" {
			fmt.Println(ev.Content.Parts[0].Text)
		}
	}
}

func ExampleNewPlugin() {
	driver := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)), // a 503 is transient
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
	)
	a, err := llmagent.New(llmagent.Config{Name: "weather", Model: offlineModel{}, Tools: []tool.Tool{weatherTool()}})
	if err != nil {
		panic(err)
	}
	run(a, reflectionadk.MustNewPlugin(driver))
	// Output: the tool said: map[city:Paris sky:clear]
}

func ExampleWrapTools() {
	driver := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
	)
	tools, err := reflectionadk.WrapTools(driver, []tool.Tool{weatherTool()})
	if err != nil {
		panic(err)
	}
	a, err := llmagent.New(llmagent.Config{Name: "weather", Model: offlineModel{}, Tools: tools})
	if err != nil {
		panic(err)
	}
	run(a)
	// Output: the tool said: map[city:Paris sky:clear]
}

func ExampleSchemas() {
	lookup := reflectionadk.Schemas(weatherTool())
	s, ok := lookup("get_weather")
	fmt.Println(ok, s.Name, s.Description)
	fmt.Println(string(s.InputSchema))
	// Output:
	// true get_weather the weather in a city
	// {"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}
}
