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

		// charge_card: the ledger cannot tell yet, so a human must decide.
		"decision: retry after 10ms\n     verified charge_card: unknown\n",
		"A human decision is needed before this call can be retried: the failed call may already have taken effect, and this tool is not idempotent",
		"Warning: this call may already have taken effect: 1 of its 1 dispatches failed",
		"reason: ambiguous_effect (the tool ran once)\n   the card was charged once\n",
		// Its re-issue: remembered, verified, succeeded without running.
		"== call_6 charge_card {\"amount\":\"42.00 EUR\",\"order\":\"A-1042\"}\n" +
			"   remembered: the same call, call_5, may already have taken effect (payment gateway timed out after 30s)\n" +
			"     verified charge_card: applied\n" +
			"   => ok: charged 42.00 EUR for order A-1042 (found in the ledger)\n" +
			"   the card was charged once\n",
		"without WithEffects, call_5's timeout is retried and a fresh card is charged 2 times\n",

		// get_stock: a call counts once; the third failing call opens the
		// breaker, and the breaker refuses its retry and the next call.
		"== call_7 get_stock",
		"attempt 3: get_stock {\"sku\":\"A-1042\"}",
		"decision: fail: max retries (2) exceeded\n   => soft error, handed to the model: inventory service: 503 Service Unavailable\n",
		"reason: strategy (the tool ran 3 times)\n   circuit breaker of get_stock: closed\n\n== call_8",
		"attempt 3: get_stock {\"sku\":\"B-7\"}",
		"reason: strategy (the tool ran 3 times)\n   circuit breaker of get_stock: closed\n\n== call_9",
		"== call_9 get_stock {\"sku\":\"C-19\"}\n" +
			"   attempt 1: get_stock {\"sku\":\"C-19\"}\n" +
			"     failed: inventory service: 503 Service Unavailable\n",
		"   => soft error, handed to the model: inventory service: 503 Service Unavailable\n" +
			"      \n" +
			"      tool temporarily unavailable: circuit breaker open; retry in about 1s\n",
		"reason: circuit_open (the tool ran once)\n   circuit breaker of get_stock: open\n",
		"== call_10 get_stock {\"sku\":\"D-3\"}\n" +
			"   => soft error, handed to the model: tool temporarily unavailable: circuit breaker open; retry in about 1s\n" +
			"   reason: circuit_open (the tool ran 0 times)\n",
		"get_stock ran 7 times for four calls",

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
		"attempt 2: charge_card",               // never retried blindly
		`attempt 1: charge_card {"amount"`,     // the re-issue never ran
		`attempt 2: get_stock {"sku":"C-19"}`,  // its retry was refused
		`attempt 1: get_stock {"sku":"D-3"}`,   // refused without running
		"reason: circuit_open (the tool ran 3", // a lone call never opens its own breaker
	} {
		if strings.Contains(out.String(), never) {
			t.Errorf("output has %q; got:\n%s", never, out.String())
		}
	}
}
