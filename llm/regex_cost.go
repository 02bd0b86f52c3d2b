package llm

import (
	"strings"
	"unicode/utf8"
)

// What a regular expression costs, in checks of the validation budget (a
// check is about a microsecond of the validator's work), worked out before
// any of the work is done. Go's regexp parser is linear in the text but for
// two things: a Unicode class such as \pL copies a table of hundreds of
// ranges (some 30 µs when merged with other ranges in a class), and a range
// of a case-insensitive class, such as (?i)[Ā-𞥃], is folded one rune at a
// time (125,000 runes, about 3 ms, in 13 bytes). Compiling then costs about
// 0.2 µs per instruction of the program, whose size programSize finds. The
// units below are those figures, rounded towards charging more.
const (
	unicodeClassCost = 64 // checks to parse one \p or \P class: up to some 30 µs, merged with others
	foldUnit         = 16 // runes folded one by one per check
	compileUnit      = 8  // instructions compiled per check
)

// The runes regexp/syntax folds one by one: outside them, no rune has
// another case.
const (
	minFold = 0x0041
	maxFold = 0x1e943
)

// parseCost is what parsing p costs, read from its text alone: one check per
// byte, unicodeClassCost per Unicode class, and, when p turns on case
// folding, one per foldUnit runes of its ranges.
func parseCost(p string) int {
	cost := 1 + len(p) + unicodeClassCost*(strings.Count(p, `\p`)+strings.Count(p, `\P`))
	if foldsCase(p) {
		cost = add(cost, foldedRunes(p)/foldUnit)
	}
	return cost
}

// foldsCase reports whether p turns case folding on somewhere: whether one
// of its flag groups, such as (?i) or (?s-i:...), holds the flag i.
func foldsCase(p string) bool {
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\':
			i++ // the escaped character does not open a group
		case p[i] == '(' && i+1 < len(p) && p[i+1] == '?':
			for j := i + 2; j < len(p) && strings.IndexByte("imsU-", p[j]) >= 0; j++ {
				if p[j] == 'i' {
					return true
				}
			}
		}
	}
	return false
}

// foldedRunes bounds from above how many runes the parser folds one by one
// in p, were case folding on throughout: the runes between minFold and
// maxFold of each range lo-hi whose ends are single characters (a range
// that covers the whole span is taken whole, without folding). It reads p
// as a sequence of characters and escapes, without telling classes from the
// rest, so it can only count more.
func foldedRunes(p string) int {
	total, prev := 0, rune(-1)
	for len(p) > 0 {
		r, n, single := classChar(p)
		p = p[n:]
		if !(r == '-' && n == 1 && prev >= 0) {
			prev = -1
			if single {
				prev = r
			}
			continue
		}
		hi, n2, single := classChar(p)
		if !single {
			prev = '-'
			continue
		}
		p = p[n2:]
		if lo := max(prev, minFold); prev <= hi && !(prev <= minFold && hi >= maxFold) && lo <= min(hi, maxFold) {
			total = add(total, int(min(hi, maxFold)-lo+1))
		}
		prev = -1
	}
	return total
}

// classChar reads the character or escape at the start of p as the parser
// reads one end of a class range: n bytes, standing for the single rune r
// when single is true.
func classChar(p string) (r rune, n int, single bool) {
	if p[0] != '\\' {
		r, n = utf8.DecodeRuneInString(p)
		return r, n, true
	}
	if len(p) == 1 {
		return 0, 1, false
	}
	switch c := p[1]; {
	case c >= '0' && c <= '7':
		n = 2
		for n < len(p) && n < 4 && p[n] >= '0' && p[n] <= '7' {
			n++
		}
		if c != '0' && n == 2 { // \1 alone is a back reference, which the parser refuses
			return 0, 2, false
		}
		for _, d := range p[1:n] {
			r = r*8 + d - '0'
		}
		return r, n, true
	case c == 'x':
		return hexEscape(p)
	case strings.IndexByte("afnrtv", c) >= 0:
		return rune("\a\f\n\r\t\v"[strings.IndexByte("afnrtv", c)]), 2, true
	case c < utf8.RuneSelf && !isAlnum(c): // \_ included, as the parser allows
		return rune(c), 2, true
	case (c == 'p' || c == 'P') && len(p) > 2 && p[2] == '{':
		if end := strings.IndexByte(p, '}'); end > 0 {
			return 0, end + 1, false
		}
	case c == 'p' || c == 'P':
		_, size := utf8.DecodeRuneInString(p[2:])
		return 0, 2 + size, false
	}
	_, size := utf8.DecodeRuneInString(p[1:])
	return 0, 1 + size, false
}

// hexEscape reads \xHH or \x{H...} at the start of p.
func hexEscape(p string) (r rune, n int, single bool) {
	if len(p) >= 4 && p[2] != '{' {
		hi, lo := unhex(p[2]), unhex(p[3])
		if hi < 0 || lo < 0 {
			return 0, 2, false
		}
		return hi<<4 | lo, 4, true
	}
	n = 3
	for ; n < len(p) && p[n] != '}'; n++ {
		d := unhex(p[n])
		if d < 0 || r > utf8.MaxRune {
			return 0, 2, false
		}
		r = r<<4 | d
	}
	if n == 3 || n >= len(p) || r > utf8.MaxRune {
		return 0, 2, false
	}
	return r, n + 1, true
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
