package reflectiontest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
)

// Summary renders a Report as a few readable lines, for failure messages
// and golden files: the outcome, then one line per attempt.
func Summary(rep reflection.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "outcome %s after %d attempt(s)", rep.Outcome, len(rep.Attempts))
	if rep.Error != "" {
		fmt.Fprintf(&b, ": %s", rep.Error)
	}
	for i, a := range rep.Attempts {
		fmt.Fprintf(&b, "\n  %d. %s %s", i, a.Call.Name, a.Call.Input)
		if !a.Failed {
			b.WriteString(" -> ok")
			continue
		}
		fmt.Fprintf(&b, " -> %q", a.Failure)
		if a.ReflectorError != "" {
			fmt.Fprintf(&b, "; reflector error: %s", a.ReflectorError)
		}
		if a.Action != nil {
			fmt.Fprintf(&b, "; %v", a.Action)
		}
		for _, c := range a.Corrections {
			state := "applied"
			if !c.Applied {
				state = "dropped (" + c.Why + ")"
			}
			fmt.Fprintf(&b, "; %s %s", c.Correction.Type, state)
		}
	}
	return b.String()
}

// AssertOutcome reports an error to t, with the report's summary, unless
// rep ended with want. It returns whether it did.
func AssertOutcome(t testing.TB, rep reflection.Report, want reflection.Outcome) bool {
	t.Helper()
	if rep.Outcome != want {
		t.Errorf("outcome = %s, want %s\n%s", rep.Outcome, want, Summary(rep))
		return false
	}
	return true
}

// AssertCallNames reports an error to t unless tool received calls of
// exactly these tool names, in order. It returns whether it did.
func AssertCallNames(t testing.TB, tool *Tool, names ...string) bool {
	t.Helper()
	calls := tool.Calls()
	got := make([]string, len(calls))
	for i, c := range calls {
		got[i] = c.Name
	}
	if strings.Join(got, "\x00") != strings.Join(names, "\x00") || len(got) != len(names) {
		t.Errorf("tool calls = %q, want %q", got, names)
		return false
	}
	return true
}
