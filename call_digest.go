package reflection

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
	"unicode/utf8"
)

// canonicalAppend appends to dst one text per JSON value of src: no
// insignificant space, object members sorted by key (the last of a repeated
// key kept, as encoding/json keeps it), strings with their escapes decoded
// and written one way, numbers as written. It is what the loop detector and
// the effect memory hash a call's input by: it reads src once and allocates
// little, where a round trip through encoding/json costs a tree of values.
// It reports false, with dst as it was, when src is not one JSON value or
// nests deeper than maxCanonicalDepth.
func canonicalAppend(dst, src []byte) ([]byte, bool) {
	c := canonicalizer{src: src}
	return c.append(dst)
}

// append is canonicalAppend with c's room.
func (c *canonicalizer) append(dst []byte) ([]byte, bool) {
	src := c.src
	c.i = 0
	out, ok := c.value(dst, 0)
	if !ok {
		return dst, false
	}
	c.space()
	if c.i != len(src) {
		return dst, false
	}
	return out, true
}

// maxCanonicalDepth bounds the nesting canonicalAppend follows.
const maxCanonicalDepth = 1000

type canonicalizer struct {
	src []byte
	i   int

	// Room reused from one object to the next, one per depth (the members
	// of one object are done before a sibling's start), so that a digest
	// allocates nothing once its pooled canonicalizer has grown.
	levels []canonLevel
	text   []byte // a string's decoded text
}

// canonLevel is the room of the objects at one depth: their members'
// canonical values, their keys, and where each member lies in them.
type canonLevel struct {
	values  []byte
	keys    []byte
	members []member
}

func (c *canonicalizer) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value appends the canonical text of the value at c.i.
func (c *canonicalizer) value(dst []byte, depth int) ([]byte, bool) {
	c.space()
	if c.i >= len(c.src) || depth > maxCanonicalDepth {
		return dst, false
	}
	switch b := c.src[c.i]; {
	case b == '{':
		return c.object(dst, depth)
	case b == '[':
		return c.array(dst, depth)
	case b == '"':
		if end, plain := c.plainString(); plain {
			dst = append(dst, c.src[c.i:end]...)
			c.i = end
			return dst, true
		}
		var ok bool
		if c.text, ok = c.str(c.text[:0]); !ok {
			return dst, false
		}
		return appendCanonicalString(dst, c.text), true
	case b == 't':
		return c.literal(dst, "true")
	case b == 'f':
		return c.literal(dst, "false")
	case b == 'n':
		return c.literal(dst, "null")
	case b == '-' || b >= '0' && b <= '9':
		return c.number(dst)
	}
	return dst, false
}

func (c *canonicalizer) literal(dst []byte, word string) ([]byte, bool) {
	if !bytes.HasPrefix(c.src[c.i:], []byte(word)) {
		return dst, false
	}
	c.i += len(word)
	return append(dst, word...), true
}

// number appends a number as written, once its grammar is checked.
func (c *canonicalizer) number(dst []byte) ([]byte, bool) {
	start := c.i
	if c.src[c.i] == '-' {
		c.i++
	}
	digits := func() int {
		n := 0
		for c.i < len(c.src) && c.src[c.i] >= '0' && c.src[c.i] <= '9' {
			c.i++
			n++
		}
		return n
	}
	if c.i < len(c.src) && c.src[c.i] == '0' {
		c.i++
	} else if digits() == 0 {
		return dst, false
	}
	if c.i < len(c.src) && c.src[c.i] == '.' {
		c.i++
		if digits() == 0 {
			return dst, false
		}
	}
	if c.i < len(c.src) && (c.src[c.i] == 'e' || c.src[c.i] == 'E') {
		c.i++
		if c.i < len(c.src) && (c.src[c.i] == '+' || c.src[c.i] == '-') {
			c.i++
		}
		if digits() == 0 {
			return dst, false
		}
	}
	return append(dst, c.src[start:c.i]...), true
}

