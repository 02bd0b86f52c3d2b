package reflection

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
	budget := maxChainNodes
	return everyBranch(err, &budget, func(e error, _ *bool) bool { return matchesHere(e, ErrNoEffect) })
}

// neutralFailure reports whether a failure with err says nothing about the
// tool's health: its status (the first StatusCode in its chain) is 400 to
// 499 other than 408, 425 and 429, or it matches ErrInputRejected; where it
// joins several errors, each of them must be neutral.
func neutralFailure(err error) bool {
	if err == nil {
		return false
	}
	budget := maxChainNodes
	return everyBranch(err, &budget, func(e error, statusSeen *bool) bool {
		if matchesHere(e, ErrInputRejected) {
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

// matchesHere reports whether e itself, not its chain, matches target.
func matchesHere(e, target error) bool {
	if equalErrors(e, target) {
		return true
	}
	x, ok := e.(interface{ Is(error) bool })
	return ok && x.Is(target)
}

// everyBranch walks err's chain and reports whether match holds at one of its
// errors before the chain ends or splits; where it splits (Unwrap() []error),
// it must hold on every branch. statusSeen is carried down each branch for
// match to note what it has read. The walk visits at most *budget errors and
// a panic in any method means false.
func everyBranch(err error, budget *int, match func(e error, statusSeen *bool) bool) (holds bool) {
	defer func() {
		if recover() != nil {
			holds = false
		}
	}()
	return walkBranch(err, false, budget, match)
}

func walkBranch(err error, statusSeen bool, budget *int, match func(error, *bool) bool) bool {
	for err != nil {
		if *budget <= 0 {
			return false
		}
		*budget--
		if match(err, &statusSeen) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			n := 0
			for _, e := range errs {
				if e == nil {
					continue
				}
				if !walkBranch(e, statusSeen, budget, match) {
					return false
				}
				n++
			}
			return n > 0
		default:
			return false
		}
	}
	return false
}
