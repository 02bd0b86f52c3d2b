package reflection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Chain returns a Reflector that asks each of rs in order and returns the
// first answer given without an error. A reflector that fails (with
// ErrSkipped, ErrInternal, any other error, or a panic) hands the failure to
// the next. When all fail, the error wraps ErrSkipped if every one skipped,
// and ErrInternal otherwise, and keeps each cause reachable with errors.Is and
// errors.As. When ctx ends, the chain stops at the reflector that failed.
// Chain() with no reflector answers an error wrapping ErrSkipped; nil
// reflectors are left out.
//
// A typical chain puts cheap, sure rules first and a model last:
// Chain(rules.New(rules.Defaults()...), NewCache(llm.New(client), 1024, time.Hour)).
func Chain(rs ...Reflector) Reflector {
	c := make(chain, 0, len(rs))
	for _, r := range rs {
		if r != nil {
			c = append(c, r)
		}
	}
	return c
}

// chain is the Reflector of Chain.
type chain []Reflector

// errEmptyChain is the answer of a chain without reflectors.
var errEmptyChain = fmt.Errorf("reflection: the chain has no reflector: %w", ErrSkipped)

// Analyze asks each reflector in turn; see Chain.
func (c chain) Analyze(ctx context.Context, f Failure) (FailureAnalysis, error) {
	if len(c) == 0 {
		return FailureAnalysis{}, errEmptyChain
	}
	var causes []error
	skipped := true
	for _, r := range c {
		var out analysis
		analyze(ctx, r, &f, &out)
		if out.err == nil {
			return out.a, nil
		}
		causes = append(causes, out.err)
		skipped = skipped && !chainIs(out.err, ErrPanicked) && chainIs(out.err, ErrSkipped)
		if ctx.Err() != nil {
			skipped = false
			break
		}
	}
	kind := ErrInternal
	if skipped {
		kind = ErrSkipped
	}
	return FailureAnalysis{}, &chainError{kind: kind, causes: errors.Join(causes...)}
}

// chainError is the error of a chain whose every reflector failed.
type chainError struct {
	kind   error // ErrSkipped or ErrInternal
	causes error // errors.Join of each reflector's error
}

func (e *chainError) Error() string {
	what := "failed"
	if e.kind == ErrSkipped {
		what = "skipped"
	}
	return "reflection: every reflector of the chain " + what + ": " + errorText(e.causes)
}

// Unwrap returns the kind first, so errors.Is finds it before any cause.
func (e *chainError) Unwrap() []error { return []error{e.kind, e.causes} }

// InputCheck returns a check that passes a call only when every reflector
// of the chain that has an input check passes it; nil when none has one.
func (c chain) InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error {
	var checks []func(string, json.RawMessage) error
	for _, r := range c {
		if check := reflectorCheck(r, lookup); check != nil {
			checks = append(checks, check)
		}
	}
	switch len(checks) {
	case 0:
		return nil
	case 1:
		return checks[0]
	}
	return func(tool string, input json.RawMessage) error {
		for _, check := range checks {
			if err := check(tool, input); err != nil {
				return err
			}
		}
		return nil
	}
}
