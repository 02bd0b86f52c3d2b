// Command approval shows a human in the loop: a tool call fails on a
// permission error, a rule-based Reflector proposes a fix, and the Driver asks
// on the terminal whether to retry with it. Typing y retries the call with
// the fix; anything else declines, and the words typed go to the model.
//
// Run it with: go run ./examples/approval
//
// The file system is simulated (only /tmp is writable), so the program
// touches nothing on the machine. It exits 0 when the write succeeded, 1 when
// the call ended with a soft error for the model (declined, or no answer),
// and 2 when it was stopped (Ctrl-C).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"strings"

	"github.com/loopctl-go/reflection"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Stdin, os.Stdout)
	stop()
	os.Exit(code)
}

// run plays one tool call of an agent through a Driver that asks on in and
// out, and returns the exit code.
func run(ctx context.Context, in io.Reader, out io.Writer) int {
	disk := newDisk("/tmp/")
	driver := reflection.NewDriver(
		reflection.WithReflector(permissionReflector{writable: disk.writable}),
		// The stock strategy asks a human about a severe failure that comes
		// with a correction, and retries other recoverable ones.
		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
		reflection.WithAsker(reflection.NewTerminalAsker(in, out)),
	)
	call := reflection.ToolCall{
		ID:    "call_1",
		Name:  "write_file",
		Input: json.RawMessage(`{"path":"/etc/report.txt","text":"all systems go"}`),
	}
	fmt.Fprintf(out, "The agent calls %s %s\n", call.Name, call.Input)

	rep, err := driver.RunWithReport(ctx, call, disk.dispatch)

	fmt.Fprintln(out)
	for i, a := range rep.Attempts {
		fmt.Fprintf(out, "attempt %d: %s %s", i, a.Call.Name, a.Call.Input)
		if !a.Failed {
			fmt.Fprintln(out, " -> ok")
			continue
		}
		fmt.Fprintf(out, " -> %s\n", a.Failure)
		if a.Ask != nil && a.Ask.Answer != nil {
			fmt.Fprintf(out, "  asked a human: approved=%v\n", a.Ask.Answer.Approve)
		}
	}
	switch {
	case err != nil:
		fmt.Fprintln(out, "stopped:", err)
		return 2
	case rep.Result.IsError:
		fmt.Fprintf(out, "The model is told (%s):\n%s\n", rep.Outcome, indent(rep.Result.Content))
		return 1
	}
	fmt.Fprintf(out, "The model is told: %s\n", rep.Result.Content)
	return 0
}

// indent indents every line of text that is not empty by two spaces.
func indent(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}

// disk is a simulated file system in which only some directories are
// writable.
type disk struct {
	writableDirs []string
	files        map[string]string
}

func newDisk(writableDirs ...string) *disk {
	return &disk{writableDirs: writableDirs, files: map[string]string{}}
}

func (d *disk) writable(p string) bool {
	for _, dir := range d.writableDirs {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// fileWrite is the input of the write_file tool.
type fileWrite struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// dispatch plays the host framework's dispatch: it runs write_file.
func (d *disk) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	if call.Name != "write_file" {
		return reflection.ToolResult{Content: "unknown tool " + call.Name, IsError: true}, nil
	}
	var in fileWrite
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return reflection.ToolResult{}, fmt.Errorf("write_file: bad input: %w", err)
	}
	if !d.writable(in.Path) {
		return reflection.ToolResult{Content: "open " + in.Path + ": permission denied", IsError: true}, nil
	}
	d.files[in.Path] = in.Text
	return reflection.ToolResult{Content: fmt.Sprintf("wrote %d bytes to %s", len(in.Text), in.Path)}, nil
}

// permissionReflector analyses failures by their text: a write that was
// denied can go to a writable directory instead. Moving a file somewhere
// else is the user's call, so the analysis is severe: the stock strategy
// asks before retrying.
type permissionReflector struct {
	writable func(path string) bool
}

func (r permissionReflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}
	if f.Tool != "write_file" || !strings.HasSuffix(f.Error, ": permission denied") {
		return a, nil
	}
	var in fileWrite
	if err := json.Unmarshal(f.Input, &in); err != nil {
		return a, nil
	}
	moved := in
	moved.Path = "/tmp/" + path.Base(in.Path)
	if !r.writable(moved.Path) {
		return a, nil
	}
	fixed, err := json.Marshal(moved)
	if err != nil {
		return a, nil
	}
	a.IsRecoverable = true
	a.Severity = reflection.SeverityHigh
	a.RootCause = "no write permission in " + path.Dir(in.Path)
	a.Correction = &reflection.Correction{
		Type:          reflection.InputFix,
		Description:   "write to " + moved.Path + " instead",
		ModifiedInput: fixed,
	}
	return a, nil
}
