package reflectiontest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/loopctl-go/reflection"
)

// The model's own reading of JSON, written apart from the machine's: what
// an object is, which keys repeat, when two inputs are the same value.

// isObject reports whether b is one JSON object.
func isObject(b []byte) bool {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return false
	}
	_, ok := v.(map[string]any)
	return ok
}

// hasFoldedDuplicateKeys reports whether an object anywhere in b repeats a
// key, exactly or but for case (strings.EqualFold), walking the decoded
// tokens.
func hasFoldedDuplicateKeys(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type level struct {
		object  bool
		keys    []string
		wantKey bool
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &level{object: true, wantKey: true})
				continue
			case '[':
				stack = append(stack, &level{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.object && top.wantKey {
				for _, k := range top.keys {
					if strings.EqualFold(k, v) {
						return true
					}
				}
				top.keys = append(top.keys, v)
				top.wantKey = false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}

// jsonValue decodes b when it is one valid JSON value, keeping numbers as
// they are written.
func jsonValue(b []byte) (any, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// sameJSON reports whether a and b are the same JSON value; texts that are
// not both JSON are the same only byte for byte.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, okA := jsonValue(a)
	vb, okB := jsonValue(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

// sameCall reports whether two calls run the same tool with the same input
// (as JSON values), as the machine's guards compare them.
func sameCall(a, b reflection.ToolCall) bool {
	return a.Name == b.Name && sameJSON(a.Input, b.Input)
}

// callKey names a tool and its input as a JSON value: equal keys for
// calls that are the same.
func callKey(c reflection.ToolCall) string {
	if v, ok := jsonValue(c.Input); ok {
		canon, err := json.Marshal(v)
		if err == nil {
			return c.Name + "\x00j" + string(canon)
		}
	}
	return c.Name + "\x00b" + string(c.Input)
}
