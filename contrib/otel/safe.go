package reflectionotel

import (
	"time"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// A host's error values and redactor are read only through the functions
// below and the module's internal errchain and scrub, which the Driver reads
// them through too: each survives a method that panics, and an
// error chain that loops, so that tracing a call can never change how it
// ends (the Driver survives such values too).

// maxChain bounds the errors errorType visits before it asks semconv: a
// longer chain, or one that loops, is named "_OTHER".
const maxChain = 1000

// errorType names err for error.type: "timeout" and "panic" for the
// Driver's own values for an attempt timeout and a panic, else
// semconv.ErrorType(err), or "_OTHER" when a method in err's chain panics or
// the chain does not end.
func errorType(err error) (kv attribute.KeyValue) {
	switch err.(type) {
	case *reflection.AttemptTimeoutError:
		return semconv.ErrorTypeKey.String(timeoutType)
	case *reflection.PanicError:
		return semconv.ErrorTypeKey.String(panicType)
	}
	defer func() {
		if recover() != nil {
			kv = semconv.ErrorTypeOther
		}
	}()
	budget := maxChain
	if !chainEnds(err, &budget) {
		return semconv.ErrorTypeOther
	}
	return semconv.ErrorType(err)
}

// chainEnds reports whether err's tree (Unwrap() error and Unwrap()
// []error) ends within *budget errors.
func chainEnds(err error, budget *int) bool {
	for ; err != nil; *budget-- {
		if *budget <= 0 {
			return false
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if !chainEnds(e, budget) {
					return false
				}
			}
			return true
		default:
			return true
		}
	}
	return true
}

// attemptTimeout returns the limit of err when it is the Driver's own value
// for an attempt its attempt timeout cut short (the Driver hands it over
// as it is, never wrapped).
func attemptTimeout(err error) (time.Duration, bool) {
	if te, ok := err.(*reflection.AttemptTimeoutError); ok && te != nil {
		return te.Limit, true
	}
	return 0, false
}
