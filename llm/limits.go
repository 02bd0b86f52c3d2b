package llm

import (
	"errors"
	"strconv"
)

// Defaults of the limits on what schema validation may cost. Each has an
// option of the same name; the figures come from 1,263 real tool schemas
// (the largest: 25.6 KB, JSON depth 13, 212 schema objects), none of which
// they refuse. DefaultMaxPatternSize came later: the patterns of real tool
// schemas are short (^[a-zA-Z0-9._:-]{1,128}$, among the largest, compiles to
// 259 instructions).
const (
	DefaultMaxSchemaBytes    = 256 << 10 // size of a tool's input schema
	DefaultMaxSchemaDepth    = 64        // nesting of objects and arrays in a tool schema
	DefaultMaxSchemaObjects  = 2000      // JSON objects in a tool schema
	DefaultMaxInputDepth     = 32        // nesting of objects and arrays in an input to validate
	DefaultMaxInputTokens    = 10_000    // values and keys in an input to validate
	DefaultMaxNumberLength   = 100       // bytes of one number literal, in a schema or an input
	DefaultMaxNumberExponent = 400       // the exponent of one number literal, either sign
	DefaultValidationBudget  = 10_000    // checks one validation may make
	DefaultMaxPatternSize    = 10_000    // instructions of one compiled pattern of a tool schema
)

// ErrLimitExceeded is matched, with errors.Is, by every error that reports a
// tool schema or an input over one of the limits above, or a validation that
// ran out of its budget. The error's text names the limit and its option.
var ErrLimitExceeded = errors.New("llm: limit exceeded")

// limits bounds the work of checking inputs against tool schemas.
type limits struct {
	schemaBytes    int
	schemaDepth    int
	schemaObjects  int
	inputDepth     int
	inputTokens    int
	numberLength   int
	numberExponent int
	budget         int
	patternSize    int
}

func defaultLimits() limits {
	return limits{
		schemaBytes:    DefaultMaxSchemaBytes,
		schemaDepth:    DefaultMaxSchemaDepth,
		schemaObjects:  DefaultMaxSchemaObjects,
		inputDepth:     DefaultMaxInputDepth,
		inputTokens:    DefaultMaxInputTokens,
		numberLength:   DefaultMaxNumberLength,
		numberExponent: DefaultMaxNumberExponent,
		budget:         DefaultValidationBudget,
		patternSize:    DefaultMaxPatternSize,
	}
}

// positive returns an option that stores n in the field set picks when n is
// above 0, and keeps the default otherwise.
func positive(n int, set func(*limits) *int) Option {
	return func(c *config) {
		if n > 0 {
			*set(&c.limits) = n
		}
	}
}

// WithMaxSchemaBytes caps the size of a tool's input schema. A larger schema
// is not compiled: checking an input against it fails with an error that
// wraps reflection.ErrInternal (in Analyze) and ErrLimitExceeded. Limits on
// a schema's shape are checked in one pass over its text, before it is
// compiled. A value of 0 or below keeps DefaultMaxSchemaBytes.
func WithMaxSchemaBytes(n int) Option {
	return positive(n, func(l *limits) *int { return &l.schemaBytes })
}

// WithMaxSchemaDepth caps how deeply objects and arrays nest in a tool
// schema: compiling costs more than linearly in it. A value of 0 or below
// keeps DefaultMaxSchemaDepth.
func WithMaxSchemaDepth(n int) Option {
	return positive(n, func(l *limits) *int { return &l.schemaDepth })
}

// WithMaxSchemaObjects caps how many JSON objects a tool schema holds:
// compiling costs about the square of it. A value of 0 or below keeps
// DefaultMaxSchemaObjects.
func WithMaxSchemaObjects(n int) Option {
	return positive(n, func(l *limits) *int { return &l.schemaObjects })
}

// WithMaxInputDepth caps how deeply objects and arrays nest in an input that
// is checked against a tool schema (an InputFix's modified_input, or what an
// input check is given): a validation error costs more than the square of the
// depth to build. A deeper input is rejected without validating it. A value
// of 0 or below keeps DefaultMaxInputDepth.
func WithMaxInputDepth(n int) Option {
	return positive(n, func(l *limits) *int { return &l.inputDepth })
}

