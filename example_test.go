package reflection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
