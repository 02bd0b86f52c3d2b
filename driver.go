package reflection

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"
)

// Driver runs tool calls and recovers from their failures: it asks its
// Reflector what went wrong, its RecoveryStrategy what to do, and retries
// with corrections applied, never more than MaxRecoveryAttempts times.
//
// The rules of that loop live in Recovery, a state machine that performs no
// I/O; Run is the runtime that drives it with real calls, real timers and a
// context, and that consults what calls share (a Health, a RetryBudget, a
// LoopDetector). A Driver is immutable after NewDriver and safe for
// concurrent use by any number of goroutines. The zero Driver, and a nil
// *Driver, behave exactly like NewDriver().
type Driver struct {
	settings // what each Recovery follows

	reflector      Reflector
	logger         *slog.Logger
	observer       *Observer
	asker          Asker
	attemptTimeout time.Duration
	redact         func(string) string
	logTexts       bool
	ownCheck       func(tool string, input json.RawMessage) error // WithInputCheck's
	health         *Health
	budget         *RetryBudget
	detection      bool // WithLoopDetection
	memory         *EffectMemory
	memorySet      bool                       // WithEffectMemory was given, nil included
	keyOf          func(call ToolCall) string // WithIdempotencyKeys
	toolFilter     func(from, to string) bool // WithToolChangeFilter
	toolList       map[string]struct{}        // WithAllowedTools; nil when not given

	// hooked is set when something must happen around the original call
	// (an observer hook, an attempt timeout, a loop detector), so Run sets up
	// the machine before it; the zero Driver needs none.
	hooked bool

	// busy is set when something happens around the machine's steps (a
	// hook, a log, an attempt timeout, shared state, an idempotency key);
	// without, Run drives the machine in a loop of its own, the cheapest.
	busy bool
}

// NewDriver returns a Driver configured by opts. Without options it uses
// NoopReflector and NewExponentialBackoff(3), which together never retry.
func NewDriver(opts ...Option) *Driver {
	d := &Driver{}
	for _, opt := range opts {
		if opt != nil {
			opt(d)
		}
	}
	d.resolve()
	return d
}

// With returns a new Driver with d's settings and opts applied after them;
// d is unchanged. A nil d starts from the defaults. Adapters use it to add
// what they know (a schema lookup for the one tool they wrap, an observer
// joined with the host's) to a Driver the host built.
func (d *Driver) With(opts ...Option) *Driver {
	out := &Driver{}
	if d != nil {
		*out = *d
	}
	for _, opt := range opts {
		if opt != nil {
			opt(out)
		}
	}
	out.resolve()
	return out
}

// resolve works out the settings that depend on several options, once they
// are all applied: the input check is WithInputCheck's, or else the
// Reflector's own over the schema lookup (a Reflector with an InputCheck method).
func (d *Driver) resolve() {
	d.allowTool = toolChangeRule(d.toolList, d.toolFilter)
	d.inputCheck = d.ownCheck
	if d.inputCheck == nil {
		d.inputCheck = reflectorCheck(d.reflector, d.schemas)
	}
	if d.effect != nil && d.memory == nil && !d.memorySet {
		d.memory = NewEffectMemory(0) // WithEffects remembers by default
	}
	d.hooked = d.observer != nil || d.attemptTimeout > 0 || d.detection
	d.busy = d.hooked || d.logger != nil || d.health != nil || d.budget != nil || d.effect != nil
}

// defaultDriver stands in for a nil *Driver.
var defaultDriver Driver

// defaultReflector is the Reflector of a Driver without one, stored as an
// interface value once, so using it costs no allocation.
var defaultReflector Reflector = NoopReflector{}

