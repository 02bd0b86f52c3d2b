package reflection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
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
// A Driver is immutable after NewDriver and safe for concurrent use by any
// number of goroutines. The zero Driver, and a nil *Driver, behave exactly
// like NewDriver().
type Driver struct {
	reflector  Reflector
	strategy   RecoveryStrategy
	schemas    SchemaLookup
	logger     *slog.Logger
	observer   *Observer
	allowTool  func(from, to string) bool
	maxFixSize int // 0 means DefaultMaxCorrectedInput; negative means no limit
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
	return d
}

// defaultDriver stands in for a nil *Driver.
var defaultDriver Driver

// Defaults used when a Driver has no Reflector or RecoveryStrategy. They are
// stored as interface values once, so using them costs no allocation.
var (
	defaultReflector Reflector        = NoopReflector{}
	defaultStrategy  RecoveryStrategy = NewExponentialBackoff(3)
)

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
	if dispatch == nil {
		return d.hardStop(ctx, call, 0, "", ErrNilDispatch)
	}
	if ctx.Err() != nil {
		return d.hardStop(ctx, call, 0, "", stopError(ctx))
	}
	if d.observer != nil {
		return d.recoverCall(ctx, call, dispatch, nil)
	}
	var o outcome
	callDispatch(ctx, call, dispatch, &o)
	if !o.failed() {
		return ToolResult{ID: call.ID, Content: o.res.Content}, nil
	}
	return d.recoverCall(ctx, call, dispatch, &o)
}

// outcome is what one dispatch produced.
type outcome struct {
	res ToolResult
	err error // dispatch's error, or a *panicError
}

func (o *outcome) failed() bool { return o.err != nil || o.res.IsError }

// failureText is the text a failed outcome stands for.
func (o *outcome) failureText() string {
	if o.err != nil {
		return errorText(o.err)
	}
	return o.res.Content
}

// errorText returns err.Error(), or a description of err when Error panics
// (a typed nil pointer returned as an error, say): a broken error value from
// the host or a Reflector must not crash Run.
func errorText(err error) string {
	t := textOf{err: err}
	t.fill()
	return t.text
}

// textOf computes an error's text; fill defers a named function rather than
// a closure, which keeps the retry path cheap.
type textOf struct {
	err  error
	text string
}

func (t *textOf) fill() {
	defer catchErrorText(t)
	t.text = t.err.Error()
}

func catchErrorText(t *textOf) {
	if v := recover(); v != nil {
		t.text = fmt.Sprintf("%T error whose Error method panicked: %v", t.err, v)
	}
}

// dispatch runs one attempt, with its observer hooks, into o.
func (d *Driver) dispatch(ctx context.Context, attempt int, call ToolCall, fn DispatchFunc, o *outcome) {
	obs := d.observer
	if obs != nil && obs.DispatchStart != nil {
		obs.DispatchStart(ctx, attempt, call)
	}
	callDispatch(ctx, call, fn, o)
	if obs != nil && obs.DispatchDone != nil {
		obs.DispatchDone(ctx, attempt, o.res, o.err)
	}
}

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
		o.err = &panicError{where: "tool " + strconv.Quote(tool), value: v}
	}
}

