// Package errchain reads a host's error value the way the library reads it:
// the walks of errors.Is and errors.As, and the error's text, rate-limit hint
// and HTTP status, each bounded and guarded so that no error value can hang
// or crash a call. A chain that loops (an Unwrap that returns its own
// receiver) ends after MaxNodes errors, and a method that panics (Error, Is,
// As, Unwrap, RetryAfter, StatusCode) counts as "nothing found".
//
// The root package, rules, reflectiontest and the contrib modules read
// errors through it, so every one of them reads an error as the Driver
// does. It imports only the standard library.
package errchain

// MaxNodes bounds how many errors one walk visits. Real chains hold a
// handful; a tree that holds more, or a chain that loops, is cut there.
const MaxNodes = 1000

// Is reports whether an error in err's tree matches target, in the order and
// by the rules of errors.Is: equal to it, or an Is method that says so. A
// panic in any method of the tree, or a walk past MaxNodes, means false.
func Is(err, target error) (is bool) {
	if err == nil || target == nil {
		return err == target
	}
	switch err.(type) {
	case interface{ Is(error) bool }, interface{ Unwrap() error }, interface{ Unwrap() []error }:
	default: // the common case: a plain error, no method to call
		return equalErrors(err, target)
	}
	defer func() {
		if recover() != nil {
			is = false
		}
	}()
	found := false
	walkChain(err, func(e error) bool {
		if equalErrors(e, target) {
			found = true
		} else if x, ok := e.(interface{ Is(error) bool }); ok && x.Is(target) {
			found = true
		}
		return found
	})
	return found
}

// As returns the first error in err's tree that is a T, or whose As method
// accepts a *T, in the order and by the rules of errors.As. A panic in any
// method of the tree, or a walk past MaxNodes, means none.
func As[T any](err error) (out T, ok bool) {
	if err == nil {
		return out, false
	}
	defer func() {
		if recover() != nil {
			var zero T
			out, ok = zero, false
		}
	}()
	walkChain(err, func(e error) bool {
		if t, is := e.(T); is {
			out, ok = t, true
			return true
		}
		if x, has := e.(interface{ As(any) bool }); has {
			var t T
			if x.As(&t) {
				out, ok = t, true
				return true
			}
		}
		return false
	})
	return out, ok
}

// walkChain calls visit on each error of err's tree, depth first as errors.Is
// visits them, until visit returns true or MaxNodes errors have been seen.
func walkChain(err error, visit func(error) bool) {
	budget := MaxNodes
	var step func(error) bool
	step = func(e error) bool {
		for e != nil {
			if budget == 0 {
				return true // cut: stop the whole walk
			}
			budget--
			if visit(e) {
				return true
			}
			switch u := e.(type) {
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			case interface{ Unwrap() []error }:
				for _, child := range u.Unwrap() {
					if step(child) {
						return true
					}
				}
				return false
			default:
				return false
			}
		}
		return false
	}
	step(err)
}

// equalErrors is a == b, false when their dynamic type is not comparable (the
// comparison would panic).
func equalErrors(a, b error) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
