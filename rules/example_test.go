package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// The stock table answers what it is sure of and skips the rest.
func Example() {
	r := rules.New(rules.Defaults()...)
	for _, text := range []string{
		"429 Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.",
		"Error code: 401 - {'type': 'error', 'error': {'type': 'authentication_error', 'message': 'invalid x-api-key'}}",
		"Error 1213: Deadlock found when trying to get lock; try restarting transaction",
		"fatal error: all goroutines are asleep - deadlock!",
		"timeout must be positive",
	} {
		a, err := r.Analyze(context.Background(), reflection.Failure{Error: text})
		switch {
		case errors.Is(err, reflection.ErrSkipped):
			fmt.Println("skipped")
		case a.IsRecoverable:
			fmt.Printf("retry (%s), wait at least %v\n", a.Context, a.RetryAfter)
		default:
			fmt.Printf("%s: %s\n", a.Correction.Type, a.RootCause)
		}
	}
	// Output:
	// retry (rules: rate-limit), wait at least 644ms
	// escalate: authentication or permission failure
	// retry (rules: database), wait at least 0s
	// skipped
	// skipped
}

// A host's own rules go before the stock table; UnknownTool after it.
func ExampleNew() {
	own := rules.Rule{
		Name: "payments-locked",
		When: rules.All(rules.Status(409), rules.Contains("payment_locked")),
		Then: rules.Transient("the payment is locked by another request"),
	}
	table := append([]rules.Rule{own}, rules.Defaults()...)
	table = append(table, rules.UnknownTool("web_search", "read_file"))
	r := rules.New(table...)

	a, _ := r.Analyze(context.Background(), reflection.Failure{Error: `status 409: {"code":"payment_locked"}`})
	fmt.Println(a.IsRecoverable, a.Context)
	// Output:
	// true rules: payments-locked
}

// UnknownTool turns a call to a tool that does not exist into a ToolChange to
// the closest tool the host has.
func ExampleUnknownTool() {
	r := rules.New(rules.UnknownTool("web_search", "read_file", "write_file"))
	a, err := r.Analyze(context.Background(), reflection.Failure{
		Tool:  "search_web",
		Error: `calling "tools/call": unknown tool "search_web"`,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Correction.Type, a.Correction.AlternativeTool)
	// Output:
	// tool_change web_search
}

// Under a Driver, the rules make a passing failure retry: the second call
// succeeds.
func Example_driver() {
	calls := 0
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		if calls == 1 {
			return reflection.ToolResult{Content: "503 Service Unavailable", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "sunny"}, nil
	}
	d := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
	)
	res, err := d.Run(context.Background(), reflection.ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)}, dispatch)
	fmt.Println(res.Content, err, calls)
	// Output:
	// sunny <nil> 2
}
