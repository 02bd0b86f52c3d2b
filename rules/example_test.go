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

// An expired access token is worth one retry, since most clients fetch a
// fresh token on the next request; the same expiry on a later attempt of
// the call means the client does not, and a human must act. Credentials
// refused for good are never retried.
func Example_expiredToken() {
	r := rules.New(rules.Defaults()...)
	expired := "ExpiredTokenException: The security token included in the request is expired"
	for _, f := range []reflection.Failure{
		{Error: expired, Attempt: 0},
		{Error: expired, Attempt: 1},
		{Error: "oauth2: cannot fetch token: 400 Bad Request Response: {\"error\": \"invalid_grant\", \"error_description\": \"Token has been expired or revoked.\"}"},
	} {
		a, _ := r.Analyze(context.Background(), f)
		fmt.Println(f.Attempt, a.IsRecoverable, a.Context)
	}
	// Output:
	// 0 true rules: expired-token
	// 1 false rules: expired-token
	// 0 false rules: credentials-rejected
}

// A wait stated only in the text is read in the units it states; one stated
// in words is read as the most a reader would take it for, so a wait of
// minutes is never an immediate retry (the Driver ends the call when the
// hint is over its WithMaxRetryAfter cap). A spent quota is not a rate
// limit, whatever delay it mentions.
func Example_waitsInTheText() {
	r := rules.New(rules.Defaults()...)
	for _, text := range []string{
		"Rate limit reached for gpt-4 in organization org-x on tokens per min (TPM): Limit 10000, Used 9800, Requested 420. Please try again in 420ms.",
		"Requests to the ChatCompletions_Create Operation have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds.",
		"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		"You have made too many API requests in the last 5 minutes. Future API requests may be ignored until your rate limit resets in 5 minutes.",
		"You exceeded your current quota, please check your plan and billing details. Please retry in 36.6s.",
	} {
		a, _ := r.Analyze(context.Background(), reflection.Failure{Error: text})
		fmt.Println(a.IsRecoverable, a.RetryAfter, a.Context)
	}
	// Output:
	// true 420ms rules: rate-limit
	// true 2s rules: rate-limit
	// true 3m0s rules: rate-limit
	// true 5m0s rules: rate-limit
	// false 0s rules: quota
}
