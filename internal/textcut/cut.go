// Package textcut shortens a text the way the library shortens every text it
// quotes: in a recovery note, in a model's prompt, in an error that quotes an
// answer. The root package and the llm package both cut with it, so a cut
// text reads the same wherever it appears. It imports only the standard
// library.
package textcut

import (
	"strconv"
	"unicode/utf8"
)

// Cut returns s when it is at most limit bytes long, and otherwise the
// longest prefix of s of at most limit bytes that ends on a UTF-8 boundary,
// followed by a marker that says how many bytes were dropped, such as
// "…[truncated 812 bytes]". A limit below 0 counts as 0.
func Cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := max(limit, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}
