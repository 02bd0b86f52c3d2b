package jsonscan

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// hasWord reports whether b holds word at i.
func hasWord(b []byte, i int, word string) bool {
	return len(b)-i >= len(word) && string(b[i:i+len(word)]) == word
}

// stringEnd returns the index just past the JSON string that starts at
// b[start] (a quote), and whether it holds an escape; ok is false when it is
// not a valid string: a control character, an unknown escape or the end of b
// comes first. Like encoding/json, it does not check UTF-8.
func stringEnd(b []byte, start int) (end int, escaped, ok bool) {
	for i := start + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c < 0x20:
			return i, escaped, false
		case c == '\\':
			if i, escaped = i+1, true; i >= len(b) {
				return i, escaped, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, escaped, false
				}
				i += 4
			default:
				return i, escaped, false
			}
		}
	}
	return len(b), escaped, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// numberEnd returns the index just past the JSON number at b[i] and the
// value of its exponent, either sign, counted up to MaxCountedExponent; false
// when it is not a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) (end, exp int, ok bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return i, 0, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, 0, false
		}
		i = digitsEnd(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, 0, false
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			exp = min(exp*10+int(b[i]-'0'), MaxCountedExponent)
		}
	}
	return i, exp, true
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
