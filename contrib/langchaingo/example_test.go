package reflectionlangchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
)

// A langchaingo agent whose model writes an expression langchaingo's
// Calculator cannot evaluate. The wrapped Calculator runs through a Driver:
// the Reflector rewrites the input and the agent gets the result.
func ExampleWrapTools() {
	model := &fakeModel{script: []string{
		"Action: calculator\nAction Input: six times seven",
		"Final Answer: 42",
	}}
	words := strings.NewReplacer("six", "6", "seven", "7", "times", "*")
	reflector := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		text, err := reflection.InputText(f.Input)
		if err != nil {
			return reflection.FailureAnalysis{}, fmt.Errorf("%w: %w", reflection.ErrSkipped, err)
		}
		fmt.Printf("%s failed on %s: %s\n", f.Tool, f.Input, f.Error)
		return reflection.FailureAnalysis{
			IsRecoverable: true,
			RootCause:     "the expression is written in words",
			Correction: &reflection.Correction{
				Type:          reflection.InputFix,
				ModifiedInput: reflection.TextInput(words.Replace(text)),
			},
		}, nil
	})
	calculator := tools.Calculator{}
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(reflectionlangchaingo.Schemas([]tools.Tool{calculator})),
	)
	// The Calculator reports a bad expression in its output, not as an error.
	failed := reflectionlangchaingo.WithFailedOutput(func(out string) bool { return strings.HasPrefix(out, "error from evaluator:") })

	agent := agents.NewOneShotAgent(model, reflectionlangchaingo.WrapTools(driver, []tools.Tool{calculator}, failed))
	answer, err := chains.Run(context.Background(), agents.NewExecutor(agent), "What is six times seven?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the model saw:", strings.Contains(model.sent()[1], "Observation: 42"))
	fmt.Println("answer:", answer)
	// Output:
	// calculator failed on {"input":"six times seven"}: error from evaluator: input:1:10: got identifier after expression, want EOF
	// the model saw: true
	// answer: 42
}

// CheckInput keeps a Driver whose tools are all wrappers from retrying with
// an InputFix that is not {"input": "<text>"}: it is reflection.InputText in
// the signature of reflection.WithInputCheck.
func ExampleCheckInput() {
	fmt.Println(reflectionlangchaingo.CheckInput("sql", reflection.TextInput("SELECT name FROM users WHERE age > 30")))
	err := reflectionlangchaingo.CheckInput("sql", json.RawMessage(`{"query":"SELECT 1"}`))
	fmt.Println(errors.Is(err, reflection.ErrNotTextInput))

	_ = reflection.NewDriver(reflection.WithInputCheck(reflectionlangchaingo.CheckInput))
	// Output:
	// <nil>
	// true
}

// Schemas is the lookup a Reflector reads the wrapped tools' schemas from:
// each takes {"input": "<text>"}.
func ExampleSchemas() {
	lookup := reflectionlangchaingo.Schemas([]tools.Tool{tools.Calculator{}})
	s, ok := lookup("calculator")
	fmt.Println(ok, string(s.InputSchema))
	_, ok = lookup("search")
	fmt.Println(ok)
	// Output:
	// true {"type":"object","properties":{"input":{"type":"string","description":"The text the tool takes."}},"required":["input"],"additionalProperties":false}
	// false
}

// A wrapper hands a failure to the model as the tool's output, so
// langchaingo's executor goes on; only a ctx that has ended is an error.
func ExampleWrapTool() {
	driver := reflection.NewDriver() // no retry: every failure ends softly
	adderTool := reflectionlangchaingo.WrapTool(driver, &adder{})

	out, err := adderTool.Call(context.Background(), "2 + 40")
	fmt.Printf("%q %v\n", out, err)
	out, err = adderTool.Call(context.Background(), "two and forty")
	fmt.Printf("%q %v\n", out, err)
	// Output:
	// "42" <nil>
	// "adder: cannot read \"two and forty\": want \"<a> + <b>\"" <nil>
}
