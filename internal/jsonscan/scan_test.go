package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name          string
		doc           string
		lim           Limits
		valid, object bool
		over          Limit
		dupKey        string // raw; "" for none
		stats         Stats
	}{
		{name: "braces inside strings do not count", doc: `{"a":"{[{[","b\"{":["}"]}`, valid: true, object: true,
			stats: Stats{Depth: 2, Tokens: 6, Objects: 1, MaxString: 4, MaxKey: 4}},
		{name: "scalars", doc: `[1, -2.5e3, true, null, "xy"]`, valid: true,
			stats: Stats{Depth: 1, Tokens: 6, MaxString: 2, MaxNumber: 6, MaxExponent: 3}},
		{name: "a key repeated but for case, escaped", doc: `{"b":{"path":1,"P\u0041TH":2,"path":3}}`, valid: true, object: true,
			dupKey: `P\u0041TH`, stats: Stats{Depth: 2, Tokens: 9, Objects: 2, MaxString: 9, MaxKey: 9, MaxNumber: 1}},
		{name: "the same key in two objects is no repeat", doc: `[{"a":1},{"a":2}]`, valid: true,
			stats: Stats{Depth: 2, Tokens: 7, Objects: 2, MaxString: 1, MaxKey: 1, MaxNumber: 1}},
		{name: "a repeat before a syntax error is reported", doc: `{"a":1,"A":2,}`, dupKey: "A",
			stats: Stats{Depth: 1, Tokens: 5, Objects: 1, MaxString: 1, MaxKey: 1, MaxNumber: 1}},
		{name: "an unterminated escape", doc: `["\`, stats: Stats{Depth: 1, Tokens: 2}},
		{name: "trailing text", doc: `{} x`, stats: Stats{Depth: 1, Tokens: 1, Objects: 1}},
		{name: "depth one above the limit", doc: `[[[1]]]`, lim: Limits{Depth: 2}, over: LimitDepth,
			stats: Stats{Depth: 3, Tokens: 3}},
		{name: "objects one above the limit", doc: `[{},{}]`, lim: Limits{Objects: 1}, over: LimitObjects,
			stats: Stats{Depth: 2, Tokens: 3, Objects: 2}},
		{name: "tokens one above the limit", doc: `{"a":[1,2]}`, lim: Limits{Tokens: 4}, over: LimitTokens,
			stats: Stats{Depth: 2, Tokens: 5, Objects: 1, MaxString: 1, MaxKey: 1, MaxNumber: 1}},
		{name: "a negative exponent over the limit", doc: `[1e-401]`, lim: Limits{NumberExponent: 400}, over: LimitNumberExponent,
			stats: Stats{Depth: 1, Tokens: 2, MaxNumber: 6, MaxExponent: 401}},
		{name: "an exponent past what is counted", doc: `[1e99999999999]`, valid: true,
			stats: Stats{Depth: 1, Tokens: 2, MaxNumber: 13, MaxExponent: MaxCountedExponent}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Scan([]byte(tt.doc), tt.lim)
			if got.Valid != tt.valid || got.Object != tt.object || got.Over != tt.over {
				t.Errorf("valid, object, over = %v, %v, %d; want %v, %v, %d", got.Valid, got.Object, got.Over, tt.valid, tt.object, tt.over)
			}
			if got.Dup != (tt.dupKey != "") || string(got.DupKey) != tt.dupKey {
				t.Errorf("repeated key %v %q, want %q", got.Dup, got.DupKey, tt.dupKey)
			}
			if got.Stats != tt.stats {
				t.Errorf("stats %+v, want %+v", got.Stats, tt.stats)
			}
		})
	}
}

// TestScanNesting: a valid text nests at most as deep as encoding/json
// allows; a depth limit above that changes nothing.
func TestScanNesting(t *testing.T) {
	for _, depth := range []int{maxNesting, maxNesting + 1} {
		b := []byte(strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1))
		for _, lim := range []Limits{{}, {Depth: 2 * maxNesting}} {
			got := Scan(b, lim)
			if want := json.Valid(b); got.Valid != want || got.Over != NoLimit {
				t.Errorf("depth %d, %+v: Scan says valid %v, over %d; json.Valid %v", depth, lim, got.Valid, got.Over, want)
			}
		}
	}
}

// TestScanAllocatesNothingForASmallText: the Driver checks every InputFix
// with Scan.
func TestScanAllocatesNothingForASmallText(t *testing.T) {
	doc := []byte(`{"path":"docs/notes.md","offset":10,"opts":{"follow":true,"tags":["a","b"],"Mode":"r","mode":"w"}}`)
	lim := Limits{Depth: 32, Tokens: 10_000, NumberLength: 100, NumberExponent: 400}
	allocs := testing.AllocsPerRun(100, func() {
		if r := Scan(doc, lim); !r.Valid || !r.Dup {
			t.Fatalf("Scan(%s) = %+v", doc, r)
		}
	})
	if allocs != 0 {
		t.Errorf("Scan allocates %v times", allocs)
	}
}

// TestManyKeysStayLinear: an object with many keys goes through the set of
// folded keys, and still finds a repeat.
func TestManyKeysStayLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 5000 {
		b.WriteString(`"key` + strconv.Itoa(i) + `":1,`)
	}
	b.WriteString(`"KEY17":2}`)
	got := Scan([]byte(b.String()), Limits{})
	if !got.Valid || !got.Dup || string(got.DupKey) != "KEY17" {
		t.Errorf("got valid %v, repeated key %q; want the last key", got.Valid, got.DupKey)
	}
}

func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	pairs := [][2]string{{"path", "PATH"}, {"k", "\u212a"}, {"s", "ſ"}, {"straße", "STRASSE"}, {"σ", "ς"}, {"a", "b"},
		{"\xff", "\xfe"}, {"\xff", "\uFFFD"}, {`\u004b`, "k"}, {`\ud800`, "\uFFFD"}}
	for _, p := range pairs {
		a, b := []byte(p[0]), []byte(p[1])
		if want, got := strings.EqualFold(KeyText(a), KeyText(b)), foldKey(a) == foldKey(b); got != want {
			t.Errorf("%q, %q: foldKeys equal %v, EqualFold %v", p[0], p[1], got, want)
		}
		escaped := bytes.ContainsRune(a, '\\') || bytes.ContainsRune(b, '\\')
		if want, got := strings.EqualFold(KeyText(a), KeyText(b)), keysFoldEqual(a, b, escaped); got != want {
			t.Errorf("%q, %q: keysFoldEqual %v, EqualFold %v", p[0], p[1], got, want)
		}
	}
}

// BenchmarkScan: the size of a typical corrected input, with and without
// the limits of an llm input check.
func BenchmarkScan(b *testing.B) {
	in := []byte(`{"path":"docs/notes.md","mode":"r","limit":100,"tags":["a","b"]}`)
	b.Run("no-limits", func(b *testing.B) {
		for b.Loop() {
			Scan(in, Limits{})
		}
	})
	b.Run("limits", func(b *testing.B) {
		lim := Limits{Depth: 32, Tokens: 10_000, NumberLength: 100, NumberExponent: 400}
		for b.Loop() {
			Scan(in, lim)
		}
	})
}
