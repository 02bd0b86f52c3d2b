package reflection

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NewTerminalAsker returns an Asker that writes each question to out (the
// tool, its input, the failure, the root cause, the proposed correction and
// the prompt) and reads one line from in: "y" or "yes" (any case, spaces
// trimmed) approves the retry; any other line declines it and becomes the
// reply to the model, without its line ending. End of input before a line is
// an error. Ask returns ctx's error when ctx ends before a line comes.
//
// The human approves only what the screen shows. The call's input and a
// proposed new input are shown whole, however long (JSON compacted, so no
// padding can push a field out of sight); the other texts, which only
// inform, are put on one line each and cut after 4 KiB with a note of how
// much was left out. Every text of the question is untrusted: control
// characters (among them the ESC that starts the sequences that move the
// cursor or rewrite the screen), format characters such as the
// bidirectional overrides, and bytes that are not UTF-8 are written as Go
// escapes (, ‮), and a tool name that holds anything but letters,
// digits and _ . : / @ - is shown quoted, so no text can change the screen
// or pose as a line of the question.
//
// A reply line is capped at 64 KiB: a longer line declines the retry
// whatever it says, its reply is its first 64 KiB followed by a note of how
// many bytes were dropped, and the rest of the line is read up to its line
// ending and dropped, so reading holds no more than that.
//
// A read cannot be interrupted, so the asker reads in on a goroutine of its
// own: the only goroutine this library starts. It starts with the first
// question, reads one line per question, and ends when the line comes or in
// ends; after a cancelled question it stays blocked in the read until then,
// and the next question gets the line it reads (a line that arrives while no
// question waits answers none and is dropped). Close in (or let it end) to
// end the goroutine. Questions are put one at a time; concurrent Asks wait
// their turn, or return when their ctx ends.
func NewTerminalAsker(in io.Reader, out io.Writer) Asker {
	t := &terminalAsker{in: bufio.NewReader(in), out: out, turn: make(chan struct{}, 1)}
	return t
}

// terminalAsker is the Asker of NewTerminalAsker.
type terminalAsker struct {
	in   *bufio.Reader
	out  io.Writer
	turn chan struct{} // held by the Ask in progress

	// Guarded by turn:
	reading chan lineRead // the read in flight, if any
	ended   error         // in has ended: every later Ask fails with it
}

// lineRead is what one read of a line produced.
type lineRead struct {
	line    string
	dropped int // bytes of a long line left out of line
	err     error
}

// errNoAnswer is returned when the input ends before a line is read.
var errNoAnswer = errors.New("reflection: the terminal's input ended before an answer was given")

// Ask puts q on the terminal and waits for the answer.
func (t *terminalAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
	defer func() { <-t.turn }()
	if err := ctx.Err(); err != nil {
		// The select above picks at random when both cases are ready: a
		// question whose ctx has ended is neither written nor given a line.
		return Answer{}, err
	}
	if t.ended != nil {
		return Answer{}, t.ended
	}
	if t.reading != nil {
		// A read from an earlier, cancelled question: a line it already
		// holds answered nothing and is dropped; one still to come answers
		// this question.
		select {
		case r := <-t.reading:
			t.reading = nil
			if r.err != nil {
				t.ended = r.err
				return Answer{}, r.err
			}
		default:
		}
	}
	if _, err := io.WriteString(t.out, formatQuestion(q)); err != nil {
		return Answer{}, fmt.Errorf("reflection: write the question: %w", err)
	}
	if t.reading == nil {
		t.reading = make(chan lineRead, 1)
		go readLine(t.in, t.reading)
	}
	select {
	case r := <-t.reading:
		t.reading = nil
		if r.err != nil {
			t.ended = r.err
			return Answer{}, r.err
		}
		return parseAnswer(r), nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// maxReplyBytes caps the reply line the terminal asker keeps (see
// NewTerminalAsker).
const maxReplyBytes = 64 << 10

// readLine reads one line into done. A last line without a line ending
// counts as a line; an end of input before any text is errNoAnswer. Of a
// line longer than maxReplyBytes it keeps the first maxReplyBytes, reads the
// rest up to the line ending and drops it, so reading holds at most
// maxReplyBytes and the reader's buffer.
func readLine(in *bufio.Reader, done chan<- lineRead) {
	var kept []byte // the line's first bytes, and room for its line ending
	var tail [2]byte
	n := 0 // bytes of the line read so far
	for {
		chunk, err := in.ReadSlice('\n')
		n += len(chunk)
		if room := maxReplyBytes + 2 - len(kept); room > 0 {
			kept = append(kept, chunk[:min(len(chunk), room)]...)
		}
		for _, b := range chunk[max(0, len(chunk)-2):] {
			tail[0], tail[1] = tail[1], b
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil || (errors.Is(err, io.EOF) && n > 0):
			ending := 0
			if n > 0 && tail[1] == '\n' {
				ending = 1
				if n > 1 && tail[0] == '\r' {
					ending = 2
				}
			}
			if length := n - ending; length > maxReplyBytes {
				cut := cutPoint(kept, maxReplyBytes)
				done <- lineRead{line: string(kept[:cut]), dropped: length - cut}
			} else {
				done <- lineRead{line: string(kept[:length])}
			}
		case errors.Is(err, io.EOF):
			done <- lineRead{err: errNoAnswer}
		default:
			done <- lineRead{err: fmt.Errorf("reflection: read the answer: %w", err)}
		}
		return
	}
}

// cutPoint returns the largest length of at most limit at which b can be cut
// without splitting a UTF-8 sequence.
func cutPoint(b []byte, limit int) int {
	cut := min(limit, len(b))
	if cut == len(b) {
		return cut
	}
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return cut
}

// parseAnswer turns a line into an Answer; a line cut short (dropped > 0)
// never approves.
func parseAnswer(r lineRead) Answer {
	if r.dropped > 0 {
		return Answer{Reply: truncatedReply(r.line, r.dropped)}
	}
	switch strings.ToLower(strings.TrimSpace(r.line)) {
	case "y", "yes":
		return Answer{Approve: true}
	}
	return Answer{Reply: r.line}
}

// truncatedReply is the reply of a line cut short: as much of it as fits in
// maxReplyBytes beside the note of how many bytes were left out, so the
// reply, note included, is never longer than the cap.
func truncatedReply(line string, dropped int) string {
	b := []byte(line)
	keep := len(b)
	for {
		note := "…[truncated " + strconv.Itoa(len(b)+dropped-keep) + " bytes]"
		if keep+len(note) <= maxReplyBytes || keep == 0 {
			return string(b[:keep]) + note
		}
		keep = cutPoint(b, max(maxReplyBytes-len(note), 0))
	}
}

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
