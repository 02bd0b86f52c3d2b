package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestExample runs the whole conversation and checks that each of its four
// stories ends the way the command's doc says.
func TestExample(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		// InputFix: the city spelled out, then the tool succeeds.
		`[driver] call_1 attempt 2: get_weather {"city":"New York"}`,
		"[eino] get_weather ended",
		// ToolChange: the successor runs, with eino's callbacks.
		"[driver] correction: tool_change (use the successor)",
		`[driver] call_2 attempt 2: search_flights {"from":"LIS","to":"JFK"}`,
		"[eino] search_flights started\n  [eino] search_flights ended",
		// A made-up tool name goes through the Driver and finds book_hotel.
		`reflectioneino: unknown tool "book_hotell"`,
		`[driver] call_3 attempt 2: book_hotel {"city":"New York","nights":3}`,
		// An unfixable failure is a result the model reads, not an error.
		"[driver] decision: fail: ",
		"assistant: Here is what I found. New York: 21°C, light wind. TP 1351 LIS-JFK, Friday 10:25, 612 EUR.",
		"permission denied: booking needs a signed-in user. I could not book the hotel",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"get_weather", "search_flights", "book_hotel"}
	tests := []struct{ name, want string }{
		{"book_hotell", "book_hotel"},
		{"get_wether", "get_weather"},
		{"search_flight", "search_flights"},
		{"horoscope", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := closest(tc.name, names); got != tc.want {
				t.Errorf("closest(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
