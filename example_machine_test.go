package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// A Recovery is the loop without a runtime: it says what to do next, and is
// told what came of it. Here a hand-written runtime performs each step.
func ExampleRecovery() {
	d := reflection.NewDriver(reflection.WithStrategy(reflection.NewExponentialBackoff(3)))
	call := reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"notes.mdd"}`)}
	r := d.NewRecovery(context.Background(), call)
	for {
		switch step := r.Next().(type) {
		case reflection.DispatchStep:
			fmt.Printf("run %s %s\n", step.Call.Name, step.Call.Input)
			if strings.Contains(string(step.Call.Input), ".mdd") {
				r.Dispatched(reflection.ToolResult{}, errors.New("no such file"))
			} else {
				r.Dispatched(reflection.ToolResult{Content: "the notes"}, nil)
			}
		case reflection.AnalyzeStep:
			fmt.Printf("analyse %q\n", step.Failure.Error)
			r.Analyzed(reflection.FailureAnalysis{
				IsRecoverable: true, RootCause: "a typo in the extension",
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"notes.md"}`)},
			}, nil)
		case reflection.WaitStep:
			fmt.Printf("wait %v\n", step.Delay) // a real runtime sleeps here
			r.Waited()
		case reflection.DoneStep:
			fmt.Printf("done: %+v, %v (%s)\n", step.Result, step.Err, r.Outcome())
			return
		}
	}
	// Output:
	// run read_file {"path":"notes.mdd"}
	// analyse "no such file"
	// wait 100ms
	// run read_file {"path":"notes.md"}
	// done: {ID:call_1 Content:the notes IsError:false}, <nil> (succeeded)
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
