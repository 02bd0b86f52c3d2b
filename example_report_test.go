package reflection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopctl-go/reflection"
)

// An Observer traces each step of the loop without parsing logs.
func ExampleWithObserver() {
	trace := reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, call reflection.ToolCall) {
			fmt.Printf("attempt %d: %s %s\n", attempt+1, call.Name, call.Input)
		},
		DispatchDone: func(_ context.Context, attempt int, res reflection.ToolResult, err error) {
			fmt.Printf("  result: %q error=%v\n", res.Content, res.IsError)
		},
		Decided: func(_ context.Context, attempt int, action reflection.RecoveryAction) {
			fmt.Printf("  decision: %v\n", action)
		},
		Corrected: func(_ context.Context, attempt int, c reflection.Correction, applied bool, why string) {
			fmt.Printf("  correction %s applied=%v\n", c.Type, applied)
		},
		Finished: func(_ context.Context, calls int, res reflection.ToolResult, err error) {
			fmt.Printf("finished after %d calls: %q\n", calls, res.Content)
		},
	}
	deprecated := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow,
			Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "search_v2"},
		}, nil
	})
	d := reflection.NewDriver(
		reflection.WithReflector(deprecated),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{}
		})),
		reflection.WithObserver(trace),
	)
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if call.Name == "search" {
			return reflection.ToolResult{Content: "search is deprecated", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "3 hits"}, nil
	}
	_, _ = d.Run(context.Background(), reflection.ToolCall{ID: "c1", Name: "search", Input: json.RawMessage(`{"q":"go"}`)}, dispatch)
	// Output:
	// attempt 1: search {"q":"go"}
	//   result: "search is deprecated" error=true
	//   decision: retry after 0s
	//   correction tool_change applied=true
	// attempt 2: search_v2 {"q":"go"}
	//   result: "3 hits" error=false
	// finished after 2 calls: "3 hits"
}

// RunWithReport returns what Run returns, plus a record of every attempt.
func ExampleDriver_RunWithReport() {
	calls := 0
	flaky := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if calls++; calls == 1 {
			return reflection.ToolResult{Content: "503 Service Unavailable", IsError: true}, nil
		}
		return reflection.ToolResult{Content: "42 results"}, nil
	}
	d := reflection.NewDriver(
		reflection.WithReflector(reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the service is busy"}, nil
		})),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(time.Millisecond)),
	)
	rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{ID: "c", Name: "search"}, flaky)
	fmt.Println(rep.Outcome, rep.Result.Content, err)
	for i, a := range rep.Attempts {
		fmt.Printf("attempt %d: failed=%v action=%v\n", i, a.Failed, a.Action)
	}
	// Output:
	// succeeded 42 results <nil>
	// attempt 0: failed=true action=retry after 1ms
	// attempt 1: failed=false action=<nil>
}

// A redactor scrubs what the Driver logs; RedactSecrets knows the common
// shapes of secrets.
func ExampleRedactSecrets() {
	fmt.Println(reflection.RedactSecrets(`401: invalid api key sk-proj-abcdefghijklmnopqrstuvwx in {"password":"hunter2"}`))
	// Output:
	// 401: invalid api key [REDACTED] in {"password":"[REDACTED]"}
}

// With notes on, the model learns which call really produced a result.
func ExampleWithRecoveryNotes() {
	d := reflection.NewDriver(
		reflection.WithRecoveryNotes(),
		reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
				Type: reflection.ToolChange, AlternativeTool: "search_v2"}}, nil
		})),
		reflection.WithStrategy(reflection.NewExponentialBackoff(1).WithBaseDelay(0)),
	)
	res, _ := d.Run(context.Background(), reflection.ToolCall{Name: "search", Input: json.RawMessage(`{"q":"go"}`)},
		func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			if call.Name == "search" {
				return reflection.ToolResult{Content: "search is deprecated", IsError: true}, nil
			}
			return reflection.ToolResult{Content: "3 hits"}, nil
		})
	fmt.Println(res.Content)
	// Output:
	// 3 hits
	//
	// Recovery note: this result came from tool "search_v2" called with input {"q":"go"}, not from the call as it was first made.
}
