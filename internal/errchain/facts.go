package errchain

import (
	"fmt"
	"time"
)

// Text returns err.Error(): "" for a nil err, and a description of err when
// its Error method panics.
func Text(err error) string {
	t := textOf{err: err}
	if err != nil {
		t.fill()
	}
	return t.text
}

// textOf computes an error's text; fill defers a named function rather than
// a closure, which keeps the retry path cheap.
type textOf struct {
	err  error
	text string
}

func (t *textOf) fill() {
	defer catchErrorText(t)
	t.text = t.err.Error()
}

func catchErrorText(t *textOf) {
	if v := recover(); v != nil {
		t.text = fmt.Sprintf("%T error whose Error method panicked: %v", t.err, v)
	}
}

// RetryAfter returns the rate-limit hint of err: the value of the first
// error in its chain (in errors.As order) with a method RetryAfter()
// time.Duration. It returns 0, meaning no hint, when there is none, when the
// value is not positive, or when a method panics.
func RetryAfter(err error) time.Duration {
	if err == nil {
		return 0
	}
	switch err.(type) {
	case retryAfterer, interface{ As(any) bool }, interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return retryAfterGuarded(err)
	}
	return 0 // the common case: a few type checks and no method call
}

// Status returns the HTTP status that err reports: the value of the first
// error in its chain with a method StatusCode() int (many HTTP clients), or
// else HTTPStatusCode() int (the AWS SDK). It returns 0 when there is none,
// when the value is outside 100 to 599, or when a method panics.
func Status(err error) int {
	s, ok := guardedInt(err, func(c statusCoder) int { return c.StatusCode() })
	if !ok {
		s, _ = guardedInt(err, func(c httpStatusCoder) int { return c.HTTPStatusCode() })
	}
	if s < 100 || s > 599 {
		return 0
	}
	return s
}

// The methods the functions above read.
type (
	retryAfterer    interface{ RetryAfter() time.Duration }
	statusCoder     interface{ StatusCode() int }
	httpStatusCoder interface{ HTTPStatusCode() int }
)

// guardedInt finds the first T in err's chain and reads it; ok is false
// when there is none or read panics.
func guardedInt[T any](err error, read func(T) int) (n int, ok bool) {
	t, found := As[T](err)
	if !found {
		return 0, false
	}
	defer func() {
		if recover() != nil {
			n, ok = 0, false
		}
	}()
	return read(t), true
}

// retryAfterGuarded is RetryAfter for an error whose methods must be called:
// a panic in any of them means no hint. It walks the chain itself, without
// allocating, and leaves the walk to As only when an error in it has an As
// method of its own.
func retryAfterGuarded(err error) (d time.Duration) {
	defer func() {
		if recover() != nil {
			d = 0
		}
	}()
	budget := MaxNodes
	d, ok, custom := walkRetryAfter(err, &budget)
	if custom {
		var ra retryAfterer
		if ra, ok = As[retryAfterer](err); ok {
			d = ra.RetryAfter()
		}
	}
	if !ok {
		return 0
	}
	return max(d, 0)
}

// walkRetryAfter looks for a retryAfterer depth-first, in errors.As's order,
// visiting at most *budget errors (a chain that loops ends there). custom
// reports an error with an As method, which only As can honour.
func walkRetryAfter(err error, budget *int) (d time.Duration, ok, custom bool) {
	for ; err != nil && *budget > 0; *budget-- {
		if ra, is := err.(retryAfterer); is {
			return ra.RetryAfter(), true, false
		}
		if _, has := err.(interface{ As(any) bool }); has {
			return 0, false, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				*budget--
				if d, ok, custom := walkRetryAfter(e, budget); ok || custom {
					return d, ok, custom
				}
			}
			return 0, false, false
		default:
			return 0, false, false
		}
	}
	return 0, false, false
}
