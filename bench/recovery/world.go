package recovery

import (
	"context"
	"fmt"
	"time"

	"github.com/loopctl-go/reflection"
)

// world simulates a scenario's tools for one run: every call of the run
// (each repeat) dispatches into it. The accepted call's faults are the
// dependency's state and so are shared by the repeats: the k-th dispatch of
// the accepted call in the run meets the k-th fault, whichever call makes it.
// The effect ledger, on the other hand, is per call: each repeat is a new
// logical call, and only a second effect of the same call is a duplicate.
//
// A world is used by one goroutine at a time (the Driver's Run dispatches
// from the caller's goroutine).
type world struct {
	sc *scenario

	accepted int // dispatches of the accepted call so far, in the run

	// Of the current call.
	dispatches int // every dispatch, refused ones included
	effects    int // entries in the call's effect ledger
}

func newWorld(sc *scenario) *world { return &world{sc: sc} }

// beginCall starts the next call of the run: a fresh ledger and count.
func (w *world) beginCall() { w.dispatches, w.effects = 0, 0 }

// duplicates is the number of duplicate effects of the current call.
func (w *world) duplicates() int {
	t, _ := w.sc.toolNamed(w.sc.accept.tool)
	if !duplicates(t.effect) {
		return 0
	}
	return max(w.effects-1, 0)
}

// dispatch runs one attempt of a call, as a host's dispatch would: a tool
// the scenario does not list fails with "unknown tool: <name>", any (tool,
// input) but the accepted one fails with the scenario's reject, both before
// anything happens; the accepted call meets the scenario's faults in order,
// then succeeds (or, when the scenario is permanent, meets its last fault
// forever).
func (w *world) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	w.dispatches++
	sc := w.sc
	if _, ok := sc.toolNamed(call.Name); !ok {
		return reflection.ToolResult{}, noEffect(&toolError{text: "unknown tool: " + call.Name})
	}
	in, err := canonical(call.Input)
	if err != nil || (pair{tool: call.Name, input: in}) != sc.accept {
		return reflection.ToolResult{}, noEffect(w.rejection())
	}
	k := w.accepted
	w.accepted++
	if k < len(sc.Faults) || sc.Permanent {
		f := &sc.Faults[min(k, len(sc.Faults)-1)]
		if f.Commits {
			w.effects++
		}
		return reflection.ToolResult{}, faultError(f)
	}
	w.effects++
	return reflection.ToolResult{ID: call.ID, Content: sc.Result}, nil
}

// rejection is the error for a call that is not the accepted one.
func (w *world) rejection() error {
	r := w.sc.Reject
	if r == nil {
		// checkConsistent requires a reject wherever one can be reached.
		return &toolError{text: "invalid request"}
	}
	err := error(&toolError{text: r.Error})
	if r.Status != 0 {
		err = &statusError{err, r.Status}
	}
	return err
}

// faultError builds the error of a fault as an SDK would return it: the
// text, with a StatusCode method when it has a status, a RetryAfter method
// when it has a Retry-After value, matching context.DeadlineExceeded when it
// is a timeout and reflection's no-effect mark when it had no effect. Each
// property is a layer of its own, so an error has only the methods its fault
// gives it.
func faultError(f *faultSpec) error {
	err := error(&toolError{text: f.Error, timeout: f.Timeout})
	if f.Status != 0 {
		err = &statusError{err, f.Status}
	}
	if f.RetryAfter != "" {
		err = &retryAfterError{err, f.RetryAfter}
	}
	if f.NoEffect {
		err = noEffect(err)
	}
	return err
}

// toolError is the text a tool failed with.
type toolError struct {
	text    string
	timeout bool // the failure is a timeout: it matches context.DeadlineExceeded
}

func (e *toolError) Error() string { return e.text }

func (e *toolError) Is(target error) bool { return e.timeout && target == context.DeadlineExceeded }

// statusError adds an HTTP status, as HTTP clients' error types carry it.
type statusError struct {
	error
	status int
}

func (e *statusError) StatusCode() int { return e.status }
func (e *statusError) Unwrap() error   { return e.error }

// retryAfterError adds a Retry-After header value, read against the
// (virtual) clock when asked, as an SDK's error type does.
type retryAfterError struct {
	error
	value string
}

func (e *retryAfterError) RetryAfter() time.Duration {
	d, _ := reflection.ParseRetryAfter(e.value, time.Now())
	return d
}

func (e *retryAfterError) Unwrap() error { return e.error }

// markedError matches mark with errors.Is and keeps err's text and chain.
type markedError struct {
	error
	mark error
}

func (e *markedError) Is(target error) bool { return target == e.mark }
func (e *markedError) Unwrap() error        { return e.error }

// callID names the i-th call of a scenario's run.
func callID(sc *scenario, i int) string { return fmt.Sprintf("call_%s_%d", sc.ID, i) }
