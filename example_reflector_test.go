package reflection_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// Chain asks cheap reflectors first; NewCache saves a second analysis of the
// same failure.
func ExampleChain() {
	timeouts := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		if !strings.Contains(f.Error, "timeout") {
			return reflection.FailureAnalysis{}, reflection.ErrSkipped
		}
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "timeout"}, nil
	})
	asked := 0
	expensive := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		asked++
		return reflection.FailureAnalysis{RootCause: "needs a closer look"}, nil
	})
	r := reflection.Chain(timeouts, reflection.NewCache(expensive, 100, time.Hour))
	for _, text := range []string{"read timeout", "bad request", "bad request"} {
		a, _ := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Error: text})
		fmt.Println(text+":", a.RootCause)
	}
	fmt.Println("expensive analyses:", asked)
	// Output:
	// read timeout: timeout
	// bad request: needs a closer look
	// bad request: needs a closer look
	// expensive analyses: 1
}

func ExampleNoopReflector() {
	a, err := reflection.NoopReflector{}.Analyze(context.Background(), reflection.Failure{
		Error: "connection refused", Tool: "fetch", Attempt: 0, MaxAttempts: 6,
	})
	fmt.Printf("recoverable=%v severity=%v root cause=%q correction=%v err=%v\n",
		a.IsRecoverable, a.Severity, a.RootCause, a.Correction, err)
	// Output:
	// recoverable=false severity=medium root cause="connection refused" correction=<nil> err=<nil>
}
