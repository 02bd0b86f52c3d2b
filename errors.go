package reflection

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

var (
	// ErrToolRecoveryExhausted matches, with errors.Is, the
	// *ToolRecoveryExhaustedError that Run returns when the last call it may
	// make fails and the strategy still says Retry.
	ErrToolRecoveryExhausted = errors.New("reflection: tool recovery exhausted")

	// ErrInternal marks a reflector that broke: an API failure, output it
	// could not parse, or a schema mismatch. Reflectors wrap it; the Driver
	// answers any reflector error with Fail.
	ErrInternal = errors.New("reflection: internal reflector error")

	// ErrSkipped marks a reflector that declined to analyse a failure. The
	// Driver answers it with Fail, like any reflector error.
	ErrSkipped = errors.New("reflection: reflector skipped analysis")

	// ErrNilDispatch is returned by Run when its dispatch func is nil.
	ErrNilDispatch = errors.New("reflection: nil dispatch func")
)

// ToolRecoveryExhaustedError reports that a tool failed on every call the
// Driver may make (MaxRecoveryAttempts+1) and the strategy still asked for
// another retry.
type ToolRecoveryExhaustedError struct {
	Tool     string // the tool name as originally called
	Attempts int    // total calls made (retries + 1)
}

// Error says which tool failed and after how many calls.
func (e *ToolRecoveryExhaustedError) Error() string {
	return fmt.Sprintf("reflection: tool %q still failing after %d attempts", e.Tool, e.Attempts)
}

// Is reports whether target is ErrToolRecoveryExhausted.
func (e *ToolRecoveryExhaustedError) Is(target error) bool {
	return target == ErrToolRecoveryExhausted
}

// ErrPanicked matches, with errors.Is, the error that stands for a panic the
// Driver recovered in a dispatch func, Reflector or RecoveryStrategy.
var ErrPanicked = errors.New("reflection: panic recovered")

// PanicError is a panic that a runtime recovered in host code and turned
// into an error: in a dispatch func (Where is `tool "<name>"`), a Reflector
// ("reflector"), a RecoveryStrategy ("recovery strategy") or an Asker
// ("asker"). It matches ErrPanicked. A runtime other than Driver.Run makes
// the same value, so a panic reads alike whichever runtime caught it.
type PanicError struct {
	Where string // what panicked
	Value any    // the value given to panic
}

// ToolPanic returns the error for a panic in the dispatch of tool.
func ToolPanic(tool string, value any) *PanicError {
	return &PanicError{Where: "tool " + strconv.Quote(tool), Value: value}
}

// Error names where the panic happened and its value.
func (e *PanicError) Error() string { return fmt.Sprintf("%s panicked: %v", e.Where, e.Value) }

// Is reports whether target is ErrPanicked.
func (e *PanicError) Is(target error) bool { return target == ErrPanicked }

// errStopped stands in for a nil error given to Recovery.Stop.
var errStopped = errors.New("reflection: call stopped")

// errNoAsker is the answer to an AskStep that reaches a Driver without an
// Asker; it cannot happen through NewDriver's options.
var errNoAsker = errors.New("reflection: no Asker to put the question to")

// ErrCircuitOpen is the error a runtime gives Recovery.Refuse when a tool's
// circuit breaker refused a dispatch (WithHealth). It matches ErrNoEffect:
// nothing ran.
var ErrCircuitOpen error = &noEffectError{text: "reflection: circuit breaker open"}

// circuitOpenText starts the Content of a call a circuit breaker refused.
const circuitOpenText = "tool temporarily unavailable: circuit breaker open"

// circuitOpenError is the refusal Driver.Run gives Recovery.Refuse: it
// matches ErrCircuitOpen (and so ErrNoEffect), and its RetryAfter is how
// long the breaker stays open, which the refusal's text tells the model.
type circuitOpenError struct{ retryIn time.Duration }

func (e *circuitOpenError) Error() string { return ErrCircuitOpen.Error() }

// Is reports whether target is ErrCircuitOpen or ErrNoEffect.
func (e *circuitOpenError) Is(target error) bool {
	return target == ErrCircuitOpen || target == ErrNoEffect
}

// RetryAfter is how long the breaker stays open.
func (e *circuitOpenError) RetryAfter() time.Duration { return e.retryIn }

// ErrInputRejected marks a failure in which the tool refused the call's
// input before acting: a validation error, an unknown parameter, MCP's
// invalid params. It says nothing about the tool's health, so a Health
// counts it neither as a failure nor as a success, and it matches
// ErrNoEffect, so the effect guard knows nothing ran. A dispatch says so by
// returning an error that matches it (errors.Is).
var ErrInputRejected error = &noEffectError{text: "reflection: the tool rejected the input"}

