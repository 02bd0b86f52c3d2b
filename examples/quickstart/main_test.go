package main

import (
	"strings"
	"testing"
	"time"
)

// TestQuickstart runs the whole demo and checks that each of its stories
// ends the way the package doc promises.
func TestQuickstart(t *testing.T) {
	var out strings.Builder
	start := time.Now()
	if err := run(&out); err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("the demo took %v", time.Since(start))
	for _, want := range []string{
		"attempt 3: get_weather",
		"=> ok: Lisbon: 19°C, clear",
		"correction applied: use the existing file notes/todo.md",
		`attempt 2: read_file {"path":"notes/todo.md"}`,
		"correction applied: switch to search_v2",
		`=> ok: 3 results for "release notes"`,
		"analysis: recoverable=false severity=high, escalate",
		"Recovery note: guidance (escalate): The credentials were rejected",
		"reason: strategy (the tool ran once)",

		// charge_card: charged once, and a human must decide.
		"decision: ask user: the failed call may already have taken effect, and this tool is not idempotent",
		"A human decision is needed before this call can be retried",
		"reason: ambiguous_effect (the tool ran once)\n   the card was charged once\n",
		"without WithEffects, the timeout is retried and the card is charged 2 times\n",

		// get_stock: the breaker opens and refuses the later calls.
		"attempt 3: get_stock",
		"decision: fail: max retries (2) exceeded\n   => soft error, handed to the model: inventory service: 503 Service Unavailable\n",
		"reason: strategy (the tool ran 3 times)\n   circuit breaker of get_stock: open\n",
		"== call_7 get_stock {\"sku\":\"B-7\"}\n" +
			"   => soft error, handed to the model: tool temporarily unavailable: circuit breaker open\n" +
			"   reason: circuit_open (the tool ran 0 times)\n",
		"== call_8 get_stock {\"sku\":\"C-19\"}\n" +
			"   => soft error, handed to the model: tool temporarily unavailable: circuit breaker open\n" +
			"   reason: circuit_open (the tool ran 0 times)\n",
		"get_stock ran 3 times for three calls",

		"== the report of one call (Driver.RunWithReport)",
		`"outcome": "succeeded"`,
		`"modified_input": {`,
		`"applied": true`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
	for _, never := range []string{
		"attempt 2: charge_card",             // never retried blindly
		`attempt 1: get_stock {"sku":"B-7"}`, // refused without running
	} {
		if strings.Contains(out.String(), never) {
			t.Errorf("output has %q; got:\n%s", never, out.String())
		}
	}
}
