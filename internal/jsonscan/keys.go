package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Parsers disagree on an object that repeats a key: encoding/json matches
// keys to struct fields without regard to case and lets the last one win,
// others keep the first. A text that a check read one way can reach a tool
// read the other, which is why Scan reports such objects.

// frame is an object or array being scanned.
type frame struct {
	object bool
	first  int32               // where the object's keys start in the key list
	folded map[string]struct{} // the object's folded keys, once it has many
}

// keySpan locates a key, without its quotes, in the text. Scan reads no text
// of 2 GiB or more, so an int32 holds every offset.
type keySpan struct {
	start, end int32
	escaped    bool // the key holds an escape
}

// pairwiseKeys is how many keys an object may have before they go into a
// set: up to it, a key is compared with each earlier one, without
// allocating; after it, the work stays linear in the number of keys.
const pairwiseKeys = 16

// addKey adds key to the keys of the object top, whose keys so far are
// keys[top.first:] or, once it has many, top.folded, and reports whether the
// object already had it, exactly or but for case.
func addKey(doc []byte, keys []keySpan, top *frame, key keySpan) ([]keySpan, bool) {
	k := doc[key.start:key.end]
	if top.folded == nil {
		earlier := keys[top.first:]
		for _, e := range earlier {
			if keysFoldEqual(doc[e.start:e.end], k, e.escaped || key.escaped) {
				return keys, true
			}
		}
		if len(earlier)+1 < pairwiseKeys {
			return append(keys, key), false
		}
		top.folded = make(map[string]struct{}, 2*pairwiseKeys)
		for _, e := range earlier {
			top.folded[foldKey(doc[e.start:e.end])] = struct{}{}
		}
		top.folded[foldKey(k)] = struct{}{}
		return keys[:top.first], false
	}
	folded := foldKey(k)
	if _, dup := top.folded[folded]; dup {
		return keys, true
	}
	top.folded[folded] = struct{}{}
	return keys, false
}

// keysFoldEqual compares two raw JSON keys (without their quotes) under
// Unicode case folding, decoding their escapes when they have any.
func keysFoldEqual(a, b []byte, escaped bool) bool {
	if !escaped {
		return bytes.EqualFold(a, b)
	}
	return strings.EqualFold(KeyText(a), KeyText(b))
}

// KeyText decodes a raw JSON key (without its quotes), such as
// Result.DupKey, as encoding/json would.
func KeyText(raw []byte) string {
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
	var b strings.Builder
	s := KeyText(raw)
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
