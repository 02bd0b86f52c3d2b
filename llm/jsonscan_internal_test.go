package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// relShape is what scanJSON should find, computed again with encoding/json's
// tokenizer: depth, tokens, objects, the longest number literal and exponent,
// and whether some object repeats a key (exactly or but for case).
type relShape struct {
	depth, tokens, objects int
	numLen, numExp         int
	dup                    bool
}

func relScan(doc []byte) relShape {
	var s relShape
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	type frame struct {
		object    bool
		expectKey bool
		keys      []string
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return s
		}
		if err != nil {
			panic(err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.expectKey
		switch v := tok.(type) {
		case json.Delim:
			if v == '}' || v == ']' {
				stack = stack[:len(stack)-1]
				if top := len(stack); top > 0 && stack[top-1].object {
					stack[top-1].expectKey = true
				}
				continue
			}
			s.tokens++
			if v == '{' {
				s.objects++
			}
			stack = append(stack, &frame{object: v == '{', expectKey: v == '{'})
			s.depth = max(s.depth, len(stack))
			continue
		case string:
			s.tokens++
			if isKey {
				for _, k := range top.keys {
					if strings.EqualFold(k, v) {
						s.dup = true
					}
				}
				top.keys = append(top.keys, v)
				top.expectKey = false
				continue
			}
		case json.Number:
			s.tokens++
			lit := string(v)
			s.numLen = max(s.numLen, len(lit))
			if i := strings.IndexAny(lit, "eE"); i >= 0 {
				digits := strings.TrimLeft(lit[i+1:], "+-")
				digits = strings.TrimLeft(digits, "0")
				if len(digits) > 6 {
					s.numExp = 1 << 30
				} else {
					n := 0
					for _, c := range digits {
						n = n*10 + int(c-'0')
					}
					s.numExp = max(s.numExp, n)
				}
			}
		default: // true, false, null
			s.tokens++
		}
		if top != nil && top.object {
			top.expectKey = true
		}
	}
}

// FuzzScanJSON: scanJSON never panics, on any bytes; on valid JSON it
// measures what encoding/json's tokenizer measures, finds a repeated key
// exactly when there is one, and refuses exactly the documents over a limit.
//
//	go test -run '^$' -fuzz '^FuzzScanJSON$' -fuzztime 10s ./llm
func FuzzScanJSON(f *testing.F) {
	for _, seed := range []string{
		`{"path":"a","PATH":"b"}`, `{"a":[1,2,{"b":{"c":[]}}],"d":"}{[]\"\\"}`, `[1e999999,-0.5E-3,12]`,
		`{"p\u0061th":1,"path":2}`, `"just a string"`, `{"k":{"k":{"k":1}}}`, `{{{{`, `]]]`, `"\`, `{"a":1,"b":2,"A":3}`,
		`{"K":1,"k":2}`, `{"ſ":1,"S":2}`, `{"k":1,"\u212a":2}`, `[true,false,null]`,
	} {
		f.Add([]byte(seed), 3, 10, 20, 5)
	}
	f.Fuzz(func(t *testing.T, doc []byte, depth, tokens, numLen, numExp int) {
		rules := scanRules{what: "input", depth: depth, tokens: tokens, numberLength: numLen, numberExponent: numExp, duplicateKeys: true}
		_, limitedErr := scanJSON(doc, &rules)
		open := scanRules{what: "input", duplicateKeys: true}
		st, err := scanJSON(doc, &open)
		if !json.Valid(doc) {
			return
		}
		want := relScan(doc)
		var dup *duplicateKeyError
		if want.dup != errors.As(err, &dup) {
			t.Fatalf("duplicate key: scan says %v, want %v", err, want.dup)
		}
		if want.dup {
			return
		}
		require.NoError(t, err)
		if st.depth != want.depth || st.tokens != want.tokens || st.objects != want.objects {
			t.Fatalf("scan found depth %d, %d tokens, %d objects; want %d, %d, %d", st.depth, st.tokens, st.objects, want.depth, want.tokens, want.objects)
		}
		over := (depth > 0 && want.depth > depth) || (tokens > 0 && want.tokens > tokens) ||
			(numLen > 0 && want.numLen > numLen) || (numExp > 0 && want.numExp > numExp)
		if over != (limitedErr != nil) {
			t.Fatalf("limits %d/%d/%d/%d on %+v: got %v", depth, tokens, numLen, numExp, want, limitedErr)
		}
		if limitedErr != nil && !errors.Is(limitedErr, ErrLimitExceeded) {
			t.Fatalf("%v does not match ErrLimitExceeded", limitedErr)
		}
	})
}

func TestScanJSON(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want jsonStats
	}{
		{"braces inside strings do not count", `{"a":"{[{[","b\"{":["}"]}`, jsonStats{depth: 2, tokens: 6, objects: 1, maxString: 4, maxKey: 4}},
		{"scalars", `[1, -2.5e3, true, null, "xy"]`, jsonStats{depth: 1, tokens: 6, maxString: 2}},
		{"not JSON is scanned without harm", `}}]]{"a`, jsonStats{depth: 1, tokens: 2, objects: 1, maxString: 1, maxKey: 1}},
		{"an unterminated escape", `["\`, jsonStats{depth: 1, tokens: 2, maxString: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := scanRules{what: "input", duplicateKeys: true}
			got, err := scanJSON([]byte(tt.doc), &rules)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestScanJSONAllocatesNothingForASmallInput(t *testing.T) {
	doc := []byte(`{"path":"docs/notes.md","offset":10,"opts":{"follow":true,"tags":["a","b"]}}`)
	lim := defaultLimits()
	rules := lim.inputRules()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := scanJSON(doc, &rules); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	pairs := [][2]string{{"path", "PATH"}, {"k", "\u212a"}, {"s", "ſ"}, {"straße", "STRASSE"}, {"σ", "ς"}, {"a", "b"}, {"\xff", "\xfe"}}
	for _, p := range pairs {
		assert.Equal(t, bytes.EqualFold([]byte(p[0]), []byte(p[1])), foldKey([]byte(p[0])) == foldKey([]byte(p[1])), "%q %q", p[0], p[1])
	}
}
