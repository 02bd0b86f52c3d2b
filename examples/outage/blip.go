package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// blipFailures is how many requests in a row the blip fails: as many as the
// default breaker's threshold, and fewer than the backoff's four
// dispatches.
const blipFailures = reflection.DefaultBreakerThreshold

// blipResult is how one lone call through a blip ended.
type blipResult struct {
	outcome  reflection.Outcome
	reason   reflection.Reason
	requests int                     // requests that reached the service
	breaker  reflection.BreakerState // the tool's breaker after the call
}

// blip plays one agent alone, with the recommended set-up's breaker and
// budget (NewHealth(0, 0): three failing calls open it for 60s), through a
// blip: the service fails the call's first three requests and answers the
// fourth. A breaker counts failing calls, not failing requests, so the
// call's own retries do not open it: the call succeeds and the breaker
// stays closed for the other agents.
func blip() (blipResult, error) {
	health := reflection.NewHealth(0, 0)
	driver := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(baseDelay)),
		reflection.WithRetryBudget(reflection.NewRetryBudget(budgetCapacity)),
		reflection.WithHealth(health),
	)
	var requests atomic.Int64
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if requests.Add(1) <= blipFailures {
			return reflection.ToolResult{}, errors.New("inventory service: 503 Service Unavailable")
		}
		return reflection.ToolResult{ID: call.ID, Content: "12 in stock"}, nil
	}
	call := reflection.ToolCall{ID: "lone_call", Name: "get_stock", Input: []byte(`{"sku":"A-1042"}`)}
	rep, err := driver.RunWithReport(context.Background(), call, dispatch)
	if err != nil {
		return blipResult{}, err
	}
	return blipResult{outcome: rep.Outcome, reason: rep.Reason, requests: int(requests.Load()), breaker: health.State(call.Name)}, nil
}
