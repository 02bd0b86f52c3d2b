package rules_test

import (
	"errors"
	"time"
)

// Error types as SDKs build them.

type osSyscallError struct {
	syscall string
	err     error
}

func (e *osSyscallError) Error() string { return e.syscall + ": " + e.err.Error() }
func (e *osSyscallError) Unwrap() error { return e.err }

type throttled struct{ after time.Duration }

func (e *throttled) Error() string             { return "throttled" }
func (e *throttled) RetryAfter() time.Duration { return e.after }

type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string   { return e.msg }
func (e *httpError) StatusCode() int { return e.status }

type awsResponseError struct {
	status int
	msg    string
}

func (e *awsResponseError) Error() string       { return e.msg }
func (e *awsResponseError) HTTPStatusCode() int { return e.status }

type panicky struct{}

func (panicky) Error() string { panic("Error panics") }

type panickyStatus struct{}

func (panickyStatus) Error() string   { return "lookup failed" }
func (panickyStatus) StatusCode() int { panic("StatusCode panics") }

type panickyRetryAfter struct{ msg string }

func (e panickyRetryAfter) Error() string             { return e.msg }
func (e panickyRetryAfter) RetryAfter() time.Duration { panic("RetryAfter panics") }

type panickyChain struct{ msg string }

func (e panickyChain) Error() string { return e.msg }
func (e panickyChain) Is(error) bool { panic("Is panics") }
func (e panickyChain) As(any) bool   { panic("As panics") }
func (e panickyChain) Unwrap() error { return errors.New("inner") }
