package recovery

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// world simulates a scenario's tools for one run: every call of the run
// (each repeat, each re-issue, from every agent) dispatches into it. The
// accepted call's faults are the dependency's state and so are shared by
// the calls: the k-th dispatch of the accepted call in the run meets the
// k-th fault, whichever call makes it; a fault with for_s holds for that
// long; from recovers_after_s on, every dispatch succeeds.
//
// The effect ledger, on the other hand, is kept per logical call: a repeat
// is a new logical call, a re-issue is the same one again. Only a second
// effect of one logical call is a duplicate, and for a keyed tool only a
// second effect under a key that has not committed yet (or under none).
//
// A world is safe for concurrent use; the agents of a run take turns in
// virtual time anyway (see player).
type world struct {
	sc        *scenario
	t0        time.Time // the run's first instant
	hideHints bool      // a fault's Retry-After travels beside the error, not in it (see awsRetry)

	mu        sync.Mutex
	accepted  int       // dispatches of the accepted call that moved through the faults
	heldSince time.Time // when the fault being held (for_s) was first met
	ledgers   []ledger  // per logical call
}

// ledger is one logical call's effects.
type ledger struct {
	effects int
	keys    map[string]bool // keys a keyed tool committed under
}

func newWorld(sc *scenario, t0 time.Time) *world {
	return &world{sc: sc, t0: t0, ledgers: make([]ledger, sc.calls)}
}

// duplicates is the number of duplicate effects of logical call lc.
func (w *world) duplicates(lc int) int {
	t, _ := w.sc.toolNamed(w.sc.accept.tool)
	if !duplicates(t.effect) {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return max(w.ledgers[lc].effects-1, 0)
}

// committed reports whether logical call lc has taken effect: what a host
// that can look the effect up (a verifier) finds.
func (w *world) committed(lc int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ledgers[lc].effects > 0
}

// commit adds an effect of logical call lc made under key: under a key that
// has committed already it adds nothing (the tool honours it).
func (w *world) commit(lc int, key string) {
	l := &w.ledgers[lc]
	if t, _ := w.sc.toolNamed(w.sc.accept.tool); t.effect == reflection.EffectKeyed && key != "" {
		if l.keys[key] {
			return
		}
		if l.keys == nil {
			l.keys = map[string]bool{}
		}
		l.keys[key] = true
	}
	l.effects++
}

// dispatch runs one attempt of a call, as a host's dispatch would: a tool
// the scenario does not list fails with "unknown tool: <name>", any (tool,
// input) but the accepted one fails with the scenario's reject, both before
// anything happens and both as errors; the accepted call meets the faults
// (as errors, or as failure results when the scenario says as_result), then
// succeeds. ctx carries the call's record (see callState), which the
// dispatch counts into; a dispatch without one counts for logical call 0.
func (w *world) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	st := stateFrom(ctx)
	st.dispatches++
	st.fault, st.full = nil, nil
	sc := w.sc
	if _, ok := sc.toolNamed(call.Name); !ok {
		return reflection.ToolResult{}, noEffect(&toolError{text: "unknown tool: " + call.Name})
	}
	in, err := canonical(call.Input)
	if err != nil || (pair{tool: call.Name, input: in}) != sc.accept {
		return reflection.ToolResult{}, noEffect(w.rejection())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.next(time.Now())
	if f == nil {
		w.commit(st.logical, reflection.IdempotencyKey(ctx))
		return reflection.ToolResult{ID: call.ID, Content: sc.Result}, nil
	}
	if f.Commits {
		w.commit(st.logical, reflection.IdempotencyKey(ctx))
	}
	st.fault = f
	if sc.AsResult {
		return reflection.ToolResult{ID: call.ID, Content: f.Error, IsError: true}, nil
	}
	st.full = faultError(f, true)
	return reflection.ToolResult{}, faultError(f, !w.hideHints)
}

// next is the fault the accepted call meets now, or nil when it succeeds.
// w.mu is held.
func (w *world) next(now time.Time) *faultSpec {
	sc := w.sc
	if sc.heal > 0 && !now.Before(w.t0.Add(sc.heal)) {
		return nil
	}
	for {
		k := w.accepted
		if k >= len(sc.Faults) && !sc.Permanent {
			return nil
		}
		f := &sc.Faults[min(k, len(sc.Faults)-1)]
		switch {
		case f.hold == 0:
			w.accepted++
			return f
		case w.heldSince.IsZero():
			w.heldSince = now
			return f
		case now.Sub(w.heldSince) < f.hold:
			return f
		}
		// The fault's time is up: this dispatch meets the next one.
		w.accepted++
		w.heldSince = time.Time{}
	}
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
// when it has a Retry-After value (and withHint), matching
// context.DeadlineExceeded when it is a timeout and reflection's no-effect
// mark when it had no effect. Each property is a layer of its own, so an
// error has only the methods its fault gives it.
func faultError(f *faultSpec, withHint bool) error {
	err := error(&toolError{text: f.Error, timeout: f.Timeout})
	if f.Status != 0 {
		err = &statusError{err, f.Status}
	}
	if f.RetryAfter != "" && withHint {
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

// callID names Run r (0 the first, then its re-issues) of logical call lc.
func callID(sc *scenario, lc, r int) string {
	if r == 0 {
		return fmt.Sprintf("call_%s_%d", sc.ID, lc)
	}
	return fmt.Sprintf("call_%s_%d_reissue_%d", sc.ID, lc, r)
}
