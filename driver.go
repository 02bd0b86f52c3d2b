package reflection

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// MaxRecoveryAttempts is the hard ceiling on retries after the original
// call: a tool runs at most MaxRecoveryAttempts+1 = 6 times per Run, whatever
// the strategy says.
const MaxRecoveryAttempts = 5

// DefaultMaxCorrectedInput is the largest InputFix, in bytes, that a Driver
// applies unless WithMaxCorrectedInput says otherwise.
const DefaultMaxCorrectedInput = 1 << 20

// ToolCall is one call of a tool, as the model asked for it.
type ToolCall struct {
	ID    string          // the model's tool-call id
	Name  string          // the tool to run
	Input json.RawMessage // the tool's arguments, normally a JSON object
}

// ToolResult is what a tool call produced, as the model will see it.
type ToolResult struct {
	ID      string // always the original ToolCall.ID, whatever corrections did
	Content string // the output, or the failure text when IsError is set
	IsError bool   // the call failed
}

// DispatchFunc runs one tool call: the host framework's own dispatch, with
// its registry, hooks and observers. The Driver calls it once per attempt.
// A returned error and a result with IsError both count as failures.
type DispatchFunc func(ctx context.Context, call ToolCall) (ToolResult, error)

// SchemaLookup returns the registered schema of a tool, and false for a tool
// the host does not know.
type SchemaLookup func(tool string) (ToolSchema, bool)

// Driver runs tool calls and recovers from their failures: it asks its
// Reflector what went wrong, its RecoveryStrategy what to do, and retries
// with corrections applied, never more than MaxRecoveryAttempts times.
//
// The rules of that loop live in Recovery, a state machine that performs no
// I/O; Run is the runtime that drives it with real calls, real timers and a
// context. A Driver is immutable after NewDriver and safe for concurrent use
// by any number of goroutines. The zero Driver, and a nil *Driver, behave
// exactly like NewDriver().
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
// Reflector's own over the schema lookup (see InputChecker).
func (d *Driver) resolve() {
	d.inputCheck = d.ownCheck
	if d.inputCheck == nil {
		d.inputCheck = reflectorCheck(d.reflector, d.schemas)
	}
}

// defaultDriver stands in for a nil *Driver.
var defaultDriver Driver

