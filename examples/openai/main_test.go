package main

import (
	"context"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun runs the whole example, retrying at once, and checks its output:
// each of the three failing calls recovers the way it should, and the model
// gets the three results, in its order, before it answers.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, reflection.NewExponentialBackoff(3).WithBaseDelay(0)); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	want := `model asks for 3 tool calls
  read_file {"path":"doc/release-notes.md"}
    failed: open doc/release-notes.md: no such file or directory (docs/ holds release-notes.md)
    reflector: the notes are under docs/ (input_fix)
  read_file {"path":"docs/release-notes.md"}
  run_sql {"input":"SELCT count(*) FROM notes"}
    failed: syntax error at or near "SELCT"
    reflector: SELCT is a typo of SELECT (input_fix)
  run_sql {"input":"SELECT count(*) FROM notes"}
  search_v1 {"query":"release"}
    failed: search_v1 was removed; use search
    reflector: search_v1 was replaced by search (tool_change)
  search {"query":"release"}
tool message call_notes: v1.2 ships tool-call recovery for openai-go
tool message call_count: count = 42
tool message call_docs: 3 pages mention the release
model: v1.2 ships tool-call recovery for openai-go; there are 42 notes, and 3 doc pages mention the release.
`
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
