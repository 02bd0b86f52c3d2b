package reflection

import (
	"errors"
	"fmt"
	"strconv"
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
