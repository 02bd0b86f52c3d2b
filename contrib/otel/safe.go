package reflectionotel

import (
	"errors"
	"fmt"
	"github.com/loopctl-go/reflection/internal/errchain"
	"reflect"
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

// errorType names err for error.type: "timeout" and "panic" for the
// Driver's own values for an attempt timeout and a panic, else as
// semconv.ErrorType names an error (the first ErrorType() string method in
// err's chain that answers, else err's own type under fmt's %w wrappers),
// but with err's chain read by errchain.As, which is bounded and
// guarded as the Driver's own reading is: a chain that loops is named by
// its type, and an ErrorType method that panics gives "_OTHER".
func errorType(err error) (kv attribute.KeyValue) {
	switch err.(type) {
	case *reflection.AttemptTimeoutError:
		return semconv.ErrorTypeKey.String(timeoutType)
	case *reflection.PanicError:
		return semconv.ErrorTypeKey.String(panicType)
	case nil:
		return semconv.ErrorTypeOther
	}
	defer func() {
		if recover() != nil {
			kv = semconv.ErrorTypeOther
		}
	}()
	if named, ok := errchain.As[interface{ ErrorType() string }](err); ok {
		if s := named.ErrorType(); s != "" {
			return semconv.ErrorTypeKey.String(s)
		}
	}
	return semconv.ErrorTypeKey.String(typeName(err))
}

// fmtWrapper is the type of the error fmt.Errorf makes with one %w.
var fmtWrapper = reflect.TypeOf(fmt.Errorf("%w", errors.New("")))

// typeName names err by its type, as error.type does for an error without
// a name of its own: package path and name, or the type as Go writes it for
// a type without them (a pointer, say). fmt's %w wrappers are looked
// through, so a wrapped error is named by what it wraps: they are built
// around an error that already exists, so their chain always ends.
func typeName(err error) string {
	for reflect.TypeOf(err) == fmtWrapper {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	t := reflect.TypeOf(err)
	if t.PkgPath() != "" && t.Name() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
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