// WithMaxInputTokens caps how many values and keys an input that is checked
// against a tool schema may hold. A value of 0 or below keeps
// DefaultMaxInputTokens.
func WithMaxInputTokens(n int) Option {
	return positive(n, func(l *limits) *int { return &l.inputTokens })
}

// WithMaxNumberLength caps the length in bytes of one number literal, in a
// tool schema and in an input checked against one: the validator compares
// numbers as exact fractions. A value of 0 or below keeps
// DefaultMaxNumberLength.
func WithMaxNumberLength(n int) Option {
	return positive(n, func(l *limits) *int { return &l.numberLength })
}

// WithMaxNumberExponent caps the exponent of one number literal (1e999999
// costs tens of milliseconds as a fraction, 1e9999999 makes the validator
// panic), in a tool schema and in an input checked against one. The default,
// DefaultMaxNumberExponent, admits every float64. A value of 0 or below keeps
// it.
func WithMaxNumberExponent(n int) Option {
	return positive(n, func(l *limits) *int { return &l.numberExponent })
}

// WithValidationBudget caps the checks one validation of an input against a
// tool schema may make. A check is one schema object applied to one value,
// plus one for every value of its enum or const; applied to an object, one
// more for every name its required, dependentRequired or dependencies lists,
// and one per 64 bytes of those names; for a pattern, the string's length
// times the size of the compiled pattern divided by 64; and for a string the
// validator must parse as a regular expression (format "regex" under
// draft-07 and earlier, the keys of an object under regexProperties), one per
// byte, 64 per Unicode class such as \pL, and one per 16 runes that a
// case-insensitive range makes the parser fold, all charged before the
// parse. The count is deterministic (it does not read the clock), so the
// same input and schema always give the same answer, inside a workflow
// engine's replay too. A validation that would go over it stops with an
// error that wraps ErrLimitExceeded. When the schema is compiled, the budget
// also refuses a schema object that costs more than all of it, patterns that
// together cost more than all of it to compile (parsing them as above, and
// one check per 8 instructions of their programs), and a $ref to a JSON
// Schema meta-schema, which jsonschema/v5 validates with none of these
// counts. Inside Analyze the validation also stops when its context ends. A
// value of 0 or below keeps DefaultValidationBudget.
func WithValidationBudget(n int) Option {
	return positive(n, func(l *limits) *int { return &l.budget })
}

// WithMaxPatternSize caps the size of one regular expression of a tool
// schema (a pattern, or a key of patternProperties), counted in the
// instructions of its compiled program, before anything compiles it. The
// size grows with repetitions, and multiplies when they nest: a{1000}
// written 3,000 times (21 KB) compiles to three million instructions, for
// seconds and gigabytes. A schema with a larger pattern is refused, like one
// over any other limit. A value of 0 or below keeps DefaultMaxPatternSize.
func WithMaxPatternSize(n int) Option {
	return positive(n, func(l *limits) *int { return &l.patternSize })
}

// limitError reports a schema or an input over a limit. It matches
// ErrLimitExceeded.
type limitError struct {
	what   string // "tool schema", "input"
	detail string // what exceeded what
	option string // the option that sets the limit
}

func (e *limitError) Error() string {
	return "llm: " + e.what + " " + e.detail + " (see " + e.option + ")"
}

func (e *limitError) Is(target error) bool { return target == ErrLimitExceeded }

// more is the detail of a count over its limit: "has 2001 JSON objects,
// more than the limit of 2000".
func more(what string, got, limit int) string {
	return "has " + strconv.Itoa(got) + " " + what + ", more than the limit of " + strconv.Itoa(limit)
}

// over is the detail of a count over its limit: "nesting depth 33 exceeds
// the limit of 32".
func over(what string, got, limit int) string {
	return what + " " + strconv.Itoa(got) + " exceeds the limit of " + strconv.Itoa(limit)
}
