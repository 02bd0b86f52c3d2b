package reflection

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"
)

// Option configures a Driver in NewDriver.
type Option func(*Driver)

// WithReflector sets the Reflector that analyses failures. nil means the
// default, NoopReflector{}.
func WithReflector(r Reflector) Option {
	return func(d *Driver) { d.reflector = r }
}

// WithStrategy sets the RecoveryStrategy that decides what follows a
// failure. nil means the default, NewExponentialBackoff(3).
func WithStrategy(s RecoveryStrategy) Option {
	return func(d *Driver) { d.strategy = s }
}

// WithSchemas sets how the Driver finds a tool's schema. The schema goes to
// the Reflector in Failure.Schema, and a ToolChange to a tool the lookup does
// not know is dropped. nil means none: Failure.Schema is nil and any
// ToolChange applies.
func WithSchemas(lookup SchemaLookup) Option {
	return func(d *Driver) { d.schemas = lookup }
}

// WithLogger sets the logger for recovery decisions, dropped corrections and
// reflector failures. nil means the default, which logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(d *Driver) { d.logger = l }
}

// WithObserver sets hooks that see every step of the loop as it happens.
// Only the hooks that are set are called; a Driver without an observer pays
// nothing for the feature.
func WithObserver(o Observer) Option {
	return func(d *Driver) {
		if o.empty() {
			d.observer = nil
			return
		}
		d.observer = &o
	}
}

// WithToolChangeFilter restricts the tools a ToolChange correction may switch
// to: allow(from, to) must return true, or the correction is dropped with a
// warning and the retry runs the current tool. Use it to keep a model's
// suggestion away from destructive tools. It and WithAllowedTools both
// apply when both are given: a switch must pass each. nil means no filter:
// any tool the SchemaLookup (if any) knows.
func WithToolChangeFilter(allow func(from, to string) bool) Option {
	return func(d *Driver) { d.toolFilter = allow }
}

// WithAllowedTools restricts a ToolChange to the tools named: a switch to
// any other is dropped, as WithToolChangeFilter drops one (and both apply
// when both are given). Given again, the later list replaces the earlier;
// no names allows no switch at all.
func WithAllowedTools(names ...string) Option {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return func(d *Driver) { d.toolList = set }
}

// toolChangeRule is the one rule WithToolChangeFilter and WithAllowedTools
// make together; nil when neither was given.
func toolChangeRule(list map[string]struct{}, filter func(from, to string) bool) func(from, to string) bool {
	switch {
	case list == nil:
		return filter
	case filter == nil:
		return func(_, to string) bool {
			_, ok := list[to]
			return ok
		}
	}
	return func(from, to string) bool {
		_, ok := list[to]
		return ok && filter(from, to)
	}
}

// WithMaxCorrectedInput sets the largest InputFix, in bytes, the Driver
// applies; a larger one is dropped with a warning. 0 means the default,
// 1 MiB; a negative n means no limit.
func WithMaxCorrectedInput(n int) Option {
	return func(d *Driver) { d.maxFixSize = n }
}

// WithInputCheck sets a check that every corrected call must pass before it
// is dispatched: whichever correction brought a tool and an input together
// (an InputFix, a ToolChange, a human's input), check(tool, input) runs on
// the pair, and an error (or a panic) drops that correction like any other
// that cannot apply; the retry then runs the call as it was. Use it to check
// an input against the schema of the tool it is about to run (the llm package
// offers one). The check has no ctx: it must bound its own work.
//
// nil means the default: with WithSchemas, the Reflector's own check when it
// has an InputCheck method (the llm Reflector has, and so do a Chain or a NewCache
// that hold one), so that an input a model fixed for one tool is checked
// again before it runs on another; otherwise none. To turn that off, give a
// check that accepts everything.
func WithInputCheck(check func(tool string, input json.RawMessage) error) Option {
	return func(d *Driver) { d.ownCheck = check }
}

// WithAsker sets who answers AskUser: with an Asker, AskUser puts a Question
// to a human instead of ending the call, and an approval retries it (see
// Asker). nil means none: AskUser ends the call with a soft result.
func WithAsker(a Asker) Option {
	return func(d *Driver) {
		d.asker = a
		d.canAsk = a != nil
	}
}

// WithMaxRetryAfter caps the rate-limit hint a Driver waits for: a Retry
// whose hint (FailureAnalysis.RetryAfter, or a RetryAfter method in the
// failure's error chain) is longer becomes Fail, naming the hint and the
// cap. d ≤ 0 means the default, 60s.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(dr *Driver) { dr.maxHint = max(d, 0) }
}

// WithAttemptTimeout bounds each dispatch: it runs under a context that ends
// d after it starts, and a failure after that is reported as the text
// `tool "<name>" timed out after <d>` with a Failure.Err matching
// context.DeadlineExceeded, then analysed like any other. A success is kept,
// however late; when the caller's own ctx has ended, its cancel wins. d ≤ 0
// means no timeout (the default).
func WithAttemptTimeout(d time.Duration) Option {
	return func(dr *Driver) { dr.attemptTimeout = max(d, 0) }
}