func (c *canonicalizer) array(dst []byte, depth int) ([]byte, bool) {
	c.i++ // [
	dst = append(dst, '[')
	c.space()
	if c.i < len(c.src) && c.src[c.i] == ']' {
		c.i++
		return append(dst, ']'), true
	}
	for n := 0; ; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = c.value(dst, depth+1); !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.src) {
			return dst, false
		}
		switch c.src[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// member is one member of an object: where its decoded key lies in the
// level's keys, and where its canonical value lies in the level's values.
type member struct {
	key, keyEnd int
	start, end  int
}

// level returns the room of the objects at depth, emptied.
func (c *canonicalizer) level(depth int) *canonLevel {
	for len(c.levels) <= depth {
		c.levels = append(c.levels, canonLevel{})
	}
	l := &c.levels[depth]
	l.values, l.keys, l.members = l.values[:0], l.keys[:0], l.members[:0]
	return l
}

func (c *canonicalizer) object(dst []byte, depth int) ([]byte, bool) {
	c.i++ // {
	c.space()
	if c.i < len(c.src) && c.src[c.i] == '}' {
		c.i++
		return append(dst, '{', '}'), true
	}
	l := c.level(depth)
	for {
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != '"' {
			return dst, false
		}
		keyStart := len(l.keys)
		var ok bool
		if l.keys, ok = c.str(l.keys); !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != ':' {
			return dst, false
		}
		c.i++
		start := len(l.values)
		values, ok := c.value(l.values, depth+1)
		l = &c.levels[depth] // a deeper object may have grown the levels
		l.values = values
		if !ok {
			return dst, false
		}
		l.members = append(l.members, member{key: keyStart, keyEnd: len(l.keys), start: start, end: len(l.values)})
		c.space()
		if c.i >= len(c.src) {
			return dst, false
		}
		if c.src[c.i] == '}' {
			c.i++
			break
		}
		if c.src[c.i] != ',' {
			return dst, false
		}
		c.i++
	}
	// Sort by key, keeping the order of a repeated key's members, so the
	// last of them is the one kept.
	keyOf := func(m member) []byte { return l.keys[m.key:m.keyEnd] }
	slices.SortStableFunc(l.members, func(a, b member) int { return bytes.Compare(keyOf(a), keyOf(b)) })
	dst = append(dst, '{')
	n := 0
	for k, m := range l.members {
		if k+1 < len(l.members) && bytes.Equal(keyOf(l.members[k+1]), keyOf(m)) {
			continue // a later member has the same key
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendCanonicalString(dst, keyOf(m))
		dst = append(dst, ':')
		dst = append(dst, l.values[m.start:m.end]...)
	}
	return append(dst, '}'), true
}

// plainString reports whether the string at c.i has no escape and no
// control byte, so its text is already canonical, and where it ends.
func (c *canonicalizer) plainString() (end int, plain bool) {
	for j := c.i + 1; j < len(c.src); j++ {
		switch b := c.src[j]; {
		case b == '"':
			return j + 1, true
		case b == '\\' || b < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// str decodes the string at c.i into buf.
func (c *canonicalizer) str(buf []byte) ([]byte, bool) {
	c.i++ // the opening quote
	for c.i < len(c.src) {
		b := c.src[c.i]
		switch {
		case b == '"':
			c.i++
			return buf, true
		case b < 0x20:
			return buf, false
		case b != '\\':
			buf = append(buf, b)
			c.i++
			continue
		}
		if c.i+1 >= len(c.src) {
			return buf, false
		}
		esc := c.src[c.i+1]
		c.i += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := c.hex4()
			if !ok {
				return buf, false
			}
			if r >= 0xD800 && r < 0xDC00 && c.i+1 < len(c.src) && c.src[c.i] == '\\' && c.src[c.i+1] == 'u' {
				save := c.i
				c.i += 2
				if lo, ok := c.hex4(); ok && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					c.i = save
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError // a lone surrogate, as encoding/json reads it
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return buf, false
		}
	}
	return buf, false
}

func (c *canonicalizer) hex4() (rune, bool) {
	if c.i+4 > len(c.src) {
		return 0, false
	}
	var r rune
	for _, b := range c.src[c.i : c.i+4] {
		switch {
		case b >= '0' && b <= '9':
			r = r<<4 | rune(b-'0')
		case b >= 'a' && b <= 'f':
			r = r<<4 | rune(b-'a'+10)
		case b >= 'A' && b <= 'F':
			r = r<<4 | rune(b-'A'+10)
		default:
			return 0, false
		}
	}
	c.i += 4
	return r, true
}

// appendCanonicalString writes s as a JSON string one way: the quote, the
// backslash and control bytes escaped, everything else as it is.
func appendCanonicalString(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for _, b := range s {
		switch {
		case b == '"' || b == '\\':
			dst = append(dst, '\\', b)
		case b < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
		default:
			dst = append(dst, b)
		}
	}
	return append(dst, '"')
}

// digestRoom is what callDigest reuses from one call to the next: a
// canonicalizer's room and the bytes it hashes.
type digestRoom struct {
	c   canonicalizer
	buf []byte
}

var digestRooms = sync.Pool{New: func() any { return new(digestRoom) }}

// maxPooledRoom is the most a pooled room keeps: a digest of a larger
// input lets its room go, so the pool does not hold on to megabytes.
const maxPooledRoom = 64 << 10

// callDigest identifies a tool and its input as a JSON value: SHA-256 of the
// tool's name and the input's canonical text, each after its length, so no
// two calls hash the same bytes. An input that is not JSON is hashed as it
// is. It allocates nothing once the pool has room of the size an input
// needs, so the lookup every call of a guarded tool makes stays free.
func callDigest(call ToolCall) digest {
	room := digestRooms.Get().(*digestRoom)
	b := appendField(room.buf[:0], []byte(call.Name))
	lenAt := len(b)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // the input's length, known once it is written
	room.c.src = call.Input
	if out, ok := room.c.append(b); ok {
		b = out
	} else {
		b = append(b, call.Input...)
	}
	binary.BigEndian.PutUint64(b[lenAt:], uint64(len(b)-lenAt-8))
	d := digest(sha256.Sum256(b))
	room.c.src = nil
	if cap(b) <= maxPooledRoom {
		room.buf = b
		digestRooms.Put(room)
	}
	return d
}

// appendField appends b to dst after its length.
func appendField(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(b)))
	return append(dst, b...)
}
