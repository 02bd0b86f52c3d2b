package langchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/contrib/langchaingo"
)

// A langchaingo agent whose model writes an expression langchaingo's
// Calculator cannot evaluate. The wrapped Calculator runs through a Driver:
// the Reflector rewrites the input and the agent gets the result.
func Example() {
	model := &fakeModel{script: []string{
		"Action: calculator\nAction Input: six times seven",
		"Final Answer: 42",
	}}
	words := strings.NewReplacer("six", "6", "seven", "7", "times", "*")
	reflector := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		text, err := langchaingo.InputText(f.Input)
		if err != nil {
			return reflection.FailureAnalysis{}, fmt.Errorf("%w: %w", reflection.ErrSkipped, err)
		}
		fmt.Printf("%s failed on %s: %s\n", f.Tool, f.Input, f.Error)
		return reflection.FailureAnalysis{
			IsRecoverable: true,
			RootCause:     "the expression is written in words",
			Correction: &reflection.Correction{
				Type:          reflection.InputFix,
				ModifiedInput: langchaingo.TextInput(words.Replace(text)),
			},
		}, nil
	})
	calculator := tools.Calculator{}
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithSchemas(langchaingo.Lookup(calculator)),
	)
	// The Calculator reports a bad expression in its output, not as an error.
	failed := langchaingo.WithFailedOutput(func(out string) bool { return strings.HasPrefix(out, "error from evaluator:") })

	agent := agents.NewOneShotAgent(model, langchaingo.Wrap([]tools.Tool{calculator}, driver, failed))
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

// TextInput and InputText are the two directions of a wrapped tool's input.
func ExampleTextInput() {
	in := langchaingo.TextInput(`SELECT name FROM users WHERE age > 30`)
	fmt.Println(string(in))
	text, err := langchaingo.InputText(in)
	fmt.Println(text, err)

	_, err = langchaingo.InputText(json.RawMessage(`{"query":"SELECT 1"}`))
	fmt.Println(err)
	// Output:
	// {"input":"SELECT name FROM users WHERE age > 30"}
	// SELECT name FROM users WHERE age > 30 <nil>
	// langchaingo: tool input must be {"input": "<text>"}: json: unknown field "query"
}

// A wrapper hands a failure to the model as the tool's output, so
// langchaingo's executor goes on; only a ctx that has ended is an error.
func ExampleTool_Call() {
	driver := reflection.NewDriver() // no retry: every failure ends softly
	adderTool := langchaingo.New(&adder{}, driver)

	out, err := adderTool.Call(context.Background(), "2 + 40")
	fmt.Printf("%q %v\n", out, err)
	out, err = adderTool.Call(context.Background(), "two and forty")
	fmt.Printf("%q %v\n", out, err)
	// Output:
	// "42" <nil>
	// "adder: cannot read \"two and forty\": want \"<a> + <b>\"" <nil>
}
