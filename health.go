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
// The rules: before every dispatch (the original call and each retry) a
// Driver asks about the tool as it will run; while its breaker is open
// nothing is dispatched and the call ends softly without asking the
// Reflector (ReasonCircuitOpen), with a text that says the tool is
// temporarily unavailable and when to try again ("tool temporarily
// unavailable: circuit breaker open; retry in about 42s"), after the call's
// own failure text when a retry was refused.
//
// What opens a breaker is failing calls, not failing dispatches: a call adds
// at most one to its tool's count of consecutive failures, at its first
// failure of that tool that counts, and its later failures of the tool add
// nothing. So a call that fails three times and succeeds on its fourth
// dispatch leaves the breaker closed, while three calls whose dispatches
// fail open it. A success of any call closes the breaker and clears the
// count. The threshold-th failing call opens the breaker for openFor, or for
// as long as the failure's rate-limit hint asks when that is longer (up to
// the Driver's WithMaxRetryAfter cap).
//
// Only failures that speak of the tool's health count. A failure whose
// status (StatusCode) is 400 to 499, but for 408, 425 and 429, or that
// matches ErrInputRejected (a joined error: when every error it joins
// does), is the caller's mistake, not the tool's: it counts as neither a
// success nor a failure, so one agent's invalid calls never refuse another
// agent's valid ones. Nor does an attempt whose caller's ctx ended; one cut
// short by WithAttemptTimeout is a failure.
//
// Once openFor has passed, the breaker is half-open: exactly one call goes
// through as a probe, the others are refused as if it were open; the probe's
// success closes the breaker, a counted failure opens it again, and a probe
// whose failure does not count, or whose ctx ended, frees its place without
// changing anything. The place is freed whatever happens during the probe:
// an Observer hook or a log handler that panics cannot leave a breaker
// half-open for good.
//
// loopctl counts every failed dispatch instead; [Health.EveryDispatch]
// builds a Health that does.
//
// With WithSchemas, a tool the lookup does not know is never tracked. A
// Health holds at most 10,000 tools, forgetting closed ones first when full.
// Reading a closed breaker takes no lock and writes nothing, so the calls
// that succeed do not contend.
type Health struct {
	threshold     int32
	openFor       time.Duration
	everyDispatch bool // loopctl's counting: every failed dispatch adds one

	mu        sync.Mutex   // held to add or drop a tool
	tools     sync.Map     // tool key → *toolHealth
	tracked   atomic.Int64 // how many tools are in tools
	notClosed atomic.Int64 // how many of them are open or half-open
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

// EveryDispatch returns a new Health with h's threshold and open time that
// counts as loopctl does: every failed dispatch adds one to its tool's
// count, a call's retries too, and so do failures that say nothing of the
// tool's health (a 400, ErrInputRejected). With it, a lone call whose
// retries fail as often as the threshold opens its own tool's breaker. h is
// unchanged.
func (h *Health) EveryDispatch() *Health {
	return &Health{threshold: h.threshold, openFor: h.openFor, everyDispatch: true}
}

// RemainingDelay returns how long until tool's open breaker lets a probe
// through; 0 when it is closed or half-open, or h does not track the tool.
func (h *Health) RemainingDelay(tool string) time.Duration {
	t := h.entry(tool)
	if t == nil || BreakerState(t.state.Load()) != BreakerOpen {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if BreakerState(t.state.Load()) != BreakerOpen {
		return 0
	}
	return max(time.Until(t.openUntil), 0)
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

// admission is Health's answer to a dispatch about to run.
type admission struct {
	t        *toolHealth   // the tool's breaker; nil when h does not track it
	admitted bool          // the dispatch may run
	probe    bool          // it runs as the half-open breaker's probe
	wait     time.Duration // refused: how long the breaker stays open (0 while a probe runs)
	change   breakerChange // what the question changed
}

// admit asks whether a dispatch of tool may run now, and whether it runs as
// the half-open breaker's probe.
func (h *Health) admit(tool string) (a admission) {
	a.t = h.entry(tool)
	t := a.t
	if t == nil || BreakerState(t.state.Load()) == BreakerClosed {
		a.admitted = true
		return a
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch BreakerState(t.state.Load()) {
	case BreakerClosed:
		a.admitted = true
		return a
	case BreakerOpen:
		if now := time.Now(); now.Before(t.openUntil) {
			a.wait = t.openUntil.Sub(now)
			return a
		}
		t.state.Store(int32(BreakerHalfOpen))
		a.change = breakerChange{from: BreakerOpen, to: BreakerHalfOpen, changed: true}
	}
	if t.probing {
		return a
	}
	t.probing = true
	a.admitted, a.probe = true, true
	return a
}

// release frees the probe's place of a dispatch that was admitted and then
// did not run, whose caller's ctx ended, or whose failure does not count:
// nothing else changes.
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
func (h *Health) succeeded(t *toolHealth) breakerChange {
	if t == nil || BreakerState(t.state.Load()) == BreakerClosed && t.failures.Load() == 0 {
		return breakerChange{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	from := BreakerState(t.state.Load())
	if from != BreakerClosed {
		h.notClosed.Add(-1)
	}
	t.state.Store(int32(BreakerClosed))
	t.failures.Store(0)
	t.probing = false
	return breakerChange{from: from, to: BreakerClosed, changed: from != BreakerClosed}
}

// failed records a failure of tool on its breaker t, tracking the tool first
// when t is nil, and returns the breaker it recorded it on; hint is the
// failure's rate-limit hint, already capped. The threshold-th consecutive
// failure, or a probe's failure, opens the breaker; the failures before take
// no lock.
func (h *Health) failed(t *toolHealth, tool string, hint time.Duration) (*toolHealth, breakerChange) {
	if t == nil {
		if t = h.entry(tool); t == nil {
			t = h.add(tool)
		}
	}
	if n := t.failures.Add(1); n < h.threshold && BreakerState(t.state.Load()) == BreakerClosed {
		return t, breakerChange{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	from := BreakerState(t.state.Load())
	if from == BreakerClosed && t.failures.Load() < h.threshold {
		return t, breakerChange{} // a success cleared the count meanwhile
	}
	if from == BreakerClosed {
		h.notClosed.Add(1)
	}
	until := time.Now().Add(max(h.openFor, hint))
	if from == BreakerOpen && t.openUntil.After(until) {
		until = t.openUntil
	}
	t.openUntil = until
	t.probing = false
	t.state.Store(int32(BreakerOpen))
	return t, breakerChange{from: from, to: BreakerOpen, changed: from != BreakerOpen}
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

// evict drops a closed breaker, or any breaker when none is closed, so that
// h has room for one more tool. h.mu is held. It reads as few entries as it
// can: when every breaker is open it drops the first it meets.
func (h *Health) evict() {
	closedOnly := h.notClosed.Load() < h.tracked.Load()
	h.tools.Range(func(k, v any) bool {
		t := v.(*toolHealth)
		if closedOnly && BreakerState(t.state.Load()) != BreakerClosed {
			return true
		}
		t.mu.Lock()
		if BreakerState(t.state.Load()) != BreakerClosed {
			h.notClosed.Add(-1)
		}
		t.mu.Unlock()
		h.tools.Delete(k)
		return h.tracked.Add(-1) >= maxHealthTools
	})
	if h.tracked.Load() >= maxHealthTools {
		h.evictAny()
	}
}

// evictAny drops breakers, whatever their state, until h has room.
func (h *Health) evictAny() {
	h.tools.Range(func(k, v any) bool {
		t := v.(*toolHealth)
		t.mu.Lock()
		if BreakerState(t.state.Load()) != BreakerClosed {
			h.notClosed.Add(-1)
		}
		t.mu.Unlock()
		h.tools.Delete(k)
		return h.tracked.Add(-1) >= maxHealthTools
	})
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
	return min(retryAfterHint(err), d.hintCap())
}

// breakerChanged tells the observer about a change of tool's breaker.
func (rt *runtime) breakerChanged(tool string, c breakerChange) {
	if obs := rt.d.observer; c.changed && obs != nil && obs.BreakerChanged != nil {
		obs.BreakerChanged(rt.ctx, tool, c.from, c.to)
	}
}
