package reflection

import (
	"bytes"
	"encoding/json"

	"github.com/loopctl-go/reflection/internal/jsonscan"
)

// sameCall reports whether a and b run the same tool with the same input,
// inputs compared as JSON values: key order and insignificant whitespace do
// not matter.
func sameCall(a, b ToolCall) bool {
	return a.Name == b.Name && sameJSON(a.Input, b.Input)
}

// sameJSON reports whether a and b are the same JSON value; two texts that
// are not both JSON are the same only byte for byte.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, okA := canonicalJSON(a)
	cb, okB := canonicalJSON(b)
	return okA && okB && bytes.Equal(ca, cb)
}

// canonicalJSON rewrites a JSON text in one form per value: no insignificant
// whitespace, object keys sorted, strings escaped one way. Numbers keep their
// text. ok is false when b is not one JSON value.
func canonicalJSON(b []byte) (out []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// scanObject reports whether b is exactly one valid JSON value that is an
// object (white space around it allowed: json.Valid's grammar, its nesting
// limit included), and whether an object anywhere in it holds two keys that
// are equal, or equal under Unicode case folding (escapes decoded).
//
// Parsers disagree on such objects: encoding/json matches keys to struct
// fields without regard to case and lets the last one win, others keep the
// first. An input a schema checked could then reach a tool with another
// value, so the Driver drops an InputFix that has them, and InputText
// refuses them. A small object is checked without allocating.
func scanObject(b []byte) (object, dup bool) {
	r := jsonscan.Scan(b, jsonscan.Limits{})
	return r.Object, r.Object && r.Dup
}
