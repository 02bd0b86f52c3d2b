package reflectionadk

import (
	"errors"

	"github.com/loopctl-go/reflection"
)

// ErrUnknownTool is matched by the failure of a retry whose ToolChange names
// a tool the agent did not offer the model (or, for WrapTools, a tool not
// among those wrapped). Nothing ran and the call was refused as it stood,
// so the failure also matches reflection.ErrInputRejected (and so
// reflection.ErrNoEffect).
var ErrUnknownTool = errors.New("reflectionadk: unknown tool")

// notRun marks err as the failure of an attempt refused before the tool
// ran, for its input: it matches reflection.ErrInputRejected and
// reflection.ErrNoEffect as well as everything err matches, and reads as
// err. Such a failure says nothing of the tool's health, so a breaker does
// not count it, and the effect guard may retry it.
func notRun(err error) error { return &notRunError{err: err} }

// notRunError is what notRun returns.
type notRunError struct{ err error }

func (e *notRunError) Error() string { return e.err.Error() }

func (e *notRunError) Unwrap() error { return e.err }

func (e *notRunError) Is(target error) bool {
	return target == reflection.ErrInputRejected || target == reflection.ErrNoEffect
}