// Run dispatches call and, while it fails, asks the Reflector why and the
// RecoveryStrategy what to do, until the call succeeds, the strategy stops,
// ctx ends, or MaxRecoveryAttempts retries have been made.
//
// A success is returned as dispatch returned it, with ID set to call.ID.
// Skip, AskUser and Fail end in a soft error: a ToolResult with IsError set,
// the latest failure text as Content (for AskUser followed by a note that a
// human decision is needed) and a nil error, so the model sees the failure
// and can change its plan. Only three things end in a non-nil error: ctx
// ending (the error matches ctx.Err()), a wait that cannot end before ctx's
// deadline (it matches context.DeadlineExceeded), and a sixth failed call the
// strategy still wants to retry (*ToolRecoveryExhaustedError). With each of
// them Run still returns an error result carrying the latest failure text.
//
// Before each retry Run waits the action's delay (ctx interrupts the wait)
// and applies the analysis' correction: an InputFix replaces the input when
// it is a JSON object, a ToolChange replaces the tool name when the tool is
// known (see WithSchemas and WithToolChangeFilter). A correction that cannot
// apply is dropped with a warning and the retry runs unchanged. Corrections
// accumulate across attempts; the result's ID stays call.ID.
//
// Panics in dispatch, the Reflector and the strategy are recovered: a panic
// in dispatch is a failure like any other, one in the Reflector or strategy
// means Fail. Run passes call.Input to dispatch untouched, even when it is
// not valid JSON, and dispatches an empty tool name like any other (the
// host's dispatch decides what an unknown tool means). A nil dispatch
// returns ErrNilDispatch; a nil ctx counts as context.Background().
func (d *Driver) Run(ctx context.Context, call ToolCall, dispatch DispatchFunc) (ToolResult, error) {
	if d == nil {
		d = &defaultDriver
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if dispatch == nil || ctx.Err() != nil || d.observer != nil || d.attemptTimeout > 0 {
		return d.drive(ctx, call, dispatch, nil, nil)
	}
	// The happy path: the original call, before any machine is set up.
	var o outcome
	callDispatch(ctx, call, dispatch, &o)
	if !o.failed() {
		return ToolResult{ID: call.ID, Content: o.res.Content}, nil
	}
	return d.drive(ctx, call, dispatch, &o, nil)
}

// RunWithReport is Run, and also returns what the call went through: the
// Report holds exactly the result Run returns, the outcome, and a record of
// every attempt with the runtime's times. The error is Run's.
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

// outcome is what one dispatch produced.
type outcome struct {
	res ToolResult
	err error // dispatch's error, or a *PanicError
}

func (o *outcome) failed() bool { return o.err != nil || o.res.IsError }

// drive runs a Recovery for call to its end. first is the failed outcome of
// the original call when Run has made it already; rep, when not nil, is
// filled with the call's report. The hooks, the log, the attempt timeout and
// the report each cost a nil check when unused.
func (d *Driver) drive(ctx context.Context, call ToolCall, dispatch DispatchFunc, first *outcome, rep *Report) (ToolResult, error) {
	var r Recovery
	r.init(ctx, call, &d.settings)
	r.rep = rep
	switch {
	case first != nil:
		r.dispatched(first, time.Time{}, time.Time{})
		if ctx.Err() != nil {
			r.Stop(stopError(ctx))
		}
	case dispatch == nil:
		r.Stop(ErrNilDispatch)
	}
	reflector := d.reflector
	if reflector == nil {
		reflector = defaultReflector
	}
	plain := d.observer == nil && d.attemptTimeout == 0 && rep == nil
	var o outcome
	for {
		switch r.phase {
		case phaseDispatch:
			switch {
			case ctx.Err() != nil:
				r.Stop(stopError(ctx))
			case plain:
				callDispatch(ctx, r.cur, dispatch, &o)
				r.dispatched(&o, time.Time{}, time.Time{})
				if r.phase == phaseAnalyze && ctx.Err() != nil {
					r.Stop(stopError(ctx))
				}
			default:
				d.dispatchStep(ctx, &r, dispatch, &o)
			}
		case phaseAnalyze:
			if !plain || d.logger != nil {
				d.analyzeStep(ctx, &r, reflector)
				continue
			}
			analyze(ctx, reflector, &r.fail, &r.an)
			r.analyzed()
			if ctx.Err() != nil {
				r.Stop(stopError(ctx)) // see analyzeStep
			}
		case phaseWait:
			if err := d.wait(ctx, r.attempt, r.wait); err != nil {
				r.Stop(err)
				continue
			}
			attempt := r.attempt
			r.retry()
			if r.nfix > 0 && (d.observer != nil || d.logger != nil) {
				d.reportFixes(ctx, &r, attempt)
			}
		case phaseAsk:
			d.askStep(ctx, &r)
		default:
			if r.err == nil && d.observer == nil {
				return r.result, nil
			}
			return d.done(ctx, &r)
		}
	}
}

// dispatchStep runs one attempt with its observer hooks, attempt timeout and
// report times, and reports it to r.
func (d *Driver) dispatchStep(ctx context.Context, r *Recovery, fn DispatchFunc, o *outcome) {
	attempt, call := r.attempt, r.cur
	obs := d.observer
	if obs != nil && obs.DispatchStart != nil {
		obs.DispatchStart(ctx, attempt, call)
		if ctx.Err() != nil { // the hook cancelled: the call must not run
			r.Stop(stopError(ctx))
			return
		}
	}
	var start, end time.Time
	if r.rep != nil {
		start = now()
	}
	if d.attemptTimeout > 0 {
		callWithTimeout(ctx, call, fn, d.attemptTimeout, o)
	} else {
		callDispatch(ctx, call, fn, o)
	}
	if r.rep != nil {
		end = now()
	}
	r.dispatched(o, start, end)
	if obs != nil && obs.DispatchDone != nil {
		obs.DispatchDone(ctx, attempt, o.res, o.err)
	}
	if r.phase == phaseAnalyze && ctx.Err() != nil {
		r.Stop(stopError(ctx)) // the caller has gone: no analysis
	}
}

// now reads the clock for a report: UTC and without the monotonic reading,
// so a report survives a trip through JSON unchanged.
func now() time.Time { return time.Now().UTC() }

// callDispatch calls fn and turns a panic into a failed outcome; it sets
// every field of o either way. It defers a named function rather than a
// closure: on the happy path that is nearly free.
func callDispatch(ctx context.Context, call ToolCall, fn DispatchFunc, o *outcome) {
	defer catchDispatch(o, call.Name)
	// Results go through locals and are stored field by field: copying the
	// whole struct just after the call stalls on store forwarding.
	res, err := fn(ctx, call)
	o.res.ID, o.res.Content, o.res.IsError = res.ID, res.Content, res.IsError
	o.err = err
}

func catchDispatch(o *outcome, tool string) {
	if v := recover(); v != nil {
		o.res = ToolResult{}
		o.err = ToolPanic(tool, v)
	}
}

// analyzeStep asks the Reflector about the current failure, reports its
// answer, and tells the observer and the log what the machine decided.
func (d *Driver) analyzeStep(ctx context.Context, r *Recovery, reflector Reflector) {
	attempt := r.attempt
	analyze(ctx, reflector, &r.fail, &r.an)
	obs := d.observer
	if obs != nil && obs.Analyzed != nil {
		obs.Analyzed(ctx, r.fail, r.an.a, r.an.err)
	}
	if r.an.err != nil && d.logger != nil {
		d.logReflectorError(ctx, r, r.an.err)
	}
	r.analyzed()
	if obs != nil && obs.Decided != nil {
		obs.Decided(ctx, attempt, r.action)
	}
	if ctx.Err() != nil {
		// ctx ended while the reflector or the strategy ran: the caller has
		// gone (and a reflector error is then most likely the cancel
		// itself), so the cancel is the answer, whatever was decided.
		r.Stop(stopError(ctx))
		return
	}
	if d.logger != nil && r.outcome != OutcomeExhausted {
		d.logDecision(ctx, r)
	}
}

// analysis is what the Reflector answered, or the panic it raised.
type analysis struct {
	a   FailureAnalysis
	err error
}

// analyze calls the Reflector into out, turning a panic into an error.
func analyze(ctx context.Context, r Reflector, f *Failure, out *analysis) {
	defer catchReflector(out)
	out.a, out.err = r.Analyze(ctx, *f)
}

func catchReflector(out *analysis) {
	if v := recover(); v != nil {
		*out = analysis{err: &PanicError{Where: "reflector", Value: v}}
	}
}

// askStep puts the machine's question to the Asker and reports the answer.
func (d *Driver) askStep(ctx context.Context, r *Recovery) {
	q := r.question()
	attempt := r.attempt
	d.logAsking(ctx, r)
	ans, err := ask(ctx, d.asker, q)
	if obs := d.observer; obs != nil && obs.Asked != nil {
		obs.Asked(ctx, attempt, q, ans, err)
	}
	if ctx.Err() != nil {
		r.Stop(stopError(ctx))
		return
	}
	d.logAnswer(ctx, r, ans, err)
	r.Answered(ans, err)
	if r.phase == phaseDispatch { // approved, and retried at once
		d.reportFixes(ctx, r, attempt)
	}
}

// ask calls the Asker, turning a panic into an error.
func ask(ctx context.Context, a Asker, q Question) (ans Answer, err error) {
	if a == nil {
		return Answer{}, errNoAsker
	}
	defer func() {
		if v := recover(); v != nil {
			ans, err = Answer{}, &PanicError{Where: "asker", Value: v}
		}
	}()
	return a.Ask(ctx, q)
}

// reportFixes tells the observer and the log about the corrections the
// machine applied or dropped before the next attempt.
func (d *Driver) reportFixes(ctx context.Context, r *Recovery, attempt int) {
	for i := 0; i < r.nfix; i++ {
		f := &r.fixes[i]
		if obs := d.observer; obs != nil && obs.Corrected != nil {
			obs.Corrected(ctx, attempt, *f.c, f.applied, f.why)
		}
		d.logFix(ctx, r, attempt, f)
	}
}

// done reports the end of the call and returns what the machine decided.
func (d *Driver) done(ctx context.Context, r *Recovery) (ToolResult, error) {
	if r.err != nil {
		d.logStop(ctx, r)
	}
	if obs := d.observer; obs != nil && obs.Finished != nil {
		obs.Finished(ctx, r.calls, r.result, r.err)
	}
	return r.result, r.err
}

// stopError is the error for a ctx that has ended: it matches ctx.Err() and,
// when one was given, the cancel cause.
func stopError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("reflection: call stopped: %w: %w", err, cause)
	}
	return fmt.Errorf("reflection: call stopped: %w", err)
}
