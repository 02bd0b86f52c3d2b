package reflection

import (
	"time"
)

// What the library reads from a host's error value. Every method of such a
// value is called under recover, and every walk of its chain is bounded, so
// a broken error (a typed nil pointer, a panicking Is, an Unwrap that returns
// itself) can neither crash nor hang a call. The walks themselves live in
// internal/errchain, which rules, reflectiontest and the contrib modules of
// this repository read errors through too; the root package reaches them
// through the unexported names below.

// StatusCode returns the HTTP status that err reports: the value of the
// first error in its chain with a method StatusCode() int (many HTTP
// clients), or else HTTPStatusCode() int (the AWS SDK). It returns 0 when
// there is none, when the value is outside 100 to 599, or when a method
// panics. A Reflector or a RecoveryStrategy that goes by status reads it
// through this function, as the rules package does.
func StatusCode(err error) int { return errchainStatus(err) }

// errorText is err.Error(), "" for a nil err, and a description of err when
// its Error method panics.
func errorText(err error) string { return errchainText(err) }

// retryAfterHint is the rate-limit hint of err's chain, 0 for none.
func retryAfterHint(err error) time.Duration { return errchainRetryAfter(err) }

// chainIs is errors.Is(err, target), bounded, and false when a method in
// err's chain panics.
func chainIs(err, target error) bool { return errchainIs(err, target) }

// chainAs is errors.As's search for a T in err's chain, bounded, and none
// when a method in it panics.
func chainAs[T any](err error) (T, bool) { return errchainAs[T](err) }

// The two questions about a failure whose answer for an error that joins
// several (Unwrap() []error) must hold for every error it joins, not for
// one of them as errors.Is would have it: did the attempt certainly have no
// effect, and does the failure say nothing about the tool's health. One
// harmless error joined to a timeout does not make the timeout harmless.

// noEffect reports whether a failure with err certainly had no effect: err
// matches ErrNoEffect, and where it joins several errors, each of them does.
func noEffect(err error) bool {
	if err == nil {
		return false
	}
	return errchainEveryBranch(err, func(e error, _ *bool) bool { return errchainHere(e, ErrNoEffect) })
}

// neutralFailure reports whether a failure with err says nothing about the
// tool's health: its status (the first StatusCode in its chain) is 400 to
// 499 other than 408, 425 and 429, or it matches ErrInputRejected; where it
// joins several errors, each of them must be neutral.
func neutralFailure(err error) bool {
	if err == nil {
		return false
	}
	return errchainEveryBranch(err, func(e error, statusSeen *bool) bool {
		if errchainHere(e, ErrInputRejected) {
			return true
		}
		if *statusSeen {
			return false
		}
		if s, ok := e.(interface{ StatusCode() int }); ok {
			*statusSeen = true
			return neutralStatus(s.StatusCode())
		}
		return false
	})
}

// neutralStatus says whether an HTTP status blames the request, not the
// service: a 4xx other than 408 (timeout), 425 (too early) and 429 (too many
// requests).
func neutralStatus(code int) bool {
	return code >= 400 && code <= 499 && code != 408 && code != 425 && code != 429
}
