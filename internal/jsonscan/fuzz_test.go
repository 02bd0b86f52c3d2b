package jsonscan

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// jsonModel is what Scan should find in a valid text, found again the slow,
// obvious way: encoding/json's tokenizer, each object's keys kept in order as
// they decode and compared with strings.EqualFold.
type jsonModel struct {
	stats  Stats
	object bool
	dupAt  int // offset of the first repeated key's first byte after its quote; -1 for none
}

func jsonModelOf(doc []byte) jsonModel {
	m := jsonModel{dupAt: -1}
	t := bytes.TrimLeft(doc, " \t\r\n")
	m.object = len(t) > 0 && t[0] == '{'
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	type level struct {
		object, wantKey bool
		keys            []string
	}
	var stack []*level
	for {
		from := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return m
		}
		if err != nil {
			panic(err) // doc is valid
		}
		to := int(dec.InputOffset())
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '}' || v == ']' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			m.stats.Tokens++
			if v == '{' {
				m.stats.Objects++
			}
			stack = append(stack, &level{object: v == '{', wantKey: v == '{'})
			m.stats.Depth = max(m.stats.Depth, len(stack))
			continue
		case string:
			m.stats.Tokens++
			// Between the last token and this one there are only white
			// space, commas and colons, so the first quote opens it.
			open := int(from) + bytes.IndexByte(doc[from:to], '"')
			raw := to - 1 - (open + 1)
			m.stats.MaxString = max(m.stats.MaxString, raw)
			if top != nil && top.object && top.wantKey {
				m.stats.MaxKey = max(m.stats.MaxKey, raw)
				for _, k := range top.keys {
					if m.dupAt < 0 && strings.EqualFold(k, v) {
						m.dupAt = open + 1
					}
				}
				top.keys, top.wantKey = append(top.keys, v), false
				continue
			}
		case json.Number:
			m.stats.Tokens++
			lit := string(v)
			m.stats.MaxNumber = max(m.stats.MaxNumber, len(lit))
			if e := strings.IndexAny(lit, "eE"); e >= 0 {
				digits := strings.TrimLeft(strings.TrimLeft(lit[e+1:], "+-"), "0")
				exp := MaxCountedExponent
				if len(digits) < 10 {
					exp = 0
					for _, c := range digits {
						exp = exp*10 + int(c-'0')
					}
				}
				m.stats.MaxExponent = max(m.stats.MaxExponent, min(exp, MaxCountedExponent))
			}
		default: // true, false, null
			m.stats.Tokens++
		}
		if top != nil && top.object {
			top.wantKey = true
		}
	}
}

// sameResult reports whether a and b say the same of the same text.
func sameResult(a, b Result) bool {
	return a.Stats == b.Stats && a.Valid == b.Valid && a.Object == b.Object && a.Over == b.Over &&
		a.Dup == b.Dup && len(a.DupKey) == len(b.DupKey) && cap(a.DupKey) == cap(b.DupKey) && len(a.Number) == len(b.Number)
}

// jsonOverLimits lists the limits of lim that the counts in s break.
func jsonOverLimits(s Stats, lim Limits) []Limit {
	var out []Limit
	for _, c := range []struct {
		got, limit int
		which      Limit
	}{
		{s.Depth, lim.Depth, LimitDepth},
		{s.Tokens, lim.Tokens, LimitTokens},
		{s.Objects, lim.Objects, LimitObjects},
		{s.MaxNumber, lim.NumberLength, LimitNumberLength},
		{s.MaxExponent, lim.NumberExponent, LimitNumberExponent},
	} {
		if c.limit > 0 && c.got > c.limit {
			out = append(out, c.which)
		}
	}
	return out
}

