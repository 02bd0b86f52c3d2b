package reflectiontemporal

import (
	"context"
	"io"
	"io/fs"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// ErrorData is an error as data, so that it can cross Temporal: a payload
// converter cannot carry an error interface, so what a Reflector checks on
// an error travels as fields, and the other side rebuilds an error from
// them (see [ErrorData.Rebuild]). Its JSON keys are those of the field tags.
type ErrorData struct {
	// Text is the error's text, err.Error().
	Text string `json:"text"`
	// RetryAfter is the error's rate-limit hint, as the Driver reads it (a
	// RetryAfter() time.Duration method in its chain): 0 means none.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// StatusCode is the HTTP status the error reports, as
	// reflection.StatusCode reads it: 0 means none.
	StatusCode int `json:"status_code,omitempty"`
	// Timeout is set when the first error in the chain with a method
	// Timeout() bool (a net.Error, context.DeadlineExceeded) says true.
	Timeout bool `json:"timeout,omitempty"`
	// Is names the sentinel errors that errors.Is matched, in this order:
	// "deadline_exceeded" (context.DeadlineExceeded), "canceled"
	// (context.Canceled), "permission" (os.ErrPermission), "not_exist"
	// (fs.ErrNotExist), "panicked" (reflection.ErrPanicked), "skipped"
	// (reflection.ErrSkipped), "internal" (reflection.ErrInternal), "eof"
	// (io.EOF), "unexpected_eof" (io.ErrUnexpectedEOF) and "no_effect"
	// (reflection.ErrNoEffect: the attempt certainly had no effect, which
	// the effect guard reads). A name the rebuilding side does not know is
	// ignored.
	Is []string `json:"is,omitempty"`
	// Errno is the name of the first syscall.Errno in the chain when it is
	// one of a failed connection ("ECONNREFUSED", "ECONNRESET",
	// "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH",
	// "ENETDOWN", "ENETRESET"): a name, since the numbers differ between
	// systems. The rebuilt error holds the rebuilding system's own Errno.
	Errno string `json:"errno,omitempty"`
	// DNS is the first *net.DNSError in the chain.
	DNS *DNSErrorData `json:"dns,omitempty"`
	// URL is the first *url.Error in the chain.
	URL *URLErrorData `json:"url,omitempty"`
}

// sentinels are the errors ErrorData records a match with, in the order of
// ErrorData.Is. os.ErrPermission and os.ErrNotExist are the fs values.
var sentinels = [...]struct {
	name string
	err  error
}{
	{"deadline_exceeded", context.DeadlineExceeded},
	{"canceled", context.Canceled},
	{"permission", fs.ErrPermission},
	{"not_exist", fs.ErrNotExist},
	{"panicked", reflection.ErrPanicked},
	{"skipped", reflection.ErrSkipped},
	{"internal", reflection.ErrInternal},
	{"eof", io.EOF},
	{"unexpected_eof", io.ErrUnexpectedEOF},
	{"no_effect", reflection.ErrNoEffect},
}

// timeouter is the method of a timeout error (a net.Error,
// context.DeadlineExceeded).
type timeouter interface{ Timeout() bool }

// NewErrorData records err as data; it returns nil for a nil err. It reads
// err as the Driver does, through the same bounded, guarded walks: its text,
// its hint, and its status (reflection.StatusCode). Every
// other method of err it calls is guarded too: one that panics counts as
// absent, so a broken error value never fails the activity that reports it.
func NewErrorData(err error) *ErrorData {
	return newErrorData(err, 0)
}

// newErrorData is NewErrorData for an error found depth levels inside
// another one's *url.Error.
func newErrorData(err error, depth int) *ErrorData {
	if err == nil {
		return nil
	}
	d := &ErrorData{
		Text:       errchain.Text(err),
		RetryAfter: errchain.RetryAfter(err),
		StatusCode: reflection.StatusCode(err),
	}
	guard(func() {
		if t, ok := errchain.As[timeouter](err); ok {
			d.Timeout = t.Timeout()
		}
	})
	for _, s := range sentinels {
		if errchain.Is(err, s.err) {
			d.Is = append(d.Is, s.name)
		}
	}
	guard(func() { d.Errno = errnoName(err) })
	guard(func() { d.DNS = newDNSErrorData(err) })
	if depth < maxURLDepth {
		guard(func() { d.URL = newURLErrorData(err, depth) })
	}
	return d
}

// guard runs f and swallows a panic: a host error's broken method.
func guard(f func()) {
	defer func() { _ = recover() }()
	f()
}

// Rebuild returns an error that answers what d recorded, and nothing
// more: its Error is d.Text, errors.Is matches the sentinels named in d.Is,
// and errors.As finds in its chain an error with a method RetryAfter()
// time.Duration when d.RetryAfter > 0, one with StatusCode() int when
// d.StatusCode is set, and a net.Error whose Timeout is true when d.Timeout
// is set. A method is there only when the value is, so a Reflector's type
// check (errors.As into an interface) says what it said on the original.
// Its chain also holds this system's syscall.Errno of the name in d.Errno,
// a *net.DNSError built from d.DNS and a *url.Error built from d.URL, so
// that errors.Is and errors.As find them as they found the originals. It
// returns nil for a nil d. The error is a *RemoteError, and shares no
// memory with d.
func (d *ErrorData) Rebuild() error {
	if d == nil {
		return nil
	}
	e := &RemoteError{data: d.clone()}
	if d.RetryAfter > 0 {
		e.traits = append(e.traits, &hintError{text: d.Text, after: d.RetryAfter})
	}
	if d.StatusCode != 0 {
		e.traits = append(e.traits, &statusError{text: d.Text, code: d.StatusCode})
	}
	if d.Timeout {
		e.traits = append(e.traits, &timeoutError{text: d.Text})
	}
	if errno := errnoNamed(d.Errno); errno != nil {
		e.traits = append(e.traits, errno)
	}
	if d.DNS != nil {
		e.traits = append(e.traits, d.DNS.rebuild())
	}
	if d.URL != nil {
		e.traits = append(e.traits, d.URL.rebuild())
	}
	return e
}

// clone returns a copy of d that shares no memory with it.
func (d *ErrorData) clone() ErrorData {
	c := *d
	c.Is = append([]string(nil), d.Is...)
	if d.DNS != nil {
		dns := *d.DNS
		c.DNS = &dns
	}
	if d.URL != nil {
		u := *d.URL
		if u.Err != nil {
			inner := u.Err.clone()
			u.Err = &inner
		}
		c.URL = &u
	}
	return c
}

// RemoteError is an error rebuilt from [ErrorData] on the far side of
// Temporal: the tool's error as the Reflector activity sees it, or as the
// workflow sees it. It answers the checks a Reflector makes (the rules
// package's typed checks among them): see [ErrorData.Rebuild]. Its zero
// value is an error with an empty text that matches nothing.
type RemoteError struct {
	data   ErrorData
	traits []error // the recorded methods, each an error of its own
}

// Error returns the original error's text.
func (e *RemoteError) Error() string { return e.data.Text }

// Is reports whether target is one of the sentinels the original error
// matched (see ErrorData.Is).
func (e *RemoteError) Is(target error) bool {
	for _, name := range e.data.Is {
		for _, s := range sentinels {
			if s.name == name && s.err == target {
				return true
			}
		}
	}
	return false
}

// Unwrap returns the errors that carry the recorded methods (RetryAfter,
// StatusCode, Timeout), each with the original text, and the rebuilt
// syscall.Errno, *net.DNSError and *url.Error, so that errors.Is and
// errors.As find exactly those.
func (e *RemoteError) Unwrap() []error { return e.traits }

// Data returns the data the error was rebuilt from.
func (e *RemoteError) Data() ErrorData { return e.data.clone() }

// hintError carries a Retry-After hint.
type hintError struct {
	text  string
	after time.Duration
}

func (e *hintError) Error() string             { return e.text }
func (e *hintError) RetryAfter() time.Duration { return e.after }

// statusError carries an HTTP status.
type statusError struct {
	text string
	code int
}

func (e *statusError) Error() string   { return e.text }
func (e *statusError) StatusCode() int { return e.code }

// timeoutError is a timeout, and a net.Error.
type timeoutError struct{ text string }

func (e *timeoutError) Error() string   { return e.text }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
