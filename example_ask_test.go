package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// writeReport is the host's dispatch in these examples: a write_file tool
// that may write only under /tmp.
func writeReport(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	var in struct{ Path string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return reflection.ToolResult{}, err
	}
	if !strings.HasPrefix(in.Path, "/tmp/") {
		return reflection.ToolResult{Content: "open " + in.Path + ": permission denied", IsError: true}, nil
	}
	return reflection.ToolResult{Content: "wrote " + in.Path}, nil
}

// moveToTmp is a rule-based Reflector: a write that was denied can go to
// /tmp instead, which is severe enough for the stock strategy to ask a human.
var moveToTmp = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if !strings.HasSuffix(f.Error, "permission denied") {
		return reflection.FailureAnalysis{RootCause: f.Error}, nil
	}
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "no write permission there",
		Severity:      reflection.SeverityHigh,
		Correction: &reflection.Correction{
			Type:          reflection.InputFix,
			Description:   "write under /tmp",
			ModifiedInput: json.RawMessage(`{"path":"/tmp/report.txt"}`),
		},
	}, nil
})

// The terminal asker shows the failure and the proposed fix, and reads the
// human's answer: "y" retries the call with the fix.
func ExampleNewTerminalAsker() {
	// os.Stdin in a real program; the tee echoes the answer as a terminal would.
	human := io.TeeReader(strings.NewReader("y\n"), os.Stdout)
	d := reflection.NewDriver(
		reflection.WithReflector(moveToTmp),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithAsker(reflection.NewTerminalAsker(human, os.Stdout)),
	)
	call := reflection.ToolCall{ID: "call_1", Name: "write_file", Input: json.RawMessage(`{"path":"/etc/report.txt"}`)}

	res, err := d.Run(context.Background(), call, writeReport)
	fmt.Printf("%s error=%v isError=%v\n", res.Content, err, res.IsError)
	// Output:
	// A tool call failed and needs your decision.
	//   tool:        write_file
	//   input:       {"path":"/etc/report.txt"}
	//   failure:     open /etc/report.txt: permission denied
	//   dispatches:  1 so far
	//   root cause:  no write permission there
	//   correction:  input_fix: write under /tmp
	//   new input:   {"path":"/tmp/report.txt"}
	//   high-severity failure with correction available: no write permission there
	// Retry the call? [y/N] (anything else is passed to the model): y
	// wrote /tmp/report.txt error=<nil> isError=false
}

// An Asker can be any code that reaches a human: a chat message, a ticket,
// an approval queue. This one approves moves to /tmp and declines the rest
// with a word for the model.
func ExampleWithAsker() {
	approveTmp := reflection.AskerFunc(func(_ context.Context, q reflection.Question) (reflection.Answer, error) {
		fmt.Printf("asked about %s: %s\n", q.Call.Name, q.Failure.Error)
		if c := q.Analysis.Correction; c != nil && strings.Contains(string(c.ModifiedInput), `"/tmp/`) {
			return reflection.Answer{Approve: true}, nil
		}
		return reflection.Answer{Reply: "only /tmp is allowed"}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(moveToTmp),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithAsker(approveTmp),
	)
	call := reflection.ToolCall{ID: "call_1", Name: "write_file", Input: json.RawMessage(`{"path":"/etc/report.txt"}`)}

	rep, err := d.RunWithReport(context.Background(), call, writeReport)
	fmt.Printf("%s: %s (error=%v)\n", rep.Outcome, rep.Result.Content, err)
	for i, a := range rep.Attempts {
		if a.Ask != nil {
			fmt.Printf("attempt %d: asked %q, approved=%v\n", i, a.Ask.Prompt, a.Ask.Answer.Approve)
		}
	}
	// Output:
	// asked about write_file: open /etc/report.txt: permission denied
	// succeeded: wrote /tmp/report.txt (error=<nil>)
	// attempt 0: asked "high-severity failure with correction available: no write permission there", approved=true
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

func (e rateLimited) Error() string             { return "429 Too Many Requests" }
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
