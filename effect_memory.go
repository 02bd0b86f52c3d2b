package reflection

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEffectWindow is how long an EffectMemory made with a window of 0
// remembers a call.
const DefaultEffectWindow = time.Hour

// maxRememberedCalls is how many calls an EffectMemory holds at most.
const maxRememberedCalls = 10_000

// EffectMemory remembers calls that may have acted without succeeding, so
// that a model's re-issue is not dispatched blindly. Safe for concurrent
// use; share one across Drivers.
//
// With WithEffects, a Driver remembers every call of a tool that is
// EffectNonIdempotent or EffectUndeclared, or EffectKeyed with a key Run
// minted (a new call would get a new key), that ended without success after
// a failure that may have come after the tool acted: the call as the model
// issued it (its tool, and its input as a JSON value), its ID, the call as
// that failure's dispatch ran, its failure text and when it ended. A later
// call of the same tool with an equal input, within the window, is not
// dispatched: the effect guard asks a human first (ReasonAmbiguousEffect),
// naming the earlier call, or asks the Driver's verifier (WithVerifier). An
// approval dispatches it, and its success forgets the earlier call.
//
// A memory holds at most 10,000 calls and forgets the oldest first; a call
// older than the window is forgotten when it is next looked up. Its memory
// does not grow with the size of inputs: each call is kept under a digest,
// beside its last failure text and the call as it last ran.
type EffectMemory struct {
	window time.Duration
	size   atomic.Int64 // how many calls are remembered; read without the lock

	mu    sync.RWMutex
	calls map[digest]*rememberedEntry
	tools map[string]int // how many remembered calls each tool key has
	queue []queuedEntry  // the calls in the order they were remembered; some may be gone
	seq   uint64
}

type rememberedEntry struct {
	rc   RememberedCall
	tool string // the tool key the entry counts under
	seq  uint64
}

type queuedEntry struct {
	key digest
	seq uint64
}

// NewEffectMemory returns an empty memory that remembers a call for window;
// 0 or less means DefaultEffectWindow.
func NewEffectMemory(window time.Duration) *EffectMemory {
	if window <= 0 {
		window = DefaultEffectWindow
	}
	return &EffectMemory{window: window, calls: map[digest]*rememberedEntry{}, tools: map[string]int{}}
}

// WithEffectMemory makes the Driver remember calls in m, which any number
// of Drivers may share; nil turns the memory off. Without this option a
// Driver with WithEffects has a memory of its own with the default window.
func WithEffectMemory(m *EffectMemory) Option {
	return func(d *Driver) { d.memory, d.memorySet = m, true }
}

type effectMemoryKey struct{}

// ContextWithEffectMemory gives the calls made with ctx a memory of their
// own (one per session or conversation, as ContextWithLoopDetector does for
// the loop detector): calls under it are remembered and matched there only,
// never in the Driver's memory, so one user's ambiguous call never holds
// back another user's identical one. It applies with WithEffects, even when
// WithEffectMemory(nil) turned the Driver's memory off. A nil m turns the
// memory off for the calls made with ctx.
func ContextWithEffectMemory(ctx context.Context, m *EffectMemory) context.Context {
	return context.WithValue(ctx, effectMemoryKey{}, m)
}

// memoryFor is the memory of the calls made with ctx: ctx's own, else the
// Driver's; nil when there is none.
func (d *Driver) memoryFor(ctx context.Context) *EffectMemory {
	if m, ok := ctx.Value(effectMemoryKey{}).(*EffectMemory); ok {
		return m
	}
	return d.memory
}

// Len returns how many calls m remembers, counting those past the window
// that have not been looked up since.
func (m *EffectMemory) Len() int { return int(m.size.Load()) }

// Window returns how long m remembers a call.
func (m *EffectMemory) Window() time.Duration { return m.window }

// Recall returns what m remembers of a call of the same tool with an input
// equal to call's (as JSON values), if that call ended within the window
// before now. A runtime of its own (a workflow with its own clock) asks it
// before a call's first dispatch, and hands a match to Recovery.Remembered.
func (m *EffectMemory) Recall(call ToolCall, now time.Time) (RememberedCall, bool) {
	if m == nil || !m.mayHold(call.Name) {
		return RememberedCall{}, false
	}
	key := callDigest(call)
	m.mu.RLock()
	e := m.calls[key]
	m.mu.RUnlock()
	if e == nil {
		return RememberedCall{}, false
	}
	if now.Sub(e.rc.At) > m.window {
		m.mu.Lock()
		if m.calls[key] == e {
			m.drop(key, e)
		}
		m.mu.Unlock()
		return RememberedCall{}, false
	}
	return e.rc, true
}

// Remember keeps rc for call (the call as the model issued it), replacing
// what m held for an equal call; when m is full, the oldest call is
// forgotten first.
func (m *EffectMemory) Remember(call ToolCall, rc RememberedCall) {
	if m == nil {
		return
	}
	key := callDigest(call)
	tool := healthKey(call.Name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.calls[key]; old != nil {
		m.drop(key, old)
	}
	m.seq++
	m.calls[key] = &rememberedEntry{rc: rc, tool: tool, seq: m.seq}
	m.tools[tool]++
	m.size.Add(1)
	m.queue = append(m.queue, queuedEntry{key: key, seq: m.seq})
	for len(m.calls) > maxRememberedCalls {
		m.dropOldest()
	}
	if len(m.queue) > 2*maxRememberedCalls {
		m.compact()
	}
}

// Forget drops what m remembers of a call equal to call.
func (m *EffectMemory) Forget(call ToolCall) {
	if m == nil || !m.mayHold(call.Name) {
		return
	}
	key := callDigest(call)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.calls[key]; e != nil {
		m.drop(key, e)
	}
}

// mayHold reports, without hashing an input, whether m may remember a call
// of tool: the test every call of a guarded tool makes, so it reads one
// counter while m is empty.
func (m *EffectMemory) mayHold(tool string) bool {
	if m.size.Load() == 0 {
		return false
	}
	m.mu.RLock()
	n := m.tools[healthKey(tool)]
	m.mu.RUnlock()
	return n > 0
}

// drop forgets the entry e under key. m.mu is held.
func (m *EffectMemory) drop(key digest, e *rememberedEntry) {
	delete(m.calls, key)
	if n := m.tools[e.tool]; n > 1 {
		m.tools[e.tool] = n - 1
	} else {
		delete(m.tools, e.tool)
	}
	m.size.Add(-1)
}

// dropOldest forgets the call remembered first. m.mu is held.
func (m *EffectMemory) dropOldest() {
	for len(m.queue) > 0 {
		q := m.queue[0]
		m.queue = m.queue[1:]
		if e := m.calls[q.key]; e != nil && e.seq == q.seq {
			m.drop(q.key, e)
			return
		}
	}
}

// compact drops from the queue the calls that are no longer remembered.
// m.mu is held.
func (m *EffectMemory) compact() {
	kept := make([]queuedEntry, 0, len(m.calls))
	for _, q := range m.queue {
		if e := m.calls[q.key]; e != nil && e.seq == q.seq {
			kept = append(kept, q)
		}
	}
	m.queue = kept
}
