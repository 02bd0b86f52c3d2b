// Package jsonscan reads a JSON text in one pass, without decoding it: is it
// one valid value, is that value an object, does an object repeat a key, and
// how large is it. The root package checks a corrected input with it, and
// the llm package enforces its limits on tool schemas and inputs with it.
// It imports only the standard library.
package jsonscan

// Limits bounds a scan. A field of 0 or below sets no limit.
type Limits struct {
	Depth          int // nesting of objects and arrays
	Tokens         int // values and keys
	Objects        int // objects
	NumberLength   int // bytes of one number literal
	NumberExponent int // the exponent of one number literal, either sign
}

// Limit names the field of Limits a scan stopped at.
type Limit uint8

// The limits a scan can stop at.
const (
	NoLimit Limit = iota
	LimitDepth
	LimitTokens
	LimitObjects
	LimitNumberLength
	LimitNumberExponent
)

// Stats is what a scan counted, up to where it stopped.
type Stats struct {
	Depth       int // the deepest nesting of objects and arrays
	Tokens      int // values and keys
	Objects     int
	MaxString   int // the longest string, keys included, in raw bytes between its quotes
	MaxKey      int // the longest object key, likewise
	MaxNumber   int // the longest number literal, in bytes
	MaxExponent int // the largest exponent of a number literal, either sign, at most MaxCountedExponent
}

// MaxCountedExponent is where Stats.MaxExponent stops counting.
const MaxCountedExponent = 1 << 30

// Result is what Scan found.
type Result struct {
	Stats

	// Valid is true when the text is exactly one JSON value, with white
	// space around it allowed: what json.Valid accepts. Object is true when
	// that value is also an object.
	Valid, Object bool

	// Over is the limit the scan stopped at, or NoLimit. A scan that stopped
	// is neither Valid nor an Object; Stats holds the count that broke the
	// limit (Depth, Tokens or Objects one above it), and Number the literal
	// that did.
	Over   Limit
	Number []byte

	// Dup is true when some object repeats one of its keys, exactly or under
	// Unicode case folding; DupKey is then the first such key in the text,
	// raw (escapes not decoded), without its quotes. A text is checked for
	// repeated keys up to where the scan stopped, valid or not.
	Dup    bool
	DupKey []byte
}

// maxNesting is how deep arrays and objects may nest in a valid text:
// encoding/json's limit.
const maxNesting = 10000

// maxText is the size of the largest text Scan reads.
const maxText = 1<<31 - 1

// What Scan expects next.
const (
	wantValue = iota // a value
	wantKey          // an object's key (and its colon)
	wantAfter        // a comma, a closing bracket, or the end
)

// Scan reads a JSON text in one pass without decoding it. It answers the
// questions the library's own checks ask before anything decodes a text a
// model or a third party wrote (the Driver's check of an InputFix, the llm
// Reflector's limits on tool schemas and inputs): is it exactly one JSON value (encoding/json's
// grammar and nesting limit), is that value an object, does an object in it
// repeat a key (exactly, or under Unicode case folding once escapes are
// decoded: parsers disagree on such objects), and how large is it (nesting,
// values, objects, strings, numbers), stopping at the first limit it breaks.
// A small, plain text is scanned without allocating.
//
// b is read up to its first syntax error, or to the first limit of lim
// it breaks.
func Scan(b []byte, lim Limits) (r Result) {
	var (
		frameBuf  [8]frame
		keyBuf    [16]keySpan
		frames    = frameBuf[:0]
		keys      = keyBuf[:0]
		maxTokens = orMaxInt(lim.Tokens)
		maxObj    = orMaxInt(lim.Objects)
		maxNumLen = orMaxInt(lim.NumberLength)
		maxExp    = orMaxInt(lim.NumberExponent)
		maxDepth  = maxNesting
	)
	if lim.Depth > 0 && lim.Depth <= maxNesting {
		maxDepth = lim.Depth
	}
	if len(b) > maxText {
		return
	}
	i := 0
	state := wantValue
	for {
		i = skipSpace(b, i)
		switch state {
		case wantValue:
			if i >= len(b) {
				return
			}
			if r.Tokens++; r.Tokens > maxTokens {
				r.Over = LimitTokens
				return
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				if c == '{' {
					if r.Objects++; r.Objects > maxObj {
						r.Over = LimitObjects
						return
					}
				}
				if len(frames) == maxDepth {
					if maxDepth == lim.Depth {
						r.Depth, r.Over = maxDepth+1, LimitDepth
					}
					return
				}
				frames = append(frames, frame{object: c == '{', first: int32(len(keys))})
				r.Depth = max(r.Depth, len(frames))
				i = skipSpace(b, i+1)
				closing := byte(']')
				if c == '{' {
					closing, state = '}', wantKey
				}
				if i < len(b) && b[i] == closing {
					i++
					frames = frames[:len(frames)-1]
					state = wantAfter
				}
				continue
			case c == '"':
				end, _, ok := stringEnd(b, i)
				if !ok {
					return
				}
				r.MaxString = max(r.MaxString, end-i-2)
				i = end
			case c == '-' || c >= '0' && c <= '9':
				end, exp, ok := numberEnd(b, i)
				if !ok {
					return
				}
				r.MaxNumber, r.MaxExponent = max(r.MaxNumber, end-i), max(r.MaxExponent, exp)
				switch {
				case end-i > maxNumLen:
					r.Over, r.Number = LimitNumberLength, b[i:end]
					return
				case exp > maxExp:
					r.Over, r.Number = LimitNumberExponent, b[i:end]
					return
				}
				i = end
			case c == 't' && hasWord(b, i, "true"):
				i += 4
			case c == 'f' && hasWord(b, i, "false"):
				i += 5
			case c == 'n' && hasWord(b, i, "null"):
				i += 4
			default:
				return
			}
			state = wantAfter
		case wantKey:
			if i >= len(b) || b[i] != '"' {
				return
			}
			if r.Tokens++; r.Tokens > maxTokens {
				r.Over = LimitTokens
				return
			}
			end, escaped, ok := stringEnd(b, i)
			if !ok {
				return
			}
			size := end - i - 2
			r.MaxString, r.MaxKey = max(r.MaxString, size), max(r.MaxKey, size)
			if !r.Dup {
				key, top := keySpan{int32(i + 1), int32(end - 1), escaped}, &frames[len(frames)-1]
				var dup bool
				if int(top.first) == len(keys) && top.folded == nil {
					keys = append(keys, key) // the object's first key: nothing to compare
				} else if keys, dup = addKey(b, keys, top, key); dup {
					r.Dup, r.DupKey = true, b[i+1:end-1]
				}
			}
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return
			}
			i++
			state = wantValue
		case wantAfter:
			if len(frames) == 0 {
				r.Valid = i == len(b)
				r.Object = r.Valid && b[skipSpace(b, 0)] == '{'
				return
			}
			top := &frames[len(frames)-1]
			switch {
			case i >= len(b):
				return
			case b[i] == ',':
				state = wantValue
				if top.object {
					state = wantKey
				}
			case b[i] == '}' && top.object, b[i] == ']' && !top.object:
				keys = keys[:top.first]
				frames = frames[:len(frames)-1]
			default:
				return
			}
			i++
		}
	}
}

// orMaxInt returns n, or the largest int when n sets no limit.
func orMaxInt(n int) int {
	if n <= 0 {
		return int(^uint(0) >> 1)
	}
	return n
}
