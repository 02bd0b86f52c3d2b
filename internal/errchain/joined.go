package errchain

// EveryBranch walks err's chain and reports whether match holds at one of
// its errors before the chain ends or splits; where it splits (an error
// with Unwrap() []error), it must hold on every branch, and a split with no
// error on it does not hold. This is the reading of "err is harmless" that
// a joined error must pass whole: errors.Is holds when one joined error
// matches, which would let one harmless error excuse a harmful one beside
// it. seen is carried down each branch for match to note what it has read
// (a status, say). The walk visits at most MaxNodes errors, and a panic in
// any method of the tree means false.
func EveryBranch(err error, match func(e error, seen *bool) bool) (holds bool) {
	defer func() {
		if recover() != nil {
			holds = false
		}
	}()
	budget := MaxNodes
	return everyBranch(err, false, &budget, match)
}

func everyBranch(err error, seen bool, budget *int, match func(error, *bool) bool) bool {
	for err != nil {
		if *budget <= 0 {
			return false
		}
		*budget--
		if match(err, &seen) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			n := 0
			for _, e := range u.Unwrap() {
				if e == nil {
					continue
				}
				if !everyBranch(e, seen, budget, match) {
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

// Here reports whether e itself, not its chain, matches target: equal to
// it, or an Is method that says so. It panics as those methods do: call it
// from EveryBranch's match, which guards.
func Here(e, target error) bool {
	if equalErrors(e, target) {
		return true
	}
	x, ok := e.(interface{ Is(error) bool })
	return ok && x.Is(target)
}
