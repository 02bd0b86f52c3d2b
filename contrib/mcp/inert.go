package reflectionmcp

import (
	"unicode"
	"unicode/utf8"
)

// inert returns a server's string as it may stand inside a placeholder: on
// one line, with nothing a terminal or a model could take for more than
// text. Line breaks and other white space controls become spaces; every
// other control or format character (ESC, BEL, DEL, the C1 controls such as
// CSI and OSC, bidirectional overrides, zero-width characters) and invalid
// UTF-8 become U+FFFD. The result is cut to maxPlaceholderField bytes, with
// "…" when something was cut.
func inert(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			clean = false
			break
		}
	}
	if clean && len(s) <= maxPlaceholderField {
		return s
	}
	out := make([]rune, 0, min(len(s), maxPlaceholderField))
	size := 0
	for _, r := range s {
		switch {
		case r == '\n', r == '\r', r == '\t', r == '\v', r == '\f', r == 0x85, unicode.In(r, unicode.Zl, unicode.Zp):
			r = ' '
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			r = utf8.RuneError
		}
		if size+utf8.RuneLen(r) > maxPlaceholderField {
			return string(out) + "…"
		}
		size += utf8.RuneLen(r)
		out = append(out, r)
	}
	return string(out)
}
