package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// The scenario. Each agent makes a call every interval (or as soon as its
// previous call ends, when that is later), whatever came of the one before,
// so both runs meet the outage with the same calls.
const (
	agents    = 200                    // goroutines, each an agent that makes its calls one after another
	callsEach = 8                      // calls per agent
	interval  = 50 * time.Millisecond  // from one call of an agent to its next
	latency   = 2 * time.Millisecond   // what a request to the service takes
	downFrom  = 100 * time.Millisecond // the service goes down,
	downUntil = 300 * time.Millisecond // and comes back
	baseDelay = 5 * time.Millisecond   // the backoff's first wait: 5ms, then 10ms and 20ms
)

// result is what one run of the scenario did.
type result struct {
	name           string
	calls          int           // calls made
	callsWhileDown int           // calls made while the service was down
	succeeded      int           // calls that got a result
	breaker        int           // calls the circuit breaker ended (ReasonCircuitOpen)
	budget         int           // calls the retry budget ended (ReasonBudgetExhausted)
	failed         int           // calls that failed otherwise: their retries ran out
	refusedBack    int           // calls the breaker or the budget ended once the service was back
	lastSucceeded  int           // agents whose last call succeeded
	requests       int           // dispatches that reached the service
	whileDown      int           // those that reached it while it was down
	callTime       time.Duration // the time spent in calls, all calls together
	took           time.Duration // from the start of the run to the end of its last call
}

// perCall is the requests that reached the service per call made: the load
// amplification.
func (r result) perCall() float64 { return ratio(r.requests, r.calls) }

// perCallWhileDown is the requests that reached the service while it was
// down, per call made while it was down.
func (r result) perCallWhileDown() float64 { return ratio(r.whileDown, r.callsWhileDown) }

// meanCall is the time a call took, on average.
func (r result) meanCall() time.Duration {
	if r.calls == 0 {
		return 0
	}
	return r.callTime / time.Duration(r.calls)
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// simulate plays the scenario once against a fresh service, with a Driver
// shared by every agent: the stock rules, the backoff, and opts.
func simulate(name string, opts ...reflection.Option) (result, error) {
	var (
		succeeded, breaker, budget, failed atomic.Int64
		callsWhileDown, lastSucceeded      atomic.Int64
		refusedBack                        atomic.Int64
		callTime                           atomic.Int64 // nanoseconds
		errOnce                            sync.Once
		firstErr                           error
	)
	svc := newService(downFrom, downUntil, latency)
	ended := func(_ context.Context, end reflection.CallEnd) {
		switch {
		case end.Outcome == reflection.OutcomeSucceeded:
			succeeded.Add(1)
			return
		case end.Reason == reflection.ReasonCircuitOpen:
			breaker.Add(1)
		case end.Reason == reflection.ReasonBudgetExhausted:
			budget.Add(1)
		default:
			failed.Add(1)
			return
		}
		if svc.back() { // refused, though the service is healthy again
			refusedBack.Add(1)
		}
	}
	driver := reflection.NewDriver(append([]reflection.Option{
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(baseDelay)),
		reflection.WithObserver(reflection.Observer{Ended: ended}),
	}, opts...)...)

	var wg sync.WaitGroup
	for a := range agents {
		wg.Go(func() {
			first := svc.start.Add(time.Duration(a) * interval / agents) // the agents start spread over one interval
			for i := range callsEach {
				time.Sleep(time.Until(first.Add(time.Duration(i) * interval)))
				began := time.Now()
				if svc.down() {
					callsWhileDown.Add(1)
				}
				call := reflection.ToolCall{
					ID:    fmt.Sprintf("agent%d_call%d", a, i),
					Name:  "get_stock",
					Input: []byte(`{"sku":"A-1042"}`),
				}
				res, err := driver.Run(context.Background(), call, svc.dispatch)
				callTime.Add(int64(time.Since(began)))
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("%s: %s: %w", name, call.ID, err) })
					return
				}
				if i == callsEach-1 && !res.IsError {
					lastSucceeded.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return result{}, firstErr
	}
	return result{
		name:           name,
		calls:          agents * callsEach,
		callsWhileDown: int(callsWhileDown.Load()),
		succeeded:      int(succeeded.Load()),
		breaker:        int(breaker.Load()),
		budget:         int(budget.Load()),
		failed:         int(failed.Load()),
		refusedBack:    int(refusedBack.Load()),
		lastSucceeded:  int(lastSucceeded.Load()),
		requests:       int(svc.dispatches.Load()),
		whileDown:      int(svc.whileDown.Load()),
		callTime:       time.Duration(callTime.Load()),
		took:           time.Since(svc.start),
	}, nil
}
