package reflectionadk

import "time"

// Option configures NewPlugin, WrapTool, WrapTools or NewSessions. Each
// reads the options that concern it and ignores the others.
type Option func(*config)

// Defaults of the session store.
const (
	// DefaultMaxSessions is how many sessions a Sessions keeps state for at
	// once; the one used least recently is forgotten first.
	DefaultMaxSessions = 1024

	// DefaultSessionIdle is how long a session may go without a tool call
	// before its state is forgotten: the window of the effect memory, past
	// which it would have nothing left to match.
	DefaultSessionIdle = time.Hour
)

// config is what the options set.
type config struct {
	sessions       *Sessions // NewPlugin, WrapTool(s): the store to share
	maxSessions    int       // NewSessions
	idle           time.Duration
	window         time.Duration // NewSessions: of each session's effect memory
	detect         bool          // NewSessions: a loop detector per session
	warnAt, stopAt int
}

// newConfig applies opts, skipping nil ones, to the defaults.
func newConfig(opts []Option) config {
	c := config{maxSessions: DefaultMaxSessions, idle: DefaultSessionIdle, detect: true}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c
}

// WithSessions makes a plugin or a wrapper keep its per-session state in s,
// so that a plugin and the wrappers of one application (or several plugins)
// give a session one loop detector and one effect memory between them, and
// the host can forget a session it has deleted ([Sessions.Forget]). Without
// it each NewPlugin, WrapTool and WrapTools has a store of its own, built by
// NewSessions with the same options. nil means that default. Used by
// NewPlugin, WrapTool and WrapTools.
func WithSessions(s *Sessions) Option {
	return func(c *config) { c.sessions = s }
}

// WithMaxSessions sets how many sessions the store keeps state for; past
// that, the session used least recently is forgotten. n ≤ 0 means
// DefaultMaxSessions. Used by NewSessions (and by a plugin or wrapper that
// builds its own store).
func WithMaxSessions(n int) Option {
	return func(c *config) {
		if n <= 0 {
			n = DefaultMaxSessions
		}
		c.maxSessions = n
	}
}

// WithSessionIdle sets how long a session's state is kept after its last
// tool call. d ≤ 0 means DefaultSessionIdle. Used by NewSessions.
func WithSessionIdle(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			d = DefaultSessionIdle
		}
		c.idle = d
	}
}

// WithEffectWindow sets how long each session's reflection.EffectMemory
// remembers a call that may have acted without succeeding, as
// reflection.NewEffectMemory takes it: 0 or less means
// reflection.DefaultEffectWindow, an hour. Used by NewSessions.
func WithEffectWindow(d time.Duration) Option {
	return func(c *config) { c.window = d }
}

// WithLoopDetection sets whether each session gets a
// reflection.LoopDetector, and the Driver the WithLoopDetection option to
// consult it. On by default. Used by NewSessions.
func WithLoopDetection(on bool) Option {
	return func(c *config) { c.detect = on }
}

// WithLoopLimits sets the thresholds of each session's loop detector, as
// reflection.NewLoopDetector takes them: a note once a call has returned the
// same result warnAt times, a refusal once it has stopAt times. 0 or less
// means the detector's defaults (3 and 10). Used by NewSessions.
func WithLoopLimits(warnAt, stopAt int) Option {
	return func(c *config) { c.warnAt, c.stopAt = warnAt, stopAt }
}