// FuzzScan: on any bytes, Scan never panics and agrees with json.Valid; on a
// valid text it finds the object, the first repeated key and the counts that
// the jsonModel finds, and stops exactly when a count breaks a limit, at one of
// the limits broken, with the count one above it.
//
//	go test -run '^$' -fuzz '^FuzzScan$' -fuzztime 10000x .
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		// Validity, objectness and repeated keys.
		`{}`, ` {"a":1} `, `{"a":1,"A":2}`, `{"a":{"b":1,"B":[1,2]}}`, `{"\u0041":1,"a":2}`, `{"k":1,"\u212a":2}`,
		`[1]`, `"s"`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":1e+5,"b":-0.5E-3}`, `{"a":"\x01"}`,
		`{"a":"\q"}`, `{"a":"\u12"}`, `{"a":tru}`, `{"a":[1,]}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{} {}`, `{}x`,
		"{\"a\":\"\xff\"}", `{"a":[[],{}],"b":null,"c":true,"d":false}`, strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40),
		// Counts and limits.
		`{"path":"a","PATH":"b"}`, `{"a":[1,2,{"b":{"c":[]}}],"d":"}{[]\"\\"}`, `[1e999999,-0.5E-3,12]`,
		`{"p\u0061th":1,"path":2}`, `"just a string"`, `{"k":{"k":{"k":1}}}`, `{{{{`, `]]]`, `"\`, `{"a":1,"b":2,"A":3}`,
		`{"K":1,"k":2}`, `{"ſ":1,"S":2}`, `[true,false,null]`, "{\"\xff\":1,\"\xfe\":2}",
		`{"A":1,"B":2,"C":3,"D":4,"E":5,"F":6,"G":7,"H":8,"I":9,"J":10,"K":11,"L":12,"M":13,"N":14,"O":15,"P":16,"Q":17,"R":18,"\u212a":19}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":{"S":1}}`,
	} {
		f.Add([]byte(s), 3, 10, 2, 20, 5)
	}
	f.Fuzz(func(t *testing.T, doc []byte, depth, tokens, objects, numLen, numExp int) {
		open := Scan(doc, Limits{})
		if open.Valid != json.Valid(doc) {
			t.Fatalf("Scan(%q).Valid = %v, json.Valid says %v", doc, open.Valid, !open.Valid)
		}
		if open.Over != NoLimit {
			t.Fatalf("Scan(%q) with no limits stopped at limit %d", doc, open.Over)
		}
		lim := Limits{Depth: depth, Tokens: tokens, Objects: objects, NumberLength: numLen, NumberExponent: numExp}
		limited := Scan(doc, lim)
		if !open.Valid {
			if open.Object || limited.Valid || limited.Object {
				t.Fatalf("Scan(%q) calls an invalid text valid or an object: %+v, %+v", doc, open, limited)
			}
			return
		}
		want := jsonModelOf(doc)
		if open.Object != want.object {
			t.Fatalf("Scan(%q).Object = %v, want %v", doc, open.Object, want.object)
		}
		gotDupAt := -1
		if open.Dup {
			gotDupAt = cap(doc) - cap(open.DupKey)
		}
		if gotDupAt != want.dupAt {
			t.Fatalf("Scan(%q): first repeated key at %d (%q), want at %d", doc, gotDupAt, open.DupKey, want.dupAt)
		}
		if open.Stats != want.stats {
			t.Fatalf("Scan(%q) counted %+v, want %+v", doc, open.Stats, want.stats)
		}
		over := jsonOverLimits(want.stats, lim)
		if len(over) == 0 {
			if !sameResult(limited, open) {
				t.Fatalf("Scan(%q, %+v) = %+v, want the scan without limits, %+v", doc, lim, limited, open)
			}
			return
		}
		var hit bool
		for _, l := range over {
			hit = hit || l == limited.Over
		}
		if !hit || limited.Valid || limited.Object {
			t.Fatalf("Scan(%q, %+v) stopped at %d (valid %v), want one of %v", doc, lim, limited.Over, limited.Valid, over)
		}
		switch limited.Over {
		case LimitDepth:
			hit = limited.Depth == depth+1
		case LimitTokens:
			hit = limited.Tokens == tokens+1
		case LimitObjects:
			hit = limited.Objects == objects+1
		case LimitNumberLength:
			hit = len(limited.Number) > numLen
		case LimitNumberExponent:
			_, exp, _ := numberEnd(limited.Number, 0)
			hit = exp > numExp
		}
		if !hit {
			t.Fatalf("Scan(%q, %+v) stopped at %d with %+v, number %q: not the count that broke it", doc, lim, limited.Over, limited.Stats, limited.Number)
		}
	})
}
