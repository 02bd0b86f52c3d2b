package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// jsonStats is what one pass over a JSON text found.
type jsonStats struct {
	depth     int // the deepest nesting of objects and arrays
	tokens    int // values and keys
	objects   int
	maxString int // the longest string, keys included, in raw bytes between its quotes
	maxKey    int // the longest object key, likewise
}

// scanRules says what scanJSON enforces. A zero count is no limit.
type scanRules struct {
	what           string // "tool schema" or "input", for the error
	depth          int
	depthOption    string
	tokens         int
	objects        int
	numberLength   int
	numberExponent int
	duplicateKeys  bool // refuse an object whose keys repeat, exactly or but for case
}

// schemaRules and inputRules are the rules for a tool schema and for an input
// to validate against one.
func (l *limits) schemaRules() scanRules {
	return scanRules{what: "tool schema", depth: l.schemaDepth, depthOption: "WithMaxSchemaDepth",
		objects: l.schemaObjects, numberLength: l.numberLength, numberExponent: l.numberExponent}
}

func (l *limits) inputRules() scanRules {
	return scanRules{what: "input", depth: l.inputDepth, depthOption: "WithMaxInputDepth",
		tokens: l.inputTokens, numberLength: l.numberLength, numberExponent: l.numberExponent, duplicateKeys: true}
}

// scanFrame is one open object or array.
type scanFrame struct {
	object    bool
	expectKey bool                // in an object: the next string is a key
	keysFrom  int                 // where this object's keys start in the key stack
	folded    map[string]struct{} // this object's folded keys, once it has many
}

// foldedKeysFrom is the number of keys after which an object's keys are kept
// in a map instead of being compared pairwise.
const foldedKeysFrom = 16

// scanJSON makes one pass over b, a JSON text, and stops at the first limit
// of rules it breaks, with a *limitError. It allocates nothing for a small,
// plain input. Text that is not JSON is scanned without harm and without
// error: decoding it fails later.
func scanJSON(b []byte, rules *scanRules) (jsonStats, error) {
	var (
		st           jsonStats
		frameBacking [DefaultMaxInputDepth + 1]scanFrame
		keyBacking   [32][]byte
		frames       = frameBacking[:0]
		keys         = keyBacking[:0]
	)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '{' || c == '[':
			st.tokens++
			if c == '{' {
				st.objects++
				if rules.objects > 0 && st.objects > rules.objects {
					return st, &limitError{rules.what, more("JSON objects", st.objects, rules.objects), "WithMaxSchemaObjects"}
				}
			}
			st.depth = max(st.depth, len(frames)+1)
			if rules.depth > 0 && st.depth > rules.depth {
				return st, &limitError{rules.what, over("nesting depth", st.depth, rules.depth), rules.depthOption}
			}
			frames = append(frames, scanFrame{object: c == '{', expectKey: c == '{', keysFrom: len(keys)})
			i++
		case c == '}' || c == ']':
			if n := len(frames); n > 0 {
				keys = keys[:frames[n-1].keysFrom]
				frames = frames[:n-1]
			}
			i++
		case c == ',':
			if n := len(frames); n > 0 && frames[n-1].object {
				frames[n-1].expectKey = true
			}
			i++
		case c == '"':
			end := stringEnd(b, i+1)
			size := end - (i + 1)
			st.maxString = max(st.maxString, size)
			st.tokens++
			if n := len(frames); n > 0 && frames[n-1].object && frames[n-1].expectKey {
				frames[n-1].expectKey = false
				st.maxKey = max(st.maxKey, size)
				if rules.duplicateKeys {
					var dup bool
					keys, dup = addKey(keys, &frames[n-1], b[i+1:end])
					if dup {
						return st, &duplicateKeyError{key: string(keyText(b[i+1 : end]))}
					}
				}
			}
			i = end + 1
		case c == '-' || ('0' <= c && c <= '9'):
			end := i + 1
			for end < len(b) && isNumberByte(b[end]) {
				end++
			}
			st.tokens++
			if err := checkNumber(b[i:end], rules); err != nil {
				return st, err
			}
			i = end
		case 'a' <= c && c <= 'z': // true, false, null
			st.tokens++
			for i < len(b) && 'a' <= b[i] && b[i] <= 'z' {
				i++
			}
		default: // white space, ':' and anything that is not JSON
			i++
			continue
		}
		if rules.tokens > 0 && st.tokens > rules.tokens {
			return st, &limitError{rules.what, more("values and keys", st.tokens, rules.tokens), "WithMaxInputTokens"}
		}
	}
	return st, nil
}

