package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestExample runs the whole conversation and checks that each of its three
// stories ends the way the command's doc says.
func TestExample(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		// A 503 is retried, and the model reads the order.
		"[driver] attempt 1 failed: orders: 503 Service Unavailable",
		"[driver] attempt 2 succeeded\ntool: get_order answers map[amount:30 order:42 status:unpaid]",
		// The charge that timed out is not run again, and the model is told.
		"[driver] call-2 ended: ambiguous_effect after 1 dispatch(es)",
		"may already have taken effect",
		// The model's re-issue is held back before it runs.
		"[driver] call-3 ended: ambiguous_effect after 0 dispatch(es)",
		`an earlier call of this tool with the same input ("call-2")`,
		"card charged 1 time(s)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
}
