package reflection

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of NewHealth.
const (
	// DefaultBreakerThreshold is how many consecutive failures open a tool's
	// breaker: loopctl's default.
	DefaultBreakerThreshold = 3
	// DefaultBreakerOpenFor is how long a breaker stays open before it lets
	// a probe through: the default of gobreaker, failsafe-go and
	// resilience4j.
	DefaultBreakerOpenFor = 60 * time.Second
)

// maxHealthTools is how many tools a Health tracks at most.
const maxHealthTools = 10_000

// maxToolKey is the longest tool name a Health keeps as it is; a longer one
// is kept as its digest, so its memory does not grow with what a model
// writes.
const maxToolKey = 256

// BreakerState is the state of a tool's circuit breaker.
type BreakerState int

// The three states of a breaker.
const (
	BreakerClosed   BreakerState = iota // calls run
	BreakerOpen                         // calls are refused until the breaker has been open long enough
	BreakerHalfOpen                     // one call runs as a probe; the others are refused
)

var breakerNames = [...]string{"closed", "open", "half_open"}

// String returns "closed", "open" or "half_open".
func (s BreakerState) String() string {
	if s >= 0 && int(s) < len(breakerNames) {
		return breakerNames[s]
	}
	return "breaker_state(" + strconv.Itoa(int(s)) + ")"
}

// Health tracks recent failures of each tool and opens a circuit breaker for
// a tool that keeps failing, so that calls stop piling onto a dependency that
// is down. It is safe for concurrent use and may be shared by any number of
// Drivers (WithHealth); share one across the calls of a process.
//
// The rules, loopctl's with two refinements: before every dispatch (the
// original call and each retry) a Driver asks about the tool as it will run;
// while its breaker is open nothing is dispatched and the call ends softly
// with "tool temporarily unavailable: circuit breaker open" (ReasonCircuitOpen)
// without asking the Reflector. Every dispatch is recorded for the tool that
// ran: a success closes its breaker and clears its count; a failure adds one,
// and the threshold-th consecutive failure opens the breaker for openFor, or
// for as long as the failure's rate-limit hint asks when that is longer (up
// to the Driver's WithMaxRetryAfter cap). An attempt whose caller's ctx ended
// counts as neither; one cut short by WithAttemptTimeout is a failure. Once
// openFor has passed, the breaker is half-open: exactly one call goes
// through as a probe, the others are refused as if it were open; the probe's
// success closes the breaker, its failure opens it again, and a probe whose
// ctx ended frees its place without changing anything.
//
// With WithSchemas, a tool the lookup does not know is never tracked. A
// Health holds at most 10,000 tools, forgetting closed ones first when full.
// Reading a closed breaker takes no lock and writes nothing, so the calls
// that succeed do not contend.
type Health struct {
	threshold int32
	openFor   time.Duration

	mu      sync.Mutex   // held to add or drop a tool
	tools   sync.Map     // tool key → *toolHealth
	tracked atomic.Int64 // how many tools are in tools
}

// toolHealth is one tool's breaker.
type toolHealth struct {
	state    atomic.Int32 // a BreakerState
	failures atomic.Int32 // consecutive failures

	mu        sync.Mutex // held for every change of state
	openUntil time.Time
	probing   bool // a probe is under way
}

// NewHealth returns a Health whose breakers open after threshold
// consecutive failures and stay open for openFor before they let a probe
// through. A threshold or openFor of 0 or less means the default:
// DefaultBreakerThreshold, DefaultBreakerOpenFor.
func NewHealth(threshold int, openFor time.Duration) *Health {
	if threshold <= 0 {
		threshold = DefaultBreakerThreshold
	}
	if openFor <= 0 {
		openFor = DefaultBreakerOpenFor
	}
	return &Health{threshold: int32(min(threshold, 1<<30)), openFor: openFor}
}

// WithHealth makes the Driver consult h before every dispatch and record
// every dispatch in it (see Health). nil means none.
func WithHealth(h *Health) Option {
	return func(d *Driver) { d.health = h }
}

