package reflection

import (
	"context"
	"encoding/json"
)

// ToolSchema describes a tool as the host registered it. InputSchema is a
// JSON Schema document for the tool's input.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"` // a JSON Schema document
}

// Failure is everything a Reflector is asked about one failed call
// (loopctl's analyze arguments plus its ReflectionContext, in one value).
type Failure struct {
	Error       string          // text of the failing result
	Tool        string          // current tool name (after any ToolChange)
	Input       json.RawMessage // current input (after any InputFix)
	Schema      *ToolSchema     // nil when no schema is known for Tool
	Task        string          // what the agent is trying to do; may be empty
	Attempt     int             // 0-indexed: 0 is the original call
	MaxAttempts int             // calls allowed in all, the original included

	// Err is the error dispatch returned on this attempt, so a Reflector can
	// use errors.Is and errors.As; nil when the failure was a result with
	// IsError. For a panic in dispatch it matches ErrPanicked; for an attempt
	// cut short by WithAttemptTimeout it matches context.DeadlineExceeded.
	Err error

	// Effect is what running Tool again does, as WithEffects' func says;
	// EffectUndeclared (the zero value) without WithEffects.
	Effect Effect
}

// Reflector analyses a failed tool call. Implementations must be safe for
// concurrent use: one Driver calls its Reflector from every goroutine that
// runs a call. An error (wrap ErrInternal or ErrSkipped) makes the Driver
// give up on the call softly.
//
// The Driver does not copy byte slices: Failure.Input is the call's current
// input, and a Correction's ModifiedInput becomes the retried call's input as
// it is. A Reflector must not modify either after Analyze returns.
type Reflector interface {
	Analyze(ctx context.Context, f Failure) (FailureAnalysis, error)
}

// ReflectorFunc adapts an ordinary function to the Reflector interface.
type ReflectorFunc func(ctx context.Context, f Failure) (FailureAnalysis, error)

// Analyze calls fn(ctx, f).
func (fn ReflectorFunc) Analyze(ctx context.Context, f Failure) (FailureAnalysis, error) {
	return fn(ctx, f)
}

// RecoveryStrategy turns an analysis into the next action. attempt is
// 0-indexed (0 is the original call) and maxAttempts counts every call
// allowed, the original included. Implementations must be safe for
// concurrent use.
type RecoveryStrategy interface {
	Decide(ctx context.Context, a FailureAnalysis, attempt, maxAttempts int) RecoveryAction
}

// StrategyFunc adapts an ordinary function to the RecoveryStrategy interface.
type StrategyFunc func(ctx context.Context, a FailureAnalysis, attempt, maxAttempts int) RecoveryAction

// Decide calls fn(ctx, a, attempt, maxAttempts).
func (fn StrategyFunc) Decide(ctx context.Context, a FailureAnalysis, attempt, maxAttempts int) RecoveryAction {
	return fn(ctx, a, attempt, maxAttempts)
}

// NoopReflector is the default Reflector. It calls every failure
// unrecoverable, at SeverityMedium, with the failure text as root cause and
// no correction, so under the default strategy a failed call is never
// retried. Its zero value is ready to use and safe for concurrent use.
type NoopReflector struct{}

// Analyze returns {IsRecoverable: false, RootCause: f.Error, Severity:
// SeverityMedium} and a nil error, for every input.
func (NoopReflector) Analyze(_ context.Context, f Failure) (FailureAnalysis, error) {
	return FailureAnalysis{
		IsRecoverable: false,
		RootCause:     f.Error,
		Severity:      SeverityMedium,
	}, nil
}

// inputChecker is a Reflector that can also check a corrected call against
// the schema of the tool it is about to run: one with the method
//
//	InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error
//
// that returns such a check over lookup, or nil when it has none. The llm
// package's Reflector has it, and so do Chain and NewCache when a Reflector
// they hold does.
//
// A Reflector that proposes an InputFix checks it against the schema of the
// tool that failed; a later ToolChange (or one that came first) can then
// bring that input to a tool it was never checked against. So a Driver
// given WithSchemas and no WithInputCheck uses its Reflector's check, when
// the Reflector has one, on every corrected call before it runs (see
// WithInputCheck).
type inputChecker interface {
	InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error
}

// reflectorCheck returns r's input check over lookup, or nil when r has no
// InputCheck method, has no check, or panics.
func reflectorCheck(r Reflector, lookup SchemaLookup) (check func(string, json.RawMessage) error) {
	ic, ok := r.(inputChecker)
	if !ok || lookup == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			check = nil
		}
	}()
	return ic.InputCheck(lookup)
}
