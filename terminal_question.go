package reflection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the terminal asker shows. Every text in a question may come from a
// tool, a model or a host that does not mean well, and the human decides
// from what the screen shows; so nothing in it may change the screen,
// pose as another line, or hide what a "y" approves.

// maxShownText cuts the texts a question only informs with (the failure,
// the root cause, the correction's description and guidance, the prompt).
const maxShownText = 4 << 10

// formatQuestion is what the terminal shows for q.
func formatQuestion(q Question) string {
	var b strings.Builder
	b.WriteString("\nA tool call failed and needs your decision.\n")
	fmt.Fprintf(&b, "  tool:        %s\n", shownName(q.Call.Name))
	fmt.Fprintf(&b, "  input:       %s\n", shownInput(q.Call.Input))
	fmt.Fprintf(&b, "  failure:     %s\n", shownText(q.Failure.Error))
	if q.Dispatches > 0 {
		fmt.Fprintf(&b, "  dispatches:  %d so far", q.Dispatches)
		if q.MayHaveActed > 0 {
			fmt.Fprintf(&b, ", %d of them may already have taken effect", q.MayHaveActed)
		}
		b.WriteByte('\n')
	}
	if q.Analysis.RootCause != "" {
		fmt.Fprintf(&b, "  root cause:  %s\n", shownText(q.Analysis.RootCause))
	}
	if c := q.Analysis.Correction; c != nil {
		fmt.Fprintf(&b, "  correction:  %s", shownName(string(c.Type)))
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", shownText(c.Description))
		}
		b.WriteByte('\n')
		switch {
		case c.Type == InputFix && len(c.ModifiedInput) > 0:
			fmt.Fprintf(&b, "  new input:   %s\n", shownInput(c.ModifiedInput))
		case c.Type == ToolChange && c.AlternativeTool != "":
			fmt.Fprintf(&b, "  new tool:    %s\n", shownName(c.AlternativeTool))
		case c.Guidance != "":
			fmt.Fprintf(&b, "  guidance:    %s\n", shownText(c.Guidance))
		}
	}
	if q.Prompt != "" {
		fmt.Fprintf(&b, "  %s\n", shownText(q.Prompt))
	}
	b.WriteString("Retry the call? [y/N] (anything else is passed to the model): ")
	return b.String()
}

// plainNameBytes are what a name shown bare is made of.
var plainNameBytes = newByteClass("A-Za-z0-9_.:/@-")

// shownName is a tool name (or a correction type) as the terminal shows
// it: as it is when it is made of letters, digits and _ . : / @ -, and
// quoted with Go's escapes otherwise, so no name can hold a line break or a
// control sequence, or pass for another field.
func shownName(name string) string {
	if name != "" && spanFwd(name, 0, &plainNameBytes, len(name)) == len(name) {
		return name
	}
	return strconv.Quote(name)
}

// shownInput is an input as the terminal shows it: whole, however long, so
// that a "y" approves nothing the human was not shown. An input that is
// JSON is compacted first (white space between its tokens says nothing and
// could push the rest out of sight); control and format characters are
// written as escapes.
func shownInput(input []byte) string {
	if json.Valid(input) {
		var b bytes.Buffer
		if json.Compact(&b, input) == nil {
			input = b.Bytes()
		}
	}
	var b strings.Builder
	writeEscaped(&b, string(input), len(input), false)
	return b.String()
}

// shownText is a text as the terminal shows it: on one line (each run of
// white space becomes one space), control and format characters written as
// escapes, and cut after maxShownText bytes with a note of how much was
// left out.
func shownText(s string) string {
	var b strings.Builder
	if used := writeEscaped(&b, s, maxShownText, true); used < len(s) {
		fmt.Fprintf(&b, " …(%d more bytes not shown)", len(s)-used)
	}
	return b.String()
}

// writeEscaped writes s to b, up to limit bytes of s, with every control
// character (C0, DEL, C1: ESC starts the sequences that move the cursor or
// rewrite the screen), every format character (the bidirectional overrides
// and isolates, zero-width characters) and every byte that is not UTF-8
// written as a Go escape (\x1b, \u202e). With oneLine, runs of white space
// become one space and leading and trailing white space goes. It returns
// how many bytes of s it used.
func writeEscaped(b *strings.Builder, s string, limit int, oneLine bool) int {
	space := false
	i := 0
	for i < len(s) && i < limit {
		r, size := utf8.DecodeRuneInString(s[i:])
		if oneLine && unicode.IsSpace(r) {
			space = b.Len() > 0
			i += size
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || unicode.Is(unicode.Cf, r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return i
}