// stringEnd returns the index of the quote that closes the string whose
// first byte is at i, or len(b) when it is not closed.
func stringEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
		case '"':
			return i
		default:
			i++
		}
	}
	return len(b)
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// checkNumber enforces the limits on one number literal.
func checkNumber(lit []byte, rules *scanRules) error {
	if rules.numberLength > 0 && len(lit) > rules.numberLength {
		return &limitError{rules.what, "has a number literal of " + strconv.Itoa(len(lit)) +
			" bytes, more than the limit of " + strconv.Itoa(rules.numberLength), "WithMaxNumberLength"}
	}
	e := bytes.IndexAny(lit, "eE")
	if e < 0 || rules.numberExponent <= 0 {
		return nil
	}
	exp := 0
	for _, c := range lit[e+1:] {
		if '0' <= c && c <= '9' {
			exp = exp*10 + int(c-'0')
			if exp > rules.numberExponent {
				shown := lit
				if len(shown) > 32 {
					shown = shown[:32]
				}
				return &limitError{rules.what, "has the number " + string(shown) + " whose exponent exceeds the limit of " +
					strconv.Itoa(rules.numberExponent), "WithMaxNumberExponent"}
			}
		}
	}
	return nil
}

// addKey records key as a key of the object f and reports whether the object
// already had it, exactly or but for case.
func addKey(keys [][]byte, f *scanFrame, key []byte) ([][]byte, bool) {
	key = keyText(key)
	if f.folded != nil {
		k := foldKey(key)
		if _, ok := f.folded[k]; ok {
			return keys, true
		}
		f.folded[k] = struct{}{}
		return keys, false
	}
	for _, k := range keys[f.keysFrom:] {
		if bytes.EqualFold(k, key) {
			return keys, true
		}
	}
	keys = append(keys, key)
	if len(keys)-f.keysFrom >= foldedKeysFrom {
		f.folded = make(map[string]struct{}, 2*foldedKeysFrom)
		for _, k := range keys[f.keysFrom:] {
			f.folded[foldKey(k)] = struct{}{}
		}
		keys = keys[:f.keysFrom]
	}
	return keys, false
}

// keyText returns the text of a key as raw bytes between its quotes, with its
// escapes decoded when it has any.
func keyText(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return raw
	}
	return []byte(s)
}

// foldKey maps a key to one representative of every key that bytes.EqualFold
// finds equal to it: each rune becomes the smallest rune of its case-folding
// orbit.
func foldKey(key []byte) string {
	out := make([]byte, 0, len(key))
	for len(key) > 0 {
		r, n := utf8.DecodeRune(key)
		key = key[n:]
		smallest := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			smallest = min(smallest, f)
		}
		out = utf8.AppendRune(out, smallest)
	}
	return string(out)
}

// duplicateKeyError reports an object whose keys repeat. A schema validator
// sees only one of them, and a Go program that decodes the object into a
// struct matches keys regardless of case, so such an input could pass the
// check with one value and reach the tool with another.
type duplicateKeyError struct{ key string }

func (e *duplicateKeyError) Error() string {
	return "llm: input has the key " + strconv.Quote(e.key) +
		" more than once (keys that differ only in case count as the same key)"
}
