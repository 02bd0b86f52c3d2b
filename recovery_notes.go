package reflection

import (
	"strconv"
	"strings"
)

// Recovery notes (WithRecoveryNotes) tell the model what recovery did, after
// everything else in the result's Content and one blank line. Each line
// starts with notePrefix.
const notePrefix = "Recovery note: "

// maxNoteInput caps the input a success note quotes.
const maxNoteInput = 1 << 10

// withNote appends note to content, after a blank line; an empty note adds
// nothing.
func withNote(content, note string) string {
	if note == "" {
		return content
	}
	return content + "\n\n" + note
}

// successNote names the tool and input that actually ran, for a success that
// needed a correction: the model's history otherwise shows its own call with
// a result it did not produce.
func successNote(ran ToolCall) string {
	return notePrefix + "this result came from tool " + strconv.Quote(ran.Name) +
		" called with input " + textcutCut(string(ran.Input), maxNoteInput) +
		", not from the call as it was first made."
}

// softNote gives, after a soft end, the last analysis' root cause and the
// guidance of its advisory correction; "" when there was no analysis, or it
// said neither.
func (r *Recovery) softNote() string {
	if !r.hasLast {
		return ""
	}
	var b strings.Builder
	if rc := strings.TrimSpace(r.lastCause); rc != "" {
		b.WriteString(notePrefix + "root cause: " + rc)
	}
	if c := r.lastFix; c != nil && c.Guidance != "" {
		switch c.Type {
		case PrerequisiteFix, ApproachChange, Escalate:
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(notePrefix + "guidance (" + string(c.Type) + "): " + strings.TrimSpace(c.Guidance))
		}
	}
	return b.String()
}

// repeatNote tells the model that the result it reads has come back n times
// in this session for the same tool and input; "" for n = 0.
func repeatNote(n int) string {
	if n <= 0 {
		return ""
	}
	return notePrefix + "this call returned the same result " + strconv.Itoa(n) +
		" times in this run; repeating it will not change it."
}