// budgetRefusalText is what the model reads, after the failure, of a retry
// that a retry budget refused.
const budgetRefusalText = "This call was not retried: the retry budget, which limits retries across calls, is spent. " +
	"Try again later, or go on without this tool."

// refusalText is the sentence that tells the model why a runtime refused a
// step, for the reasons that have one: a breaker's (with how long it stays
// open, when err says) and a budget's.
func refusalText(reason Reason, err error) string {
	switch reason {
	case ReasonCircuitOpen:
		if d := retryAfterHint(err); d > 0 {
			secs := (d + time.Second - 1) / time.Second
			return circuitOpenText + "; retry in about " + strconv.FormatInt(int64(max(secs, 1)), 10) + "s"
		}
		return circuitOpenText
	case ReasonBudgetExhausted:
		return budgetRefusalText
	}
	return ""
}

// ErrRetryBudget is the error a runtime gives Recovery.Refuse when a retry
// budget had too few tokens for a retry (WithRetryBudget).
var ErrRetryBudget = errors.New("reflection: retry budget exhausted")

// errRefused stands in for a nil error given to Recovery.Refuse.
var errRefused = errors.New("reflection: the runtime refused the step")

// noEffectError is a sentinel that also matches ErrNoEffect.
type noEffectError struct{ text string }

func (e *noEffectError) Error() string        { return e.text }
func (e *noEffectError) Is(target error) bool { return target == ErrNoEffect }

// ErrLoopDetected matches the *LoopDetectedError that ends a call whose
// session keeps getting the same result (WithLoopDetection).
var ErrLoopDetected = errors.New("reflection: loop detected")

// LoopDetectedError ends a call, as a hard error, before a dispatch that its
// session has already seen return one same result too often: the same tool
// with the same input, stopAt times (see NewLoopDetector). It matches
// ErrLoopDetected.
type LoopDetectedError struct {
	Tool  string // the tool as it would have run
	Count int    // how many times it returned the same result for the same input
}

// Error names the tool and the count.
func (e *LoopDetectedError) Error() string {
	return fmt.Sprintf("reflection: loop detected: tool %q returned the same result for the same input %d times", e.Tool, e.Count)
}

// Is reports whether target is ErrLoopDetected.
func (e *LoopDetectedError) Is(target error) bool { return target == ErrLoopDetected }

// loopRefusal starts the Content of a call a loop detector refused.
const loopRefusal = "dispatch refused before execution: "

// WaitPastDeadlineError is the hard error of a wait refused because it
// could not end before the deadline. It matches context.DeadlineExceeded.
type WaitPastDeadlineError struct {
	Delay time.Duration // the wait that was refused
}

// Error names the refused wait.
func (e *WaitPastDeadlineError) Error() string {
	return "reflection: retry in " + e.Delay.String() + " would end past the context deadline: " +
		context.DeadlineExceeded.Error()
}

// Unwrap returns context.DeadlineExceeded.
func (e *WaitPastDeadlineError) Unwrap() error { return context.DeadlineExceeded }

// AttemptTimeoutError is the failure of an attempt that outlived its
// time limit (WithAttemptTimeout for Driver.Run; a runtime with a limit of
// its own makes the same value). It matches context.DeadlineExceeded and
// unwraps to what the tool returned.
type AttemptTimeoutError struct {
	Tool  string        // the tool that ran
	Limit time.Duration // the limit it outlived
	Err   error         // the tool's own error; nil when it returned a result with IsError
}

// Error reads `tool "<name>" timed out after <limit>`.
func (e *AttemptTimeoutError) Error() string {
	return "tool " + strconv.Quote(e.Tool) + " timed out after " + e.Limit.String()
}

// Is reports whether target is context.DeadlineExceeded.
func (e *AttemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Unwrap returns the tool's own error.
func (e *AttemptTimeoutError) Unwrap() error { return e.Err }

// ErrNoEffect marks an attempt that certainly had no effect: it was refused
// before it began (a circuit breaker, a validation before anything was sent,
// a connection refused before the request was written). A dispatch says so
// by returning an error that matches it (errors.Is). Every other failure is
// ambiguous to the effect guard: the tool may have acted before it failed.
var ErrNoEffect = errors.New("reflection: the attempt had no effect")

// ErrAnswerInput is wrapped by Recovery.CheckAnswer's error.
var ErrAnswerInput = errors.New("reflection: the answer's input cannot be used")

// ErrNotTextInput is wrapped by InputText's error for an input that is not
// {"input": "<text>"}.
var ErrNotTextInput = errors.New(`reflection: tool input must be {"input": "<text>"}`)
