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

// TestRun runs the whole example and checks that each of its four calls
// ends the way the command's doc says.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		"server tools: book_room, get_weather, search_v1, stock_price",
		"correction applied: the schema asks for a city name, in English",
		`attempt 2: get_weather {"city":"Lisbon"}`,
		"=> ok: Lisbon: 19°C, clear",
		"server tools changed: book_room, get_weather, search_v1, search_v2, stock_price",
		"correction applied: switch to search_v2",
		`=> ok: 3 results for "release notes"`,
		"attempt 3: stock_price",
		"=> soft error, handed to the model: quote service unavailable",
		"decision: ask user: the failed call may already have taken effect, and this tool is not idempotent",
		"=> soft error, handed to the model: calendar service unavailable",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "attempt 2: book_room") {
		t.Errorf("book_room ran again: a tool that may have acted must not be retried blindly")
	}
}
