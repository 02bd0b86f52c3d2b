package reflection

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// referenceObject is scanObject written the slow, obvious way: json.Valid,
// then a token walk comparing each object's keys with strings.EqualFold.
func referenceObject(b []byte) (object, dup bool) {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' || !json.Valid(b) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	type level struct {
		object, wantKey bool
		keys            []string
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return true, dup
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, &level{object: v == '{', wantKey: v == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if top := stack[len(stack)-1]; top.object && top.wantKey {
				for _, k := range top.keys {
					dup = dup || strings.EqualFold(k, v)
				}
				top.keys, top.wantKey = append(top.keys, v), false
				continue
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}

// FuzzScanObject: the one-pass scanner agrees with json.Valid on what is a
// JSON object, and with the reference on duplicate keys.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":1,"A":2}`, `{"a":{"b":1,"B":[1,2]}}`, `{"\u0041":1,"a":2}`, `{"k":1,"\u212a":2}`,
		`[1]`, `"s"`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":1e+5,"b":-0.5E-3}`, `{"a":"\x01"}`,
		`{"a":"\q"}`, `{"a":"\u12"}`, `{"a":tru}`, `{"a":[1,]}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{} {}`, `{}x`,
		"{\"a\":\"\xff\"}", `{"a":[[],{}],"b":null,"c":true,"d":false}`, strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		object, dup := scanObject(b)
		wantObject, wantDup := referenceObject(b)
		if object != wantObject || dup != wantDup {
			t.Fatalf("scanObject(%q) = %v, %v; want %v, %v", b, object, dup, wantObject, wantDup)
		}
	})
}

// TestScanObjectNesting: the nesting limit is encoding/json's.
func TestScanObjectNesting(t *testing.T) {
	for _, depth := range []int{maxNesting, maxNesting + 1} {
		b := []byte(strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1))
		object, _ := scanObject(b)
		if want := json.Valid(b); object != want {
			t.Errorf("depth %d: scanObject says %v, json.Valid %v", depth, object, want)
		}
	}
}

// BenchmarkScanObject: one pass against json.Valid alone, on the size of a
// typical corrected input.
func BenchmarkScanObject(b *testing.B) {
	in := []byte(`{"path":"docs/notes.md","mode":"r","limit":100,"tags":["a","b"]}`)
	b.Run("scanObject", func(b *testing.B) {
		for b.Loop() {
			scanObject(in)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(in)
		}
	})
}
