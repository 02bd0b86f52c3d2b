// Package scrub runs a host's redactor on a text the way the library does
// for every text it writes out: the Driver's log, and the spans and events of
// contrib/otel. It imports only the standard library.
package scrub

// Withheld stands for a text whose redactor panicked.
const Withheld = "[redactor panicked; text withheld]"

// Text returns redact(text). A nil redact returns text as it is, and a
// redact that panics withholds the text entirely (Withheld) rather than let
// it out unscrubbed.
func Text(redact func(string) string, text string) (out string) {
	if redact == nil {
		return text
	}
	defer func() {
		if recover() != nil {
			out = Withheld
		}
	}()
	return redact(text)
}
