package reflection

import (
	"bytes"
	"encoding/json"
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
