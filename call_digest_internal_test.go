package reflection

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

func TestCanonicalAppend(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[true,null]}`, ` { "b" : [ true , null ] , "a" : 1 } `},
		{`{"k":"\u0041\n"}`, `{"k":"A\u000a"}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`[]`, `[ ]`},
	}
	for _, p := range same {
		a, okA := canonicalAppend(nil, []byte(p[0]))
		b, okB := canonicalAppend(nil, []byte(p[1]))
		if !okA || !okB || !bytes.Equal(a, b) {
			t.Errorf("%s and %s: %q (%v) and %q (%v), want one text", p[0], p[1], a, okA, b, okB)
		}
	}
	differ := [][2]string{{`{"a":1}`, `{"a":1.0}`}, {`{"a":"x"}`, `{"a":"X"}`}, {`[1,2]`, `[2,1]`}}
	for _, p := range differ {
		a, _ := canonicalAppend(nil, []byte(p[0]))
		b, _ := canonicalAppend(nil, []byte(p[1]))
		if bytes.Equal(a, b) {
			t.Errorf("%s and %s share the text %q", p[0], p[1], a)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `[1,]`, `01`, `1.`, `"a`, `{"a":1}x`, `tru`, "\"\x01\"", strings.Repeat("[", 2000) + strings.Repeat("]", 2000)} {
		if out, ok := canonicalAppend([]byte("kept"), []byte(bad)); ok || string(out) != "kept" {
			t.Errorf("%q: ok %v, out %q", bad, ok, out)
		}
	}
}

// FuzzCanonicalAppend checks the canonical text against encoding/json: the
// same inputs are JSON, and the text decodes to the same value.
func FuzzCanonicalAppend(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,{"c":null}]}`, `"\u00e9"`, `-0.5e+3`, `{"a":1,"a":2}`, `[{}, []]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, ok := canonicalAppend(nil, src)
		if ok != json.Valid(src) {
			if !ok && bytes.Count(src, []byte("["))+bytes.Count(src, []byte("{")) > maxCanonicalDepth {
				return
			}
			t.Fatalf("%q: canonical %v, encoding/json %v", src, ok, json.Valid(src))
		}
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: the canonical text %q is not JSON", src, out)
		}
		if !bytes.Contains(src, []byte(`\u`)) && !reflect.DeepEqual(decodeNumbers(t, src), decodeNumbers(t, out)) {
			t.Fatalf("%q: the canonical text %q is another value", src, out)
		}
	})
}

// TestCallDigestAllocatesNothing: once the pool has room, a digest, the
// lookup every call of a guarded tool makes when the memory holds calls of
// its tool, allocates nothing.
func TestCallDigestAllocatesNothing(t *testing.T) {
	call := ToolCall{Name: "charge_card", Input: []byte(`{"card":{"last4":"4242","exp":"12/29"},"amount":500,"note":"caf\u00e9 \"A\"","tags":["a","b"]}`)}
	want := callDigest(call)
	allocs := testing.AllocsPerRun(100, func() {
		if callDigest(call) != want {
			t.Fatal("the digest changed")
		}
	})
	if allocs != 0 && !raceDetector {
		t.Errorf("a digest allocates %v times", allocs)
	}
	same := ToolCall{Name: "charge_card", Input: []byte(` { "amount" : 500 , "tags":["a","b"], "note":"café \u0022A\u0022", "card":{"exp":"12/29","last4":"4242"}}`)}
	if callDigest(same) != want {
		t.Error("inputs equal as JSON values digest apart")
	}
	if callDigest(ToolCall{Name: "charge_cardx", Input: call.Input}) == want {
		t.Error("another tool digests alike")
	}
}
