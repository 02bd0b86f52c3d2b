package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/loopctl-go/reflection"
)

// A Reflector has the InputCheck method a Driver looks for.
var _ interface {
	InputCheck(reflection.SchemaLookup) func(string, json.RawMessage) error
} = (*Reflector)(nil)

// ErrInputRejected is matched, with errors.Is, by every error of an input
// check (see NewInputCheck) that refuses an input.
var ErrInputRejected = errors.New("llm: input rejected")

// checkAgainst validates input against the tool schema doc, through the
// cache: the work shared by an InputFix in Analyze and by an input check.
// ctx may be nil. schemaErr is set when the schema itself cannot be used.
func (c *schemaCache) checkAgainst(ctx context.Context, doc, input []byte) (schemaErr, inputErr error) {
	waitCtx := ctx
	if waitCtx == nil {
		waitCtx = context.Background()
	}
	e, v, err := c.acquire(waitCtx, doc)
	if err != nil {
		return err, nil
	}
	defer e.release(v) // even on a panic: a lost instance would leave the next check waiting
	return nil, v.validate(ctx, input, &c.lim)
}

// checkInputFix validates an InputFix's modified input against the tool's
// input schema, when validation is on and there is something to check: a
// schema (an empty InputSchema constrains nothing) and a modified input.
func (r *Reflector) checkInputFix(ctx context.Context, f reflection.Failure, a reflection.FailureAnalysis) *problem {
	if !r.cfg.validate || f.Schema == nil || len(bytes.TrimSpace(f.Schema.InputSchema)) == 0 ||
		a.Correction == nil || a.Correction.Type != reflection.InputFix || a.Correction.ModifiedInput == nil {
		return nil
	}
	tool := strconv.Quote(f.Tool)
	schemaErr, err := r.schemas.checkAgainst(ctx, f.Schema.InputSchema, a.Correction.ModifiedInput)
	var stopped *stopError
	var limit *limitError
	var dup *duplicateKeyError
	switch {
	case schemaErr == nil && err == nil:
		return nil
	case errors.As(schemaErr, &stopped) || errors.As(err, &stopped):
		return &problem{what: "checking modified_input against the schema of " + tool + " stopped", cause: firstError(schemaErr, err)}
	case errors.As(schemaErr, &limit):
		return &problem{what: "tool schema for " + tool + " exceeds a limit", detail: limit.Error(), cause: schemaErr}
	case schemaErr != nil:
		return &problem{what: "tool schema for " + tool + " does not compile", detail: schemaErr.Error(), cause: schemaErr}
	case errors.As(err, &limit) && limit.option == "WithValidationBudget":
		// The schema and the input together are too costly to check; asking
		// again rarely changes that.
		return &problem{what: "modified_input cannot be checked against the schema of " + tool, detail: limit.Error(), cause: err}
	case errors.As(err, &limit) || errors.As(err, &dup):
		return &problem{what: "modified_input is refused", detail: err.Error(), cause: err,
			fix: "at /correction/modified_input, the corrected input is refused: " + err.Error() + "."}
	default:
		return &problem{
			what:   "modified_input does not match the schema of " + tool,
			detail: describe(err, "", false),
			cause:  err,
			fix: "at /correction/modified_input, the corrected input does not match the input schema of tool " + tool +
				". What the validator says, with JSON pointers into the corrected input:\n" + describe(err, "", true),
		}
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// inputCheck is the check returned by NewInputCheck and InputCheck.
type inputCheck struct {
	lookup   reflection.SchemaLookup
	validate bool
	redact   func(string) string
	schemas  *schemaCache
}

// NewInputCheck returns a check of a tool's input against its input schema,
// for the Driver's WithInputCheck option: the Driver runs it before it
// dispatches a call that a correction changed, and drops a correction whose
// input it refuses. lookup finds the schema of a tool; a nil lookup, a tool
// it does not know, or an empty InputSchema accepts every input.
//
// The check compiles each distinct schema once, in a cache of its own, and
// holds it to the same limits as an InputFix in Analyze (WithMaxSchemaBytes
// and the other limits, WithValidationBudget): it has no context, so its
// work is bounded by the budget's count of checks alone, which makes its
// answer deterministic. An input is refused when it is not one JSON value,
// breaks a limit, has an object whose keys repeat (exactly or but for case),
// or does not validate; a schema that breaks a limit or does not compile
// refuses every input, since nothing can vouch for it. An empty input is
// checked as {}, the arguments of a call without any. Every refusal wraps
// ErrInputRejected, and ErrLimitExceeded when a limit is the reason; its
// text, which may quote the input, passes through WithRedactor. Of the other
// options only WithSchemaValidation(false) matters: it accepts every input.
// The check is safe for concurrent use, and never panics.
func NewInputCheck(lookup reflection.SchemaLookup, opts ...Option) func(tool string, input json.RawMessage) error {
	cfg := newConfig(opts)
	c := &inputCheck{lookup: lookup, validate: cfg.validate, redact: cfg.redact, schemas: newSchemaCache(schemaCacheSize, cfg.limits)}
	return c.check
}

// InputCheck is NewInputCheck with r's options, sharing r's compiled
// schemas, so a schema is compiled once for both. It makes r a
// a Reflector with an InputCheck method for the root package: a Driver with WithSchemas and no WithInputCheck
// runs this check on every corrected call.
func (r *Reflector) InputCheck(lookup reflection.SchemaLookup) func(tool string, input json.RawMessage) error {
	c := &inputCheck{lookup: lookup, validate: r.cfg.validate, redact: r.cfg.redact, schemas: r.schemas}
	return c.check
}

func (c *inputCheck) check(tool string, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil { // the lookup is the host's code
			err = c.refuse(tool, "checking it panicked: "+strconv.Quote(panicText(p)), nil)
		}
	}()
	if !c.validate || c.lookup == nil {
		return nil
	}
	s, ok := c.lookup(tool)
	if !ok || len(bytes.TrimSpace(s.InputSchema)) == 0 {
		return nil
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	schemaErr, err := c.schemas.checkAgainst(nil, s.InputSchema, input)
	switch {
	case schemaErr != nil:
		return c.refuse(tool, "its schema cannot be used: "+schemaErr.Error(), schemaErr)
	case err == nil:
		return nil
	default:
		var limit *limitError
		var dup *duplicateKeyError
		if errors.As(err, &limit) || errors.As(err, &dup) {
			return c.refuse(tool, err.Error(), err)
		}
		return c.refuse(tool, "it does not match the schema: "+describe(err, "", false), err)
	}
}

// refuse returns the error of a refused input, its text redacted.
func (c *inputCheck) refuse(tool, why string, cause error) error {
	text := "llm: input for tool " + strconv.Quote(tool) + " refused: " + why
	if c.redact != nil {
		text = c.redact(text)
	}
	return &inputError{text: text, cause: cause}
}

// inputError is an input check's refusal: it wraps ErrInputRejected and the
// cause.
type inputError struct {
	text  string
	cause error
}

func (e *inputError) Error() string { return e.text }

func (e *inputError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInputRejected}
	}
	return []error{ErrInputRejected, e.cause}
}

// panicText renders a recovered panic value without calling methods that
// could panic again.
func panicText(p any) (text string) {
	defer func() {
		if recover() != nil {
			text = fmt.Sprintf("a panic of type %T", p)
		}
	}()
	switch p := p.(type) {
	case error:
		return p.Error()
	case string:
		return p
	default:
		return fmt.Sprintf("a panic of type %T", p)
	}
}
