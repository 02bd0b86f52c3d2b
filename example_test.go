package reflection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// A rule-based Reflector fixes a wrong path; the Driver retries with the
// corrected input and the model gets the file.
func ExampleDriver_Run() {
	files := map[string]string{"/home/ada/notes.txt": "buy milk"}

	// The host's own dispatch: here a single read_file tool.
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		var in struct{ Path string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return reflection.ToolResult{Content: "bad input: " + err.Error(), IsError: true}, nil
		}
		body, ok := files[in.Path]
		if !ok {
			return reflection.ToolResult{Content: "no such file: " + in.Path, IsError: true}, nil
		}
		return reflection.ToolResult{Content: body}, nil
	}

	// A rule: relative paths live in the user's home.
	fixPaths := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityLow}
		if rel, ok := strings.CutPrefix(f.Error, "no such file: "); ok && !strings.HasPrefix(rel, "/") {
			fixed, _ := json.Marshal(map[string]string{"path": "/home/ada/" + rel})
			a.IsRecoverable = true
			a.Correction = &reflection.Correction{Type: reflection.InputFix, Description: "make the path absolute", ModifiedInput: fixed}
		}
		return a, nil
	})

	d := reflection.NewDriver(
		reflection.WithReflector(fixPaths),
		// Retry at once: a fixed input needs no backoff.
		reflection.WithStrategy(reflection.NewExponentialBackoff(2).WithBaseDelay(0)),
	)

	call := reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"notes.txt"}`)}
	res, err := d.Run(context.Background(), call, dispatch)
	fmt.Printf("%s %q error=%v isError=%v\n", res.ID, res.Content, err, res.IsError)

	call = reflection.ToolCall{ID: "call_2", Name: "read_file", Input: json.RawMessage(`{"path":"/etc/shadow"}`)}
	res, err = d.Run(context.Background(), call, dispatch)
	fmt.Printf("%s %q error=%v isError=%v\n", res.ID, res.Content, err, res.IsError)
	// Output:
	// call_1 "buy milk" error=<nil> isError=false
	// call_2 "no such file: /etc/shadow" error=<nil> isError=true
}

// The stock defaults never retry: NoopReflector calls every failure
// unrecoverable.
func ExampleNewDriver() {
	calls := 0
	dispatch := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		return reflection.ToolResult{Content: "timed out", IsError: true}, nil
	}
	res, err := reflection.NewDriver().Run(context.Background(), reflection.ToolCall{ID: "c1", Name: "fetch"}, dispatch)
	fmt.Println(calls, res.Content, res.IsError, err)
	// Output:
	// 1 timed out true <nil>
}

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

func ExampleNoopReflector() {
	a, err := reflection.NoopReflector{}.Analyze(context.Background(), reflection.Failure{
		Error: "connection refused", Tool: "fetch", Attempt: 0, MaxAttempts: 6,
	})
	fmt.Printf("recoverable=%v severity=%v root cause=%q correction=%v err=%v\n",
		a.IsRecoverable, a.Severity, a.RootCause, a.Correction, err)
	// Output:
	// recoverable=false severity=medium root cause="connection refused" correction=<nil> err=<nil>
}

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

// The agent's task travels in the context to the Reflector.
func ExampleContextWithTask() {
	show := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		fmt.Printf("task %q, attempt %d of %d\n", f.Task, f.Attempt+1, f.MaxAttempts)
		return reflection.FailureAnalysis{RootCause: f.Error}, nil
	})
	ctx := reflection.ContextWithTask(context.Background(), "summarise the release notes")
	_, _ = reflection.NewDriver(reflection.WithReflector(show)).Run(ctx, reflection.ToolCall{ID: "c1", Name: "fetch"},
		func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "404", IsError: true}, nil
		})
	// Output:
	// task "summarise the release notes", attempt 1 of 6
}
