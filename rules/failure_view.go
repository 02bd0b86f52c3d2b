package rules

import (
	"sync"
	"time"
	"unsafe"

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
	fcopy reflection.Failure  // the failure, copied so the view owns it
	f     *reflection.Failure // &fcopy
	full  string              // the failure text as given
	text  string              // the failure text, cut to the scan window
	lower string              // text with ASCII letters lower-cased; same offsets as text
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

// viewState is a failureView with the room its texts need, kept in a pool
// and reused, so an Analyze allocates nothing of its own on a miss: the
// window of a long text and the lower-cased copy of a text with capitals
// are written into these arrays, not into new strings.
//
// The view's text and lower strings share the arrays' memory, which the
// next Analyze overwrites: nothing derived from them may outlive the Analyze
// that made them. The conditions read them and return a bool; the verdicts
// return their own strings, never a piece of the failure text.
type viewState struct {
	view  failureView
	text  [scanLimit + 1]byte
	lower [scanLimit + 1]byte
}

var viewStates = sync.Pool{New: func() any { return new(viewState) }}

// loadView returns a view of f from the pool; release hands it back.
func loadView(f *reflection.Failure, now func() time.Time) (*viewState, *failureView) {
	st := viewStates.Get().(*viewState)
	st.view = failureView{fcopy: *f, now: now}
	v := &st.view
	v.f = &v.fcopy
	text := f.Error
	if text == "" && f.Err != nil {
		text = errchain.Text(f.Err)
	}
	v.full = text
	v.text = windowInto(st.text[:], text)
	v.lower = lowerInto(st.lower[:], v.text)
	return st, v
}

// release clears st of the failure it viewed and returns it to the pool.
func (st *viewState) release() {
	st.view = failureView{}
	viewStates.Put(st)
}

// lowerInto returns s with its ASCII letters lower-cased: s itself when it
// has none in upper case, else a string over buf, which must be at least as
// long as s.
func lowerInto(buf []byte, s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := buf[:len(s)]
	copy(b, s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return unsafe.String(&b[0], len(b))
}

// windowInto returns s, or, when s is longer than scanLimit, its first and
// last scanHalf bytes joined by a newline, as a string over buf, which must
// hold scanLimit+1 bytes.
func windowInto(buf []byte, s string) string {
	if len(s) <= scanLimit {
		return s
	}
	n := copy(buf, s[:scanHalf])
	buf[n] = '\n'
	n++
	n += copy(buf[n:], s[len(s)-scanHalf:])
	return unsafe.String(&buf[0], n)
}

// beyondWindow returns the part of s that windowInto leaves out, up to
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
