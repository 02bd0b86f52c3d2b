package reflection

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NewTerminalAsker returns an Asker that writes each question to out (the
// tool, its input, the failure, the root cause, the proposed correction and
// the prompt) and reads one line from in: "y" or "yes" (any case, spaces
// trimmed) approves the retry; any other line declines it and becomes the
// reply to the model, without its line ending. End of input before a line is
// an error. Ask returns ctx's error when ctx ends before a line comes.
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
	line string
	err  error
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
		return parseAnswer(r.line), nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// readLine reads one line into done. A last line without a line ending
// counts as a line; an end of input before any text is errNoAnswer.
func readLine(in *bufio.Reader, done chan<- lineRead) {
	line, err := in.ReadString('\n')
	switch {
	case err == nil || (errors.Is(err, io.EOF) && line != ""):
		done <- lineRead{line: strings.TrimRight(line, "\r\n")}
	case errors.Is(err, io.EOF):
		done <- lineRead{err: errNoAnswer}
	default:
		done <- lineRead{err: fmt.Errorf("reflection: read the answer: %w", err)}
	}
}

// parseAnswer turns a line into an Answer.
func parseAnswer(line string) Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Answer{Approve: true}
	}
	return Answer{Reply: line}
}

// formatQuestion is what the terminal shows for q.
func formatQuestion(q Question) string {
	var b strings.Builder
	b.WriteString("\nA tool call failed and needs your decision.\n")
	fmt.Fprintf(&b, "  tool:        %s\n", q.Call.Name)
	fmt.Fprintf(&b, "  input:       %s\n", cutText(string(q.Call.Input), maxNoteInput))
	fmt.Fprintf(&b, "  failure:     %s\n", oneLine(q.Failure.Error))
	if q.Analysis.RootCause != "" {
		fmt.Fprintf(&b, "  root cause:  %s\n", oneLine(q.Analysis.RootCause))
	}
	if c := q.Analysis.Correction; c != nil {
		fmt.Fprintf(&b, "  correction:  %s", c.Type)
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", oneLine(c.Description))
		}
		b.WriteByte('\n')
		switch {
		case c.Type == InputFix && len(c.ModifiedInput) > 0:
			fmt.Fprintf(&b, "  new input:   %s\n", cutText(string(c.ModifiedInput), maxNoteInput))
		case c.Type == ToolChange && c.AlternativeTool != "":
			fmt.Fprintf(&b, "  new tool:    %s\n", c.AlternativeTool)
		case c.Guidance != "":
			fmt.Fprintf(&b, "  guidance:    %s\n", oneLine(c.Guidance))
		}
	}
	if q.Prompt != "" {
		fmt.Fprintf(&b, "  %s\n", oneLine(q.Prompt))
	}
	b.WriteString("Retry the call? [y/N] (anything else is passed to the model): ")
	return b.String()
}

// oneLine keeps a text on one terminal line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
