package main

import (
	"strings"
	"testing"
)

// TestQuickstart runs the whole demo and checks that each of its four
// stories ends the way the package doc promises.
func TestQuickstart(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		"attempt 3: get_weather",
		"=> ok: Lisbon: 19°C, clear",
		"correction applied: use the existing file notes/todo.md",
		`attempt 2: read_file {"path":"notes/todo.md"}`,
		"correction applied: switch to search_v2",
		`=> ok: 3 results for "release notes"`,
		"analysis: recoverable=false severity=high, escalate",
		"Recovery note: guidance (escalate): The credentials were rejected",
		"== the report of one call (Driver.RunWithReport)",
		`"outcome": "succeeded"`,
		`"modified_input": {`,
		`"applied": true`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
}
