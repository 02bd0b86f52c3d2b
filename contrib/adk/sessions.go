package reflectionadk

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/tool"
)

// Sessions keeps, for each ADK session, what recovery must remember across
// the session's calls: a reflection.EffectMemory (so the model's re-issue of
// a call that may already have acted is not dispatched blindly, while
// another session's identical call is not held back), a
// reflection.LoopDetector (so the same call returning the same result again
// and again is stopped), and the tools the session's agents last offered the
// model (so a ToolChange runs a tool the session has). A session is ADK's:
// its app name, user ID and session ID. The memory applies when the Driver
// has reflection.WithEffects, as any effect memory does.
//
// The store is bounded. It holds at most WithMaxSessions sessions, and
// forgets a session WithSessionIdle after its last call; ADK says nothing
// when a session ends, so both bounds are what keeps a long-running server
// from keeping every session it ever served. A forgotten session that calls
// again starts afresh. A session's loop detector, the bulk of its state, is
// made on its first tool call.
//
// A Sessions is safe for concurrent use; share one between a plugin and
// wrappers with WithSessions.
type Sessions struct {
	max    int
	idle   time.Duration
	window time.Duration
	detect bool
	warnAt int
	stopAt int

	mu    sync.Mutex
	byKey map[sessionKey]*list.Element // of *scope
	order list.List                    // front: used most recently
}

// sessionKey names an ADK session.
type sessionKey struct{ app, user, session string }

// scope is the state of one session.
type scope struct {
	key    sessionKey
	store  *Sessions
	used   time.Time // under store.mu
	memory *reflection.EffectMemory

	mu       sync.Mutex
	detector *reflection.LoopDetector        // nil until the first call, or when detection is off
	tools    map[string]map[string]tool.Tool // by agent name: its last request's tools
}

// NewSessions returns an empty store. Of the options, it reads
// WithMaxSessions, WithSessionIdle, WithEffectWindow, WithLoopDetection and
// WithLoopLimits.
func NewSessions(opts ...Option) *Sessions {
	c := newConfig(opts)
	return newSessions(c)
}

func newSessions(c config) *Sessions {
	return &Sessions{
		max: c.maxSessions, idle: c.idle, window: c.window, detect: c.detect, warnAt: c.warnAt, stopAt: c.stopAt,
		byKey: make(map[sessionKey]*list.Element),
	}
}

// Len returns how many sessions the store holds state for now.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(time.Now())
	return len(s.byKey)
}

// Forget drops the state of one session, for a host that deletes the
// session from its session.Service. A session the store does not hold is
// ignored.
func (s *Sessions) Forget(appName, userID, sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byKey[sessionKey{appName, userID, sessionID}]; ok {
		s.drop(e)
	}
}

// scope returns the state of the session ctx belongs to, made on first use,
// and marks it used now; nil for a ctx of no session.
func (s *Sessions) scope(ctx agent.ReadonlyContext) *scope {
	key := sessionKey{ctx.AppName(), ctx.UserID(), ctx.SessionID()}
	if key.session == "" {
		return nil
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if e, ok := s.byKey[key]; ok {
		sc := e.Value.(*scope)
		sc.used = now
		s.order.MoveToFront(e)
		return sc
	}
	sc := &scope{key: key, store: s, used: now, memory: reflection.NewEffectMemory(s.window)}
	s.byKey[key] = s.order.PushFront(sc)
	for len(s.byKey) > s.max {
		s.drop(s.order.Back())
	}
	return sc
}

// expire drops the sessions idle since before now minus the idle bound:
// they are at the back, the least recently used. s.mu is held.
func (s *Sessions) expire(now time.Time) {
	for e := s.order.Back(); e != nil; e = s.order.Back() {
		if now.Sub(e.Value.(*scope).used) < s.idle {
			return
		}
		s.drop(e)
	}
}

// drop forgets one session. s.mu is held.
func (s *Sessions) drop(e *list.Element) {
	delete(s.byKey, e.Value.(*scope).key)
	s.order.Remove(e)
}

// bind returns ctx with the session's memory and detector in it, for a
// Run; ctx itself for no session.
func (sc *scope) bind(ctx context.Context) context.Context {
	if sc == nil {
		return ctx
	}
	ctx = reflection.ContextWithEffectMemory(ctx, sc.memory)
	if d := sc.loopDetector(); d != nil {
		ctx = reflection.ContextWithLoopDetector(ctx, d)
	}
	return ctx
}

// loopDetector returns the session's detector, made on first use; nil when
// detection is off.
func (sc *scope) loopDetector() *reflection.LoopDetector {
	s := sc.store
	if !s.detect {
		return nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.detector == nil {
		sc.detector = reflection.NewLoopDetector(s.warnAt, s.stopAt)
	}
	return sc.detector
}

// offer records the tools an agent of the session offered the model in its
// latest request.
func (sc *scope) offer(agentName string, tools map[string]tool.Tool) {
	if sc == nil {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.tools == nil {
		sc.tools = make(map[string]map[string]tool.Tool)
	}
	sc.tools[agentName] = tools
}

// tool returns the tool of that name the agent last offered.
func (sc *scope) tool(agentName, name string) (tool.Tool, bool) {
	if sc == nil {
		return nil, false
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	t, ok := sc.tools[agentName][name]
	return t, ok
}
