package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

func ExampleExponentialBackoff() {
	b := reflection.NewExponentialBackoff(3)
	var ds []string
	for n := range 10 {
		ds = append(ds, b.DelayFor(n).String())
	}
	fmt.Println(strings.Join(ds, " "))

	ctx := context.Background()
	transient := reflection.FailureAnalysis{IsRecoverable: true, RootCause: "timed out", Severity: reflection.SeverityLow}
	fmt.Println(b.Decide(ctx, transient, 0, 6))
	fmt.Println(b.Decide(ctx, transient, 2, 6))
	fmt.Println(b.Decide(ctx, transient, 3, 6))

	hopeless := reflection.FailureAnalysis{IsRecoverable: false, RootCause: "no such tool"}
	fmt.Println(b.Decide(ctx, hopeless, 0, 6))

	severe := reflection.FailureAnalysis{
		IsRecoverable: true, RootCause: "permission denied", Severity: reflection.SeverityHigh,
		Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "run as admin"},
	}
	fmt.Println(b.Decide(ctx, severe, 0, 6))
	// Output:
	// 100ms 200ms 400ms 800ms 1.6s 3.2s 6.4s 12.8s 25.6s 30s
	// retry after 100ms
	// retry after 400ms
	// fail: max retries (3) exceeded
	// fail: no such tool
	// ask user: high-severity failure with correction available: permission denied
}

func ExampleExponentialBackoff_WithMaxDelay() {
	b := reflection.NewExponentialBackoff(5).WithBaseDelay(time.Second).WithMaxDelay(5 * time.Second)
	var ds []string
	for n := range 5 {
		ds = append(ds, b.DelayFor(n).String())
	}
	fmt.Println(strings.Join(ds, " "))
	// Output:
	// 1s 2s 4s 5s 5s
}

// ParseRetryAfter reads both forms of a Retry-After header: seconds, and an
// HTTP date measured from now.
func ExampleParseRetryAfter() {
	now := time.Date(2026, time.March, 5, 12, 0, 0, 0, time.UTC)
	for _, value := range []string{
		"120",
		"Thu, 05 Mar 2026 12:00:30 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT", // in the past: retry now
		"soon",
	} {
		d, ok := reflection.ParseRetryAfter(value, now)
		fmt.Printf("%-30s %v %v\n", value, d, ok)
	}
	// Output:
	// 120                            2m0s true
	// Thu, 05 Mar 2026 12:00:30 GMT  30s true
	// Sun, 06 Nov 1994 08:49:37 GMT  0s true
	// soon                           0s false
}

// rateLimited is a service's 429 with its Retry-After hint.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string { return "429 Too Many Requests" }

func (e rateLimited) RetryAfter() time.Duration { return e.after }

// A service that asks to wait longer than the cap is not called again: the
// retry becomes Fail and the model hears about the failure at once.
func ExampleWithMaxRetryAfter() {
	flaky := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "rate limited"}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(flaky),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithMaxRetryAfter(10*time.Second),
	)
	calls := 0
	dispatch := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		h, _ := reflection.ParseRetryAfter("3600", time.Now()) // the 429's header
		return reflection.ToolResult{}, fmt.Errorf("weather api: %w", rateLimited{after: h})
	}

	rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{ID: "call_1", Name: "get_weather"}, dispatch)
	fmt.Println(rep.Outcome, calls, err)
	fmt.Println(rep.Attempts[0].Action)
	// Output:
	// failed 1 <nil>
	// fail: the service asks to wait 1h0m0s before a retry, more than the cap of 10s
}

// A tool that hangs is cut short after the attempt timeout and retried; the
// Reflector sees the timeout as the failure.
func ExampleWithAttemptTimeout() {
	calls := 0
	dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		if calls == 1 {
			<-ctx.Done() // the first call hangs until its own deadline
			return reflection.ToolResult{}, ctx.Err()
		}
		return reflection.ToolResult{Content: "Lisbon: 19°C"}, nil
	}
	retryTimeouts := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		fmt.Println("failure:", f.Error, errors.Is(f.Err, context.DeadlineExceeded))
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "slow backend"}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(retryTimeouts),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithAttemptTimeout(20*time.Millisecond),
	)

	res, err := d.Run(context.Background(), reflection.ToolCall{ID: "call_1", Name: "get_weather"}, dispatch)
	fmt.Println(res.Content, err, calls)
	// Output:
	// failure: tool "get_weather" timed out after 20ms true
	// Lisbon: 19°C <nil> 2
}

// Jitter spreads retries so that agents failing together do not retry in
// lock step. A seeded source makes the draws reproducible; DelayFor stays
// exact.
func ExampleExponentialBackoff_WithJitter() {
	b := reflection.NewExponentialBackoff(3).
		WithJitter(0.5). // each delay is drawn from [d/2, d]
		WithRandSource(rand.NewPCG(1, 2))
	a := reflection.FailureAnalysis{IsRecoverable: true}
	for attempt := range 3 {
		fmt.Printf("attempt %d: DelayFor %v, Decide %v\n", attempt, b.DelayFor(attempt), b.Decide(context.Background(), a, attempt, 6))
	}
	// Output:
	// attempt 0: DelayFor 100ms, Decide retry after 61.531336ms
	// attempt 1: DelayFor 200ms, Decide retry after 138.356378ms
	// attempt 2: DelayFor 400ms, Decide retry after 243.114399ms
}