// Run dispatches call and, while it fails, asks the Reflector why and the
// RecoveryStrategy what to do, until the call succeeds, the strategy stops,
// ctx ends, or MaxRecoveryAttempts retries have been made. The package
// documentation gives the rules step by step.
//
// A success is returned as dispatch returned it, with ID set to call.ID.
// Skip, AskUser and Fail end in a soft error: a ToolResult with IsError set,
// the latest failure text as Content (for AskUser followed by a note that a
// human decision is needed) and a nil error, so the model sees the failure
// and can change its plan. Only these end in a non-nil error: ctx ending
// (the error matches ctx.Err()), a wait that cannot end before ctx's
// deadline (it matches context.DeadlineExceeded), a sixth failed call the
// strategy still wants to retry (*ToolRecoveryExhaustedError), a nil
// dispatch (ErrNilDispatch) and, with WithLoopDetection, a dispatch the
// session's loop detector refused (*LoopDetectedError). With each of them Run
// still returns an error result carrying the latest failure text.
func (d *Driver) Run(ctx context.Context, call ToolCall, dispatch DispatchFunc) (ToolResult, error) {
	if d == nil {
		d = &defaultDriver
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if d.hooked || dispatch == nil || ctx.Err() != nil {
		return d.drive(ctx, call, dispatch, nil, nil)
	}
	// The happy path: the original call, before any machine is set up. What
	// calls share is consulted here only when it costs a read.
	var breaker *toolHealth
	if h := d.health; h != nil {
		var closed bool
		if breaker, closed = h.closed(call.Name); !closed {
			return d.drive(ctx, call, dispatch, nil, nil)
		}
	}
	if d.effect != nil && d.guardsFirst(ctx, call.Name) {
		return d.drive(ctx, call, dispatch, nil, nil)
	}
	var o outcome
	callDispatch(ctx, call, dispatch, &o)
	if o.failed() {
		return d.drive(ctx, call, dispatch, &o, nil)
	}
	d.health.succeeded(breaker)
	if d.budget != nil {
		d.budget.reward()
	}
	return ToolResult{ID: call.ID, Content: o.res.Content}, nil
}

// RunWithReport is Run, and also returns what the call went through: the
// Report holds exactly the result Run returns, the outcome and its reason,
// and a record of every attempt with the runtime's times. The error is Run's.
func (d *Driver) RunWithReport(ctx context.Context, call ToolCall, dispatch DispatchFunc) (Report, error) {
	if d == nil {
		d = &defaultDriver
	}
	if ctx == nil {
		ctx = context.Background()
	}
	rep := &Report{}
	_, err := d.drive(ctx, call, dispatch, nil, rep)
	return *rep, err
}

// NewRecovery returns the recovery loop for call, following d's settings,
// for a runtime of its own to drive. ctx is what the strategy's Decide
// receives and where the task comes from (TaskFromContext); the machine
// never waits on it or checks it: the runtime does, and calls Stop. A nil
// ctx counts as context.Background(), and a nil d as NewDriver().
//
// A Recovery from NewRecovery keeps a Report of the call (see
// Recovery.Report). Its AskUser decisions yield an AskStep when d has an
// Asker (WithAsker) or when the runtime calls EnableAsk. What calls share
// (WithHealth, WithRetryBudget, WithLoopDetection) is the runtime's to
// consult: the machine only offers Refuse and Stop for what they decide.
func (d *Driver) NewRecovery(ctx context.Context, call ToolCall) *Recovery {
	if d == nil {
		d = &defaultDriver
	}
	if ctx == nil {
		ctx = context.Background()
	}
	own := d.settings // EnableAsk changes this copy, never the Driver's
	r := &Recovery{rep: &Report{}}
	r.init(ctx, call, &own)
	return r
}

// guardsFirst reports whether a call of tool needs the effect guard before
// its first dispatch: a keyed tool gets its key, and a call that the
// memory may remember is looked up.
func (d *Driver) guardsFirst(ctx context.Context, tool string) bool {
	switch d.effectOf(tool) {
	case EffectKeyed:
		return true
	case EffectNonIdempotent, EffectUndeclared:
		m := d.memoryFor(ctx)
		return m != nil && m.mayHold(tool)
	}
	return false
}
