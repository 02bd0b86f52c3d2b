// Command outage shows what a circuit breaker and a retry budget do for a
// service that goes down. Many agents call one tool at the same time, one
// call after another; the service behind the tool goes down for a while in
// the middle of the run and comes back. The program plays that three times:
//
//   - with the stock rules and NewExponentialBackoff(3) only: each call that
//     meets the outage is retried up to three times, so the failing service
//     gets up to four requests for every call made while it is down;
//   - with WithRetryBudget added, one RetryBudget shared by every call: once
//     the failures have spent it, a call that fails is not retried;
//   - with WithHealth too, one Health shared by every call: once three
//     calls in a row have failed (a call counts once, however often it
//     retried), the breaker refuses the calls without running the tool,
//     lets one probe through now and then, and closes when a probe
//     succeeds.
//
// For each it prints how the calls ended, how many of the refused calls
// ended once the service was back, the requests that reached the service
// per call (the load the agents put on it: over the whole run, and while it
// was down), the time a call took on average, and how long the run took.
//
// Last, it plays one agent alone, with the breaker and the budget as the
// recommended set-up makes them (NewHealth(0, 0) stays open for 60s),
// through a blip that fails its call's first three requests: the call
// succeeds on its fourth, and the breaker stays closed, since the call's
// own retries count once.
//
// The clock is real, but every duration is small (a backoff that starts at
// 5ms, an outage of 200ms), so the program runs in about a second. The
// numbers vary a little from run to run, and more on a busy machine: the
// agents race. Its test plays the same runs in virtual time.
//
// Run it with: go run ./examples/outage
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loopctl-go/reflection"
)

// The safety options.
const (
	breakerThreshold = 3                     // failures in a row that open the breaker
	breakerOpenFor   = 20 * time.Millisecond // how long it stays open before it lets a probe through
	budgetCapacity   = 0                     // the AWS SDKs' quota: 500 tokens, 5 a retry
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "outage:", err)
		os.Exit(1)
	}
}

// run plays the outage without and with the safety options, and prints a
// table of the runs.
func run(w io.Writer) error {
	plain, budgeted, guarded, err := compare()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d agents × %d calls of get_stock, one every %v; the service is down from %v to %v\n\n",
		agents, callsEach, interval, downFrom, downUntil)
	printTable(w, plain, budgeted, guarded)
	fmt.Fprintf(w, "\nwhile the service was down, a call sent it %.2f requests with the backoff only,\n"+
		"%.2f with the budget, %.2f with the budget and the breaker\n",
		plain.perCallWhileDown(), budgeted.perCallWhileDown(), guarded.perCallWhileDown())
	fmt.Fprintf(w, "after the outage, the agents' last calls succeeded: %d, %d and %d of %d\n",
		plain.lastSucceeded, budgeted.lastSucceeded, guarded.lastSucceeded, agents)
	b, err := blip()
	if err != nil {
		return err
	}
	reason := ""
	if b.reason != "" {
		reason = " (" + string(b.reason) + ")"
	}
	fmt.Fprintf(w, "\none agent alone, through a blip that fails its first %d requests: the call %s%s after %d requests; the breaker is %s\n",
		blipFailures, b.outcome, reason, b.requests, b.breaker)
	return nil
}

// compare plays the scenario with the backoff only, then with a retry
// budget, then with a retry budget and a circuit breaker.
func compare() (plain, budgeted, guarded result, err error) {
	plain, err = simulate("backoff only")
	if err != nil {
		return plain, budgeted, guarded, err
	}
	budgeted, err = simulate("+ WithRetryBudget",
		reflection.WithRetryBudget(reflection.NewRetryBudget(budgetCapacity)),
	)
	if err != nil {
		return plain, budgeted, guarded, err
	}
	guarded, err = simulate("+ WithRetryBudget + WithHealth",
		reflection.WithRetryBudget(reflection.NewRetryBudget(budgetCapacity)),
		reflection.WithHealth(reflection.NewHealth(breakerThreshold, breakerOpenFor)),
	)
	return plain, budgeted, guarded, err
}

// printTable prints the results, one row each, and what the columns mean.
func printTable(w io.Writer, rows ...result) {
	const (
		head = "%-30s %6s %10s %7s %7s %8s %8s %9s %9s %11s %10s %6s\n"
		row  = "%-30s %6d %10d %7d %7d %8d %8d %9d %9.2f %11.2f %8.1fms %6v\n"
	)
	fmt.Fprintf(w, head, "", "calls", "succeeded", "failed", "budget", "breaker", "back",
		"requests", "per call", "while down", "mean call", "took")
	for _, r := range rows {
		fmt.Fprintf(w, row, r.name, r.calls, r.succeeded, r.failed, r.budget, r.breaker, r.refusedBack,
			r.requests, r.perCall(), r.perCallWhileDown(),
			float64(r.meanCall())/float64(time.Millisecond), r.took.Round(time.Millisecond))
	}
	fmt.Fprint(w, `
succeeded: the calls that got a result; failed: the calls whose three retries failed too; budget,
breaker: the calls that the retry budget or the circuit breaker ended early, handing the failure to
the model; back: those of them that ended once the service was back. requests: what reached the service; per call: requests / calls; while down: the same,
counting only what was sent and called while the service was down; mean call: the time a call took.
`)
}
