package reflection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

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
