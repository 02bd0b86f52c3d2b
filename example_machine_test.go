package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
