package reflection

import "github.com/loopctl-go/reflection/internal/errchain"

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
	return errchain.EveryBranch(err, func(e error, _ *bool) bool { return errchain.Here(e, ErrNoEffect) })
}

// neutralFailure reports whether a failure with err says nothing about the
// tool's health: its status (the first StatusCode in its chain) is 400 to
// 499 other than 408, 425 and 429, or it matches ErrInputRejected; where it
// joins several errors, each of them must be neutral.
func neutralFailure(err error) bool {
	if err == nil {
		return false
	}
	return errchain.EveryBranch(err, func(e error, statusSeen *bool) bool {
		if errchain.Here(e, ErrInputRejected) {
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
