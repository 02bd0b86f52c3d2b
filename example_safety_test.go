package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loopctl-go/reflection"
)

// chargeCard takes the money and then, the first time, times out before it
// can say so: the failure that makes a blind retry charge twice.
type chargeCard struct{ charges, timeouts int }

func (c *chargeCard) Dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	c.charges++
	if c.timeouts > 0 {
		c.timeouts--
		return reflection.ToolResult{}, fmt.Errorf("payments: %w", context.DeadlineExceeded)
	}
	return reflection.ToolResult{ID: call.ID, Content: "charged"}, nil
}

// retryAll calls every failure recoverable.
var retryAll = reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "transient", Severity: reflection.SeverityLow}, nil
})

// The effect guard: a tool that is not idempotent and may have acted is
// not retried blindly. Without an Asker the call ends with a text the model
// reads, and the card is charged once.
func ExampleWithEffects() {
	card := &chargeCard{timeouts: 1}
	driver := reflection.NewDriver(
		reflection.WithReflector(retryAll),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
		reflection.WithEffects(func(tool string) reflection.Effect {
			if tool == "charge_card" {
				return reflection.EffectNonIdempotent
			}
			return reflection.EffectReadOnly
		}),
	)
	rep, _ := driver.RunWithReport(context.Background(),
		reflection.ToolCall{ID: "call-1", Name: "charge_card", Input: []byte(`{"amount":500}`)}, card.Dispatch)
	fmt.Println(rep.Outcome, rep.Reason, "charges:", card.charges)
	// Output: asked_user ambiguous_effect charges: 1
}

// A model that reads that soft error may issue the same call again, with a
// new ID. The Driver remembers the first call (WithEffects has a memory of
// its own; ContextWithEffectMemory gives each session one), so the re-issue
// is not dispatched either.
func ExampleEffectMemory() {
	card := &chargeCard{timeouts: 1}
	session := reflection.NewEffectMemory(time.Hour)
	ctx := reflection.ContextWithEffectMemory(context.Background(), session)
	driver := reflection.NewDriver(
		reflection.WithReflector(retryAll),
		reflection.WithEffects(func(string) reflection.Effect { return reflection.EffectNonIdempotent }),
	)
	input := []byte(`{"amount":500,"card":"4242"}`)
	_, _ = driver.Run(ctx, reflection.ToolCall{ID: "call-1", Name: "charge_card", Input: input}, card.Dispatch)
	again, _ := driver.RunWithReport(ctx, reflection.ToolCall{ID: "call-2", Name: "charge_card", Input: input}, card.Dispatch)
	fmt.Println("remembered:", session.Len(), "charges:", card.charges, "reason:", again.Reason)
	// Output: remembered: 1 charges: 1 reason: ambiguous_effect
}

// A host that can look the effect up says so: the verifier finds the charge
// the timed-out attempt made, and the call ends succeeded with what it found.
func ExampleWithVerifier() {
	card := &chargeCard{timeouts: 1}
	ledger := func(_ context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
		if card.charges > 0 {
			return reflection.VerdictApplied, reflection.ToolResult{Content: "charged (found in the ledger)"}, nil
		}
		return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
	}
	driver := reflection.NewDriver(
		reflection.WithReflector(retryAll),
		reflection.WithEffects(func(string) reflection.Effect { return reflection.EffectNonIdempotent }),
		reflection.WithVerifier(ledger),
	)
	res, err := driver.Run(context.Background(),
		reflection.ToolCall{ID: "call-1", Name: "charge_card", Input: []byte(`{"amount":500}`)}, card.Dispatch)
	fmt.Println(res.Content, err, "charges:", card.charges)
	// Output: charged (found in the ledger) <nil> charges: 1
}

// A breaker counts failing calls: three calls that fail open it, and the
// next is refused without running, with the time to wait.
func ExampleHealth() {
	health := reflection.NewHealth(3, time.Minute)
	driver := reflection.NewDriver(reflection.WithHealth(health))
	down := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{}, errors.New("503 Service Unavailable")
	}
	for i := range 3 {
		_, _ = driver.Run(context.Background(), reflection.ToolCall{ID: fmt.Sprint(i), Name: "get_stock"}, down)
	}
	res, _ := driver.Run(context.Background(), reflection.ToolCall{ID: "3", Name: "get_stock"}, down)
	fmt.Println(health.State("get_stock"))
	fmt.Println(res.Content)
	// Output:
	// open
	// tool temporarily unavailable: circuit breaker open; retry in about 60s
}

// A retry budget shared by calls: when it is spent, a retry is refused and
// the model is told why.
func ExampleRetryBudget() {
	budget := reflection.NewRetryBudget(5) // one retry's worth
	driver := reflection.NewDriver(
		reflection.WithReflector(retryAll),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
		reflection.WithRetryBudget(budget),
	)
	down := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{}, errors.New("503 Service Unavailable")
	}
	rep, _ := driver.RunWithReport(context.Background(), reflection.ToolCall{ID: "1", Name: "get_stock"}, down)
	fmt.Println(len(rep.Attempts), "dispatches,", rep.Reason, "tokens left:", budget.Tokens())
	fmt.Println(rep.Result.Content)
	// Output:
	// 2 dispatches, budget_exhausted tokens left: 0
	// 503 Service Unavailable
	//
	// This call was not retried: the retry budget, which limits retries across calls, is spent. Try again later, or go on without this tool.
}