// recoverCall is the loop after the first failure, kept out of Run so the
// happy path stays small. first is the failed outcome of the original call,
// or nil when the loop is to make that call itself (with an observer set).
func (d *Driver) recoverCall(ctx context.Context, call ToolCall, dispatch DispatchFunc, first *outcome) (ToolResult, error) {
	reflector := d.reflector
	if reflector == nil {
		reflector = defaultReflector
	}
	strategy := d.strategy
	if strategy == nil {
		strategy = defaultStrategy
	}
	cur := call
	var o outcome
	if first != nil {
		o = *first
	} else {
		d.dispatch(ctx, 0, call, dispatch, &o)
	}
	// The parts of the Failure that stay the same for the whole call.
	f := Failure{Task: TaskFromContext(ctx), MaxAttempts: MaxRecoveryAttempts + 1}
	for attempt := 0; ; attempt++ {
		if !o.failed() {
			o.res.ID = call.ID
			return d.finished(ctx, attempt+1, o.res, nil)
		}
		calls := attempt + 1
		text := o.failureText()
		if ctx.Err() != nil {
			return d.hardStop(ctx, call, calls, text, stopError(ctx))
		}

		f.Error, f.Tool, f.Input, f.Attempt, f.Schema = text, cur.Name, cur.Input, attempt, nil
		if d.schemas != nil {
			if s, ok := d.schemas(cur.Name); ok {
				f.Schema = &s
			}
		}
		var an analysis
		analyze(ctx, reflector, &f, &an)
		if obs := d.observer; obs != nil && obs.Analyzed != nil {
			obs.Analyzed(ctx, f, an.a, an.err)
		}
		var action RecoveryAction
		if err := an.err; err != nil {
			if l := d.logger; l != nil {
				level := slog.LevelError
				if errors.Is(err, ErrSkipped) {
					level = slog.LevelInfo
				}
				l.LogAttrs(ctx, level, "reflection: reflector failed",
					slog.String("tool", cur.Name), slog.String("call_id", call.ID),
					slog.Int("attempt", attempt), slog.Any("error", err))
			}
			action = Fail{Reason: errorText(err)}
		} else {
			action = decide(ctx, strategy, &an.a, attempt)
		}
		if obs := d.observer; obs != nil && obs.Decided != nil {
			obs.Decided(ctx, attempt, action)
		}

		if ctx.Err() != nil {
			// ctx ended while the reflector or the strategy ran: the caller
			// has gone (and a reflector error is then most likely the cancel
			// itself), so the cancel is the answer, whatever was decided.
			return d.hardStop(ctx, call, calls, text, stopError(ctx))
		}
		switch act := action.(type) {
		case Retry:
			if attempt == MaxRecoveryAttempts {
				return d.hardStop(ctx, call, calls, text,
					&ToolRecoveryExhaustedError{Tool: call.Name, Attempts: calls})
			}
			d.logDecision(ctx, slog.LevelDebug, cur, call.ID, attempt, action)
			if err := d.wait(ctx, attempt, act.Delay); err != nil {
				return d.hardStop(ctx, call, calls, text, err)
			}
			d.correct(ctx, attempt, &cur, call.ID, an.a.Correction)
		case AskUser:
			d.logDecision(ctx, slog.LevelInfo, cur, call.ID, attempt, action)
			return d.finished(ctx, calls, ToolResult{ID: call.ID, Content: text + "\n\n" + humanDecision(act.Prompt), IsError: true}, nil)
		default: // Skip or Fail: decide allows nothing else
			d.logDecision(ctx, slog.LevelInfo, cur, call.ID, attempt, action)
			return d.finished(ctx, calls, ToolResult{ID: call.ID, Content: text, IsError: true}, nil)
		}

		if ctx.Err() != nil {
			return d.hardStop(ctx, call, calls, text, stopError(ctx))
		}
		d.dispatch(ctx, attempt+1, cur, dispatch, &o)
	}
}

// humanDecision is the sentence AskUser appends to the failure text.
func humanDecision(prompt string) string {
	if prompt == "" {
		return "A human decision is needed before this call can be retried."
	}
	return "A human decision is needed before this call can be retried: " + prompt
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
		*out = analysis{err: &panicError{where: "reflector", value: v}}
	}
}

// decide asks the strategy and keeps only the four action values; anything
// else (nil, a pointer, a panic) becomes Fail.
func decide(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int) RecoveryAction {
	var action RecoveryAction
	askStrategy(ctx, s, a, attempt, &action)
	switch action.(type) {
	case Retry, Skip, AskUser, Fail:
		return action
	case nil:
		return Fail{Reason: "recovery strategy returned no action"}
	default:
		return Fail{Reason: fmt.Sprintf("recovery strategy returned unsupported action %T", action)}
	}
}

// askStrategy calls the strategy into out, turning a panic into Fail.
func askStrategy(ctx context.Context, s RecoveryStrategy, a *FailureAnalysis, attempt int, out *RecoveryAction) {
	defer catchStrategy(out)
	*out = s.Decide(ctx, *a, attempt, MaxRecoveryAttempts+1)
}

func catchStrategy(out *RecoveryAction) {
	if v := recover(); v != nil {
		*out = Fail{Reason: (&panicError{where: "recovery strategy", value: v}).Error()}
	}
}

// hardStop ends Run with a non-nil error and an error result that carries
// the latest failure text (or err's text when no attempt failed: calls is 0).
// An empty failure text stays empty: it is what the tool said.
func (d *Driver) hardStop(ctx context.Context, call ToolCall, calls int, text string, err error) (ToolResult, error) {
	if calls == 0 {
		text = err.Error()
	}
	if l := d.logger; l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "reflection: call stopped",
			slog.String("tool", call.Name), slog.String("call_id", call.ID),
			slog.Int("calls", calls), slog.Any("error", err))
	}
	return d.finished(ctx, calls, ToolResult{ID: call.ID, Content: text, IsError: true}, err)
}

// finished reports the end of Run to the observer and returns its arguments.
func (d *Driver) finished(ctx context.Context, calls int, res ToolResult, err error) (ToolResult, error) {
	if obs := d.observer; obs != nil && obs.Finished != nil {
		obs.Finished(ctx, calls, res, err)
	}
	return res, err
}

func (d *Driver) logDecision(ctx context.Context, level slog.Level, cur ToolCall, id string, attempt int, action RecoveryAction) {
	if l := d.logger; l != nil {
		l.LogAttrs(ctx, level, "reflection: recovery decision",
			slog.String("tool", cur.Name), slog.String("call_id", id),
			slog.Int("attempt", attempt), slog.String("action", action.String()))
	}
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
