package reflection

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// scanObject reads b in one pass, as a JSON document, and reports whether it
// is exactly one valid JSON value that is an object (whitespace around it
// allowed: json.Valid's grammar, its nesting limit included), and whether
// an object anywhere in it holds two keys that are equal, or equal under
// Unicode case folding (escapes decoded).
//
// Parsers disagree on such objects: encoding/json matches keys to struct
// fields without regard to case and lets the last one win, others keep the
// first. An input a schema checked could then reach a tool with another
// value, so the Driver drops an InputFix that has them.
//
// Small objects are checked pairwise without allocating; an object with many
// keys switches to a set of folded keys, so a large input stays linear.
func scanObject(b []byte) (object, dup bool) {
	var frameBuf [8]keyFrame
	var keyBuf [16]keySpan
	frames, keys := frameBuf[:0], keyBuf[:0]
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, false
	}
	state := scanValue
	for {
		i = skipSpace(b, i)
		switch state {
		case scanValue:
			if i >= len(b) {
				return false, false
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				if len(frames) == maxNesting {
					return false, false
				}
				frames = append(frames, keyFrame{object: c == '{', first: int32(len(keys))})
				i = skipSpace(b, i+1)
				closing := byte(']')
				if c == '{' {
					closing, state = '}', scanKey
				}
				if i < len(b) && b[i] == closing {
					i++
					frames = frames[:len(frames)-1]
					state = scanAfter
				}
				continue
			case c == '"':
				end, ok := stringEnd(b, i)
				if !ok {
					return false, false
				}
				i = end
			case c == '-' || c >= '0' && c <= '9':
				end, ok := numberEnd(b, i)
				if !ok {
					return false, false
				}
				i = end
			case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
				i += 4
			case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
				i += 5
			case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
				i += 4
			default:
				return false, false
			}
			state = scanAfter
		case scanKey:
			if i >= len(b) || b[i] != '"' {
				return false, false
			}
			end, ok := stringEnd(b, i)
			if !ok {
				return false, false
			}
			top := &frames[len(frames)-1]
			key := keySpan{int32(i + 1), int32(end - 1)}
			if !dup && top.seen(b, keys[top.first:], key) {
				dup = true
			}
			keys = append(keys, key)
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return false, false
			}
			i++
			state = scanValue
		case scanAfter:
			if len(frames) == 0 {
				return i == len(b), dup && i == len(b)
			}
			top := &frames[len(frames)-1]
			switch {
			case i >= len(b):
				return false, false
			case b[i] == ',':
				state = scanValue
				if top.object {
					state = scanKey
				}
			case b[i] == '}' && top.object, b[i] == ']' && !top.object:
				if top.object {
					keys = keys[:top.first]
				}
				frames = frames[:len(frames)-1]
			default:
				return false, false
			}
			i++
		}
	}
}

// What scanObject expects next.
const (
	scanValue = iota // a value
	scanKey          // an object's key (and its colon)
	scanAfter        // a comma, a closing bracket, or the end
)

// maxNesting is how deep arrays and objects may nest: encoding/json's limit.
const maxNesting = 10000

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// numberEnd returns the index just past the JSON number at b[i], and false
// when it is not one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		i = digitsEnd(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		i = digitsEnd(b, i)
	}
	return i, true
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// keyFrame is an object or array being scanned.
type keyFrame struct {
	object  bool
	wantKey bool                // the next string is a key
	first   int32               // where the object's keys start in the key list
	folded  map[string]struct{} // the folded keys, once the object has many
}

// keySpan locates a key, without its quotes, in the document.
type keySpan struct{ start, end int32 }

// pairwiseKeys is how many keys an object may have before its keys go into
// a set.
const pairwiseKeys = 16

// seen reports whether key matches one of the object's earlier keys, and
// remembers it once the object has many.
func (f *keyFrame) seen(doc []byte, earlier []keySpan, key keySpan) bool {
	k := doc[key.start:key.end]
	if f.folded == nil && len(earlier) < pairwiseKeys {
		for _, e := range earlier {
			if keysFoldEqual(doc[e.start:e.end], k) {
				return true
			}
		}
		return false
	}
	if f.folded == nil {
		f.folded = make(map[string]struct{}, 2*pairwiseKeys)
		for _, e := range earlier {
			f.folded[foldKey(doc[e.start:e.end])] = struct{}{}
		}
	}
	folded := foldKey(k)
	if _, dup := f.folded[folded]; dup {
		return true
	}
	f.folded[folded] = struct{}{}
	return false
}

// stringEnd returns the index just past the JSON string that starts at
// b[start] (a quote), and false when it is not a valid one: a control
// character, an unknown escape or the end of b comes first. Like
// encoding/json, it does not check UTF-8.
func stringEnd(b []byte, start int) (int, bool) {
	for i := start + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, false
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return len(b), false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// keysFoldEqual compares two raw JSON keys (without their quotes) under
// Unicode case folding, decoding escapes when either has one.
func keysFoldEqual(a, b []byte) bool {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.EqualFold(a, b)
	}
	return strings.EqualFold(unescapeKey(a), unescapeKey(b))
}

// unescapeKey decodes a raw JSON key (without its quotes).
func unescapeKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return string(raw)
	}
	return s
}

// foldKey maps a raw JSON key to one representative of its case-folding
// class: every rune becomes the smallest rune it folds to, so two keys are
// equal under strings.EqualFold exactly when their foldKeys are equal.
func foldKey(raw []byte) string {
	s := unescapeKey(raw)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
