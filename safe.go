package reflection

import (
	"errors"
	"fmt"
	"time"
)

// Host error values are called only through the functions below: each
// recovers a panic from the method it calls, so a broken error value (a typed
// nil pointer, a panicking Is) can never crash Run.

// errorText returns err.Error(), or a description of err when Error panics.
func errorText(err error) string {
	t := textOf{err: err}
	t.fill()
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

// safeIs is errors.Is(err, target), false when a method in err's chain panics.
func safeIs(err, target error) (is bool) {
	defer func() {
		if recover() != nil {
			is = false
		}
	}()
	return errors.Is(err, target)
}

// retryAfterer is an error that carries a rate-limit hint.
type retryAfterer interface{ RetryAfter() time.Duration }

// retryAfterOf returns the hint of the first error in err's chain (as
// errors.As walks it) that has a method RetryAfter() time.Duration, and 0
// when there is none or a method panics. It walks the chain itself, without
// allocating, and leaves the walk to errors.As only when an error in it has
// an As method of its own. An error that has none of those methods (the
// common case) costs a few type checks and no method call.
func retryAfterOf(err error) time.Duration {
	if err == nil {
		return 0
	}
	switch err.(type) {
	case retryAfterer, interface{ As(any) bool }, interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return retryAfterGuarded(err)
	}
	return 0
}

// retryAfterGuarded is retryAfterOf for an error whose methods must be
// called: a panic in any of them means no hint.
func retryAfterGuarded(err error) (d time.Duration) {
	defer func() {
		if recover() != nil {
			d = 0
		}
	}()
	if d, ok, custom := walkRetryAfter(err, 0); !custom {
		if ok {
			return max(d, 0)
		}
		return 0
	}
	var ra retryAfterer
	if errors.As(err, &ra) {
		return max(ra.RetryAfter(), 0)
	}
	return 0
}

// maxChainDepth bounds walkRetryAfter on a chain that loops.
const maxChainDepth = 100

// walkRetryAfter looks for a retryAfterer depth-first, in errors.As's order.
// custom reports an error with an As method, which only errors.As can honour.
func walkRetryAfter(err error, depth int) (d time.Duration, ok, custom bool) {
	for ; err != nil && depth < maxChainDepth; depth++ {
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
				if d, ok, custom := walkRetryAfter(e, depth+1); ok || custom {
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
