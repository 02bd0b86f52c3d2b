package reflection

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// hasDuplicateKeys reports whether an object anywhere in b, a valid JSON
// document, holds two keys that are equal, or equal under Unicode case
// folding. Parsers disagree on such objects: encoding/json matches keys to
// struct fields without regard to case and lets the last one win, others keep
// the first. An input a schema checked could then reach a tool with another
// value, so the Driver drops an InputFix that has them.
//
// Small objects are checked pairwise without allocating; an object with many
// keys switches to a set of folded keys, so a large input stays linear.
func hasDuplicateKeys(b []byte) bool {
	var frameBuf [8]keyFrame
	var keyBuf [16]keySpan
	frames, keys := frameBuf[:0], keyBuf[:0]
	for i := 0; i < len(b); i++ {
		if !structural[b[i]] {
			continue // whitespace, ':', numbers, literals
		}
		switch b[i] {
		case '{':
			frames = append(frames, keyFrame{object: true, wantKey: true, first: int32(len(keys))})
		case '[':
			frames = append(frames, keyFrame{})
		case '}', ']':
			top := &frames[len(frames)-1]
			if top.object {
				keys = keys[:top.first]
			}
			frames = frames[:len(frames)-1]
		case ',':
			if n := len(frames); n > 0 && frames[n-1].object {
				frames[n-1].wantKey = true
			}
		case '"':
			end := stringEnd(b, i)
			if n := len(frames); n > 0 && frames[n-1].wantKey {
				top := &frames[n-1]
				top.wantKey = false
				key := keySpan{int32(i + 1), int32(end - 1)}
				if top.seen(b, keys[top.first:], key) {
					return true
				}
				keys = append(keys, key)
			}
			i = end - 1
		}
	}
	return false
}

// structural marks the bytes hasDuplicateKeys acts on outside strings.
var structural = [256]bool{'{': true, '[': true, '}': true, ']': true, ',': true, '"': true}

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
// b[start] (a quote).
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
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
