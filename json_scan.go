package reflection

// JSONLimits bounds a scan. A field of 0 or below sets no limit.
type JSONLimits struct {
	Depth          int // nesting of objects and arrays
	Tokens         int // values and keys
	Objects        int // objects
	NumberLength   int // bytes of one number literal
	NumberExponent int // the exponent of one number literal, either sign
}

// JSONLimit names the field of JSONLimits a scan stopped at.
type JSONLimit uint8

// The limits a scan can stop at.
const (
	JSONNoLimit JSONLimit = iota
	JSONLimitDepth
	JSONLimitTokens
	JSONLimitObjects
	JSONLimitNumberLength
	JSONLimitNumberExponent
)

// JSONStats is what a scan counted, up to where it stopped.
type JSONStats struct {
	Depth       int // the deepest nesting of objects and arrays
	Tokens      int // values and keys
	Objects     int
	MaxString   int // the longest string, keys included, in raw bytes between its quotes
	MaxKey      int // the longest object key, likewise
	MaxNumber   int // the longest number literal, in bytes
	MaxExponent int // the largest exponent of a number literal, either sign, at most MaxCountedJSONExponent
}

// MaxCountedJSONExponent is where JSONStats.MaxExponent stops counting.
const MaxCountedJSONExponent = 1 << 30

// JSONScan is what Scan found.
type JSONScan struct {
	JSONStats

	// Valid is true when the text is exactly one JSON value, with white
	// space around it allowed: what json.Valid accepts. Object is true when
	// that value is also an object.
	Valid, Object bool

	// Over is the limit the scan stopped at, or JSONNoLimit. A scan that stopped
	// is neither Valid nor an Object; JSONStats holds the count that broke the
	// limit (Depth, Tokens or Objects one above it), and Number the literal
	// that did.
	Over   JSONLimit
	Number []byte

	// Dup is true when some object repeats one of its keys, exactly or under
	// Unicode case folding; DupKey is then the first such key in the text,
	// raw (escapes not decoded), without its quotes. A text is checked for
	// repeated keys up to where the scan stopped, valid or not.
	Dup    bool
	DupKey []byte
}

// maxJSONNesting is how deep arrays and objects may nest in a valid text:
// encoding/json's limit.
const maxJSONNesting = 10000

// maxJSONText is the size of the largest text Scan reads.
const maxJSONText = 1<<31 - 1

// What Scan expects next.
const (
	wantValue = iota // a value
	wantKey          // an object's key (and its colon)
	wantAfter        // a comma, a closing bracket, or the end
)

// ScanJSON reads a JSON text in one pass without decoding it. It answers the
// questions the library's own checks ask before anything decodes a text a
// model or a third party wrote (the Driver's check of an InputFix, the llm
// Reflector's limits on tool schemas and inputs), and that a host's own
// input check may ask too: is it exactly one JSON value (encoding/json's
// grammar and nesting limit), is that value an object, does an object in it
// repeat a key (exactly, or under Unicode case folding once escapes are
// decoded: parsers disagree on such objects), and how large is it (nesting,
// values, objects, strings, numbers), stopping at the first limit it breaks.
// A small, plain text is scanned without allocating.
//
// b is read up to its first syntax error, or to the first limit of lim
// it breaks.
func ScanJSON(b []byte, lim JSONLimits) (r JSONScan) {
	var (
		frameBuf  [8]jsonFrame
		keyBuf    [16]jsonKeySpan
		frames    = frameBuf[:0]
		keys      = keyBuf[:0]
		maxTokens = orMaxInt(lim.Tokens)
		maxObj    = orMaxInt(lim.Objects)
		maxNumLen = orMaxInt(lim.NumberLength)
		maxExp    = orMaxInt(lim.NumberExponent)
		maxDepth  = maxJSONNesting
	)
	if lim.Depth > 0 && lim.Depth <= maxJSONNesting {
		maxDepth = lim.Depth
	}
	if len(b) > maxJSONText {
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
				r.Over = JSONLimitTokens
				return
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				if c == '{' {
					if r.Objects++; r.Objects > maxObj {
						r.Over = JSONLimitObjects
						return
					}
				}
				if len(frames) == maxDepth {
					if maxDepth == lim.Depth {
						r.Depth, r.Over = maxDepth+1, JSONLimitDepth
					}
					return
				}
				frames = append(frames, jsonFrame{object: c == '{', first: int32(len(keys))})
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
					r.Over, r.Number = JSONLimitNumberLength, b[i:end]
					return
				case exp > maxExp:
					r.Over, r.Number = JSONLimitNumberExponent, b[i:end]
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
				r.Over = JSONLimitTokens
				return
			}
			end, escaped, ok := stringEnd(b, i)
			if !ok {
				return
			}
			size := end - i - 2
			r.MaxString, r.MaxKey = max(r.MaxString, size), max(r.MaxKey, size)
			if !r.Dup {
				key, top := jsonKeySpan{int32(i + 1), int32(end - 1), escaped}, &frames[len(frames)-1]
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