// State returns the state of tool's breaker: BreakerClosed for a tool h does
// not track. An open breaker whose time is up reads BreakerHalfOpen: the
// next call goes through as a probe.
func (h *Health) State(tool string) BreakerState {
	t := h.entry(tool)
	if t == nil {
		return BreakerClosed
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := BreakerState(t.state.Load())
	if s == BreakerOpen && !time.Now().Before(t.openUntil) {
		return BreakerHalfOpen
	}
	return s
}

// breakerChange is a change of a tool's breaker, for the Observer.
type breakerChange struct {
	from, to BreakerState
	changed  bool
}

// key is the name under which h tracks tool.
func healthKey(tool string) string {
	if len(tool) <= maxToolKey {
		return tool
	}
	sum := sha256.Sum256([]byte(tool))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// entry returns tool's breaker, or nil when h does not track it.
func (h *Health) entry(tool string) *toolHealth {
	if h.tracked.Load() == 0 {
		return nil
	}
	if v, ok := h.tools.Load(healthKey(tool)); ok {
		return v.(*toolHealth)
	}
	return nil
}

// closed returns tool's breaker, reading only, and whether it is closed:
// the test of Run's happy path. The breaker is nil when h does not track
// the tool.
func (h *Health) closed(tool string) (*toolHealth, bool) {
	t := h.entry(tool)
	return t, t == nil || BreakerState(t.state.Load()) == BreakerClosed
}

// admit asks whether a dispatch of tool may run now, and whether it runs as
// the half-open breaker's probe. It returns the tool's breaker (nil when h
// does not track it) for settle to record the dispatch in.
func (h *Health) admit(tool string) (t *toolHealth, admitted, probe bool, change breakerChange) {
	t = h.entry(tool)
	if t == nil || BreakerState(t.state.Load()) == BreakerClosed {
		return t, true, false, change
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch BreakerState(t.state.Load()) {
	case BreakerClosed:
		return t, true, false, change
	case BreakerOpen:
		if time.Now().Before(t.openUntil) {
			return t, false, false, change
		}
		t.state.Store(int32(BreakerHalfOpen))
		change = breakerChange{from: BreakerOpen, to: BreakerHalfOpen, changed: true}
	}
	if t.probing {
		return t, false, false, change
	}
	t.probing = true
	return t, true, true, change
}

// release frees the probe's place of a dispatch that was admitted and then
// did not run, or whose caller's ctx ended: nothing else changes.
func (t *toolHealth) release() {
	if t != nil && BreakerState(t.state.Load()) == BreakerHalfOpen {
		t.mu.Lock()
		t.probing = false
		t.mu.Unlock()
	}
}

// succeeded records a success on tool's breaker t (nil when untracked): it
// closes and its count clears. It writes nothing unless the breaker has
// something to forget.
func (t *toolHealth) succeeded() breakerChange {
	if t == nil || BreakerState(t.state.Load()) == BreakerClosed && t.failures.Load() == 0 {
		return breakerChange{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	from := BreakerState(t.state.Load())
	t.state.Store(int32(BreakerClosed))
	t.failures.Store(0)
	t.probing = false
	return breakerChange{from: from, to: BreakerClosed, changed: from != BreakerClosed}
}

// failed records a failure of tool on its breaker t, tracking the tool first
// when t is nil; hint is the failure's rate-limit hint, already capped. The
// threshold-th consecutive failure, or a probe's failure, opens the
// breaker; the failures before take no lock.
func (h *Health) failed(t *toolHealth, tool string, hint time.Duration) breakerChange {
	if t == nil {
		if t = h.entry(tool); t == nil {
			t = h.add(tool)
		}
	}
	if n := t.failures.Add(1); n < h.threshold && BreakerState(t.state.Load()) == BreakerClosed {
		return breakerChange{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	from := BreakerState(t.state.Load())
	if from == BreakerClosed && t.failures.Load() < h.threshold {
		return breakerChange{} // a success cleared the count meanwhile
	}
	until := time.Now().Add(max(h.openFor, hint))
	if from == BreakerOpen && t.openUntil.After(until) {
		until = t.openUntil
	}
	t.openUntil = until
	t.probing = false
	t.state.Store(int32(BreakerOpen))
	return breakerChange{from: from, to: BreakerOpen, changed: from != BreakerOpen}
}

// add starts tracking tool, making room when h is full: closed breakers go
// first, then any.
func (h *Health) add(tool string) *toolHealth {
	key := healthKey(tool)
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := h.tools.Load(key); ok {
		return v.(*toolHealth)
	}
	if h.tracked.Load() >= maxHealthTools {
		h.evict()
	}
	t := &toolHealth{}
	h.tools.Store(key, t)
	h.tracked.Add(1)
	return t
}

// evict drops closed breakers, and then others, until h has room for one
// more tool. h.mu is held.
func (h *Health) evict() {
	for _, closedOnly := range []bool{true, false} {
		h.tools.Range(func(k, v any) bool {
			if closedOnly && BreakerState(v.(*toolHealth).state.Load()) != BreakerClosed {
				return true
			}
			h.tools.Delete(k)
			return h.tracked.Add(-1) >= maxHealthTools
		})
		if h.tracked.Load() < maxHealthTools {
			return
		}
	}
}

// tracks reports whether d's Health may track tool: with WithSchemas, only a
// tool the lookup knows.
func (d *Driver) tracks(tool string) bool {
	if d.schemas == nil {
		return true
	}
	_, ok := d.lookup(tool)
	return ok
}

// breakerHint is how long a failure with err asks the breaker to stay open:
// its rate-limit hint, up to the Driver's cap.
func (d *Driver) breakerHint(err error) time.Duration {
	if err == nil {
		return 0
	}
	return min(RetryAfterHint(err), d.hintCap())
}

// breakerChanged tells the observer about a change of tool's breaker.
func (rt *runtime) breakerChanged(tool string, c breakerChange) {
	if obs := rt.d.observer; c.changed && obs != nil && obs.BreakerChanged != nil {
		obs.BreakerChanged(rt.ctx, tool, c.from, c.to)
	}
}