// WithRecoveryNotes tells the model what recovery did, in the result's
// Content, after one blank line: after a success that needed a correction,
// the tool and input that actually ran; after Skip, AskUser or Fail, the last
// analysis' root cause and the guidance of its PrerequisiteFix,
// ApproachChange or Escalate correction. Each note line starts with
// "Recovery note: ". Off by default: Content is then exactly Run's.
func WithRecoveryNotes() Option {
	return func(d *Driver) { d.notes = true }
}

// WithRedactor sets a function that scrubs every text the Driver logs that
// may hold a secret (failure texts, root causes, reasons, errors, inputs,
// replies, model-chosen tool names). It is the function type llm.WithRedactor
// takes; RedactSecrets is a stock one. It must be safe for concurrent use.
// nil means none.
func WithRedactor(redact func(string) string) Option {
	return func(d *Driver) { d.redact = redact }
}

// WithLogTexts adds the texts that may hold secrets to log records at Info
// and above too; without it they appear only in Debug records. Either way
// they pass through WithRedactor's function first.
func WithLogTexts() Option {
	return func(d *Driver) { d.logTexts = true }
}

// WithLoopGuard ends a call whose corrections go in circles: when an
// analysis proposes an InputFix or a ToolChange and, with it applied, the
// next attempt would go back to a (tool, input) pair that failed earlier in
// the call and that a correction had left (A → B → A, input 1 → input 2 →
// input 1), the call ends softly instead (the latest failure text,
// OutcomeFailed, ReasonCorrectionLoop), before any wait. Inputs are compared
// as JSON values. A correction that changes nothing (a no-op fix, a
// ToolChange to the failing tool, a dropped correction) is a plain retry,
// which the guard leaves alone, as it leaves alone an input a human
// approved: the strategy and the ceiling bound those.
func WithLoopGuard() Option {
	return func(d *Driver) { d.loopGuard = true }
}

// RuntimeOptions are the options of a Driver that belong to its runtime
// rather than to the machine: what Driver.Run calls or consults around the
// machine's steps. A runtime of its own (a workflow engine's) reads them to
// map what it can (an attempt timeout onto its own) and to refuse, or say
// it ignores, what it cannot (host code that must not run in replayed
// workflow code, state shared between calls). Fields are nil or zero when
// the option was not given.
type RuntimeOptions struct {
	Reflector      Reflector                                                             // WithReflector; nil: NoopReflector
	Asker          Asker                                                                 // WithAsker
	Observer       *Observer                                                             // WithObserver: a copy of the hooks
	Logger         *slog.Logger                                                          // WithLogger
	Redactor       func(string) string                                                   // WithRedactor
	AttemptTimeout time.Duration                                                         // WithAttemptTimeout
	Health         *Health                                                               // WithHealth
	RetryBudget    *RetryBudget                                                          // WithRetryBudget
	LoopDetection  bool                                                                  // WithLoopDetection
	EffectMemory   *EffectMemory                                                         // the Driver's memory (WithEffects; WithEffectMemory)
	Verifier       func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error) // WithVerifier: what a VerifyStep asks
}

// RuntimeOptions returns d's runtime options (see RuntimeOptions). A nil d
// has none.
func (d *Driver) RuntimeOptions() RuntimeOptions {
	if d == nil {
		return RuntimeOptions{}
	}
	o := RuntimeOptions{
		Reflector: d.reflector, Asker: d.asker, Logger: d.logger, Redactor: d.redact,
		AttemptTimeout: d.attemptTimeout, Health: d.health, RetryBudget: d.budget, LoopDetection: d.detection,
		EffectMemory: d.memory, Verifier: d.verifier,
	}
	if d.observer != nil {
		obs := *d.observer
		o.Observer = &obs
	}
	return o
}

// WithVerifier lets the effect guard look an effect up instead of asking.
// Before the guard turns a retry of a tool that may have acted (or a
// remembered call's re-issue, see EffectMemory) into a question, the
// runtime calls verify with the call whose ambiguous failure is in
// question, its tool and input as that dispatch ran; the ctx carries the
// call's IdempotencyKey when it has one.
//
// VerdictApplied: nothing more is dispatched and the call ends
// OutcomeSucceeded with the verifier's result (its ID the call's, IsError
// false). VerdictNotApplied: the retry goes on as after a failure that
// matched ErrNoEffect (the strategy's decision, the budget, the breaker and
// the loop guard still apply). VerdictUnknown, an error (whatever the
// verdict) or a panic: the guard asks, as it does without a verifier. A
// verification is neither an attempt nor a dispatch. verify must return
// when ctx ends; one that returns after ctx ended stops the call (its
// verdict is not used). It must be safe for concurrent use. It applies with
// WithEffects; nil means none.
func WithVerifier(verify func(ctx context.Context, call ToolCall) (Verdict, ToolResult, error)) Option {
	return func(d *Driver) { d.verifier = verify }
}
