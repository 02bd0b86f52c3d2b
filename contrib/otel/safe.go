package otel

import (
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// The host's error values and redactor are called only through the functions
// below: each recovers a panic in the host's code, so that tracing a call can
// never change how it ends (the Driver survives such values too).

// errorText returns err.Error(), or a description of err when Error panics.
func errorText(err error) (text string) {
	defer func() {
		if v := recover(); v != nil {
			text = fmt.Sprintf("%T error whose Error method panicked: %v", err, v)
		}
	}()
	return err.Error()
}

// errorType is semconv.ErrorType(err), or error.type "_OTHER" when a method
// in err's chain panics.
func errorType(err error) (kv attribute.KeyValue) {
	defer func() {
		if recover() != nil {
			kv = semconv.ErrorTypeOther
		}
	}()
	return semconv.ErrorType(err)
}

// redactedWhenPanicked stands for a text whose redactor panicked.
const redactedWhenPanicked = "[redactor panicked; text withheld]"

// redactSafely runs the host's redactor on s; a panic in it withholds s.
func redactSafely(redact func(string) string, s string) (out string) {
	defer func() {
		if recover() != nil {
			out = redactedWhenPanicked
		}
	}()
	return redact(s)
}
