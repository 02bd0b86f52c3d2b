package main

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun runs the whole example and checks that both calls end the way the
// command's doc says.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		`attempt 1: calculator {"input":"six times seven"}`,
		"correction applied: write the expression with digits and operators",
		`attempt 2: calculator {"input":"6 * 7"}`,
		"ok: 42",
		"calculator(six times seven) -> 42",
		"decision: fail: rate service: 403 Forbidden: API key expired",
		"exchange_rate(EUR to USD) -> rate service: 403 Forbidden: API key expired",
		"answer: 6 × 7 = 42 euros; I could not get today's rate to convert it.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
}
