package rules

import (
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// Only this much of a failure text is read: its first and last halves when
// it is longer. Error messages put what matters at one end (a Go or Java
// error leads with it, a Python traceback ends with it), and the cap keeps a
// miss cheap whatever a tool printed.
const (
	scanLimit = 8 << 10
	scanHalf  = scanLimit / 2
)

// The few words that mean rejected credentials or a refused permission are
// looked for further: through the first authScanLimit bytes of the text, so
// an AccessDeniedException in the middle of a long trace is seen, however
// transient the words at its ends. One pass of a small automaton over at
// most this much keeps a miss cheap.
const authScanLimit = 64 << 10

// failureView is what the conditions of one Analyze look at: the failure, its
// text cut to the scan window and lower-cased once, and facts about its error
// chain and text worked out on first use. The facts about the error chain are
// the root package's (its text, status and rate-limit hint, through
// internal/errchain and reflection.StatusCode), so the rules read an error as the Driver does: every method call guarded,
// every walk of the chain bounded.
type failureView struct {
	f     *reflection.Failure
	full  string // the failure text as given
	text  string // the failure text, cut to the scan window
	lower string // text with ASCII letters lower-cased; same offsets as text
	now   func() time.Time

	errStatusDone bool
	errStatus     int // from a status method in the error chain; 0 if none

	textStatusDone bool
	textStatus     int // from the text; 0 if none

	hintDone bool
	hint     time.Duration
	hasHint  bool

	scannedBy *needleSet // the set whose needles found holds; nil before
	found     foundNeedles

	middleScannedBy *needleSet // the same, for the text beyond the window
	middleFound     foundNeedles
}

func newFailureView(f *reflection.Failure, now func() time.Time) failureView {
	text := f.Error
	if text == "" && f.Err != nil {
		text = errchain.Text(f.Err)
	}
	window := scanWindow(text)
	return failureView{f: f, full: text, text: window, lower: lowerASCII(window), now: now}
}

// scanWindow returns s, or its first and last scanHalf bytes joined by a
// newline when s is longer than scanLimit.
func scanWindow(s string) string {
	if len(s) <= scanLimit {
		return s
	}
	return s[:scanHalf] + "\n" + s[len(s)-scanHalf:]
}

// beyondWindow returns the part of s that scanWindow leaves out, up to
// authScanLimit bytes from the start of s, widened by overlap bytes on each
// side so that a word the window's edge cuts is read whole. It is "" when the
// window holds all of s.
func beyondWindow(s string, overlap int) string {
	if len(s) <= scanLimit {
		return ""
	}
	from := scanHalf - overlap
	to := min(len(s)-scanHalf+overlap, authScanLimit)
	if to <= from {
		return ""
	}
	return s[from:to]
}

// lowerASCII lower-cases the ASCII letters of s and leaves every other byte
// alone, so offsets into the result are offsets into s. It returns s itself,
// without allocating, when s has no upper-case ASCII letter.
func lowerASCII(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// status returns the HTTP status of the failure: the one a method in the
// error chain reports, else the one the text states, else 0.
func (v *failureView) status() int {
	if s := v.errorStatus(); s != 0 {
		return s
	}
	return v.statusInText()
}

// errorStatus returns the status a method in the error chain reports, or 0.
func (v *failureView) errorStatus() int {
	if !v.errStatusDone {
		v.errStatusDone = true
		v.errStatus = reflection.StatusCode(v.f.Err)
	}
	return v.errStatus
}

// statusInText returns the status the failure text states, or 0.
func (v *failureView) statusInText() int {
	if !v.textStatusDone {
		v.textStatusDone = true
		v.textStatus = statusOfText(v.lower)
	}
	return v.textStatus
}

// retryAfter returns the earliest retry the failure allows: a RetryAfter
// method in the error chain first, then the text.
func (v *failureView) retryAfter() (time.Duration, bool) {
	if !v.hintDone {
		v.hintDone = true
		v.hint = errchain.RetryAfter(v.f.Err)
		v.hasHint = v.hint > 0
		if !v.hasHint {
			v.hint, v.hasHint = retryAfterInText(v.text, v.lower, v.now)
		}
	}
	return v.hint, v.hasHint
}

// needlesFoundBeyondWindow returns the needles of s (a set with foldCase)
// that the text beyond the scan window contains, up to authScanLimit,
// scanning it on first use.
func (v *failureView) needlesFoundBeyondWindow(s *needleSet) *foundNeedles {
	if v.middleScannedBy != s {
		v.middleScannedBy = s
		v.middleFound = foundNeedles{}
		s.scan(beyondWindow(v.full, s.longest-1), &v.middleFound)
	}
	return &v.middleFound
}

// needlesFound returns the needles of s that the lower-cased text contains,
// scanning the text on first use.
func (v *failureView) needlesFound(s *needleSet) *foundNeedles {
	if v.scannedBy != s {
		v.scannedBy = s
		v.found = foundNeedles{}
		s.scan(v.lower, &v.found)
	}
	return &v.found
}
