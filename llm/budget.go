package llm

import (
	"context"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// checkExtension is the name under which the budget is registered with the
// schema compiler. jsonschema/v5 calls an extension for every schema object
// it compiles and, when validating, for every schema object it applies to a
// value: that is where the checks are counted.
const checkExtension = "llm-validation-budget"

// patternUnit is how many bytes-times-instructions of regular expression
// matching count as one check: matching costs about the length of the string
// times the size of the compiled pattern.
const patternUnit = 64

// ctxCheckEvery is how many checks pass between two looks at the context.
const ctxCheckEvery = 64

// meter counts the checks of one validation. It belongs to one compiled
// instance of a schema, which validates one input at a time.
type meter struct {
	left     int
	ctx      context.Context // nil for an input check, which has none
	sinceCtx int
}

// budgetSpent and validationStopped are the panics that end a validation
// early; validate recovers them. jsonschema/v5 lets panics it does not own
// pass through.
type (
	budgetSpent       struct{}
	validationStopped struct{ err error }
)

// charge counts n checks, and ends the validation when the budget is spent
// or the context has ended.
func (m *meter) charge(n int) {
	m.left -= n
	if m.left < 0 {
		panic(budgetSpent{})
	}
	if m.ctx != nil {
		m.sinceCtx += n
		if m.sinceCtx >= ctxCheckEvery {
			m.sinceCtx = 0
			if err := m.ctx.Err(); err != nil {
				panic(validationStopped{err})
			}
		}
	}
}

// checkNode is the extension's part of one compiled schema object: what
// applying it costs and, once taken over from the validator, its pattern.
type checkNode struct {
	meter       *meter
	weight      int
	hasPattern  bool           // the schema object has a pattern keyword
	pattern     *regexp.Regexp // the pattern, matched here so its cost is counted first
	patternSize int            // instructions of the compiled pattern
	reached     bool           // found by takeOverPatterns
}

// Validate counts the checks of applying this schema object to v and, when
// it holds the pattern, matches it. The validator calls it after the object's
// other keywords, so the count of a subtree is complete before its parent's.
func (n *checkNode) Validate(ctx jsonschema.ValidationContext, v any) error {
	s, ok := v.(string)
	if !ok || n.pattern == nil {
		n.meter.charge(n.weight)
		return nil
	}
	n.meter.charge(n.weight + len(s)*n.patternSize/patternUnit)
	if !n.pattern.MatchString(s) {
		return ctx.Error("pattern", "does not match pattern %s", quoteLikeValidator(n.pattern.String()))
	}
	return nil
}

// quoteLikeValidator quotes s the way jsonschema/v5 quotes a pattern in its
// messages, so a pattern error reads the same whoever matched it.
func quoteLikeValidator(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}

// checkCompiler is the extension's compiler for one compilation: it weighs
// every schema object, stops when ctx ends, and refuses an object that costs
// more than the whole budget.
type checkCompiler struct {
	ctx            context.Context
	meter          *meter
	budget         int
	nodes          []*checkNode
	keyPatternSize int   // the largest pattern of a patternProperties
	failed         error // a limit broken or the context ended
}

func (c *checkCompiler) Compile(_ jsonschema.CompilerContext, m map[string]any) (jsonschema.ExtSchema, error) {
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			c.failed = &stopError{err}
			return nil, c.failed
		}
	}
	n := &checkNode{meter: c.meter, weight: 1}
	if v, ok := m["enum"]; ok {
		n.weight += valueCount(v) - 1 // the array itself is not compared
	}
	if v, ok := m["const"]; ok {
		n.weight += valueCount(v)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		n.weight += len(props) / 16 // the validator ranges over every property
	}
	if p, ok := m["pattern"].(string); ok {
		n.hasPattern, n.patternSize = true, patternSize(p)
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		n.weight += len(pp)
		for p := range pp {
			c.keyPatternSize = max(c.keyPatternSize, patternSize(p))
		}
	}
	if n.weight > c.budget {
		c.failed = &limitError{"tool schema", "has a schema object that costs " + strconv.Itoa(n.weight) +
			" checks each time it is applied, more than the validation budget of " + strconv.Itoa(c.budget), "WithValidationBudget"}
		return nil, c.failed
	}
	c.nodes = append(c.nodes, n)
	return n, nil
}

// valueCount is the number of JSON values in v, v included.
func valueCount(v any) int {
	switch v := v.(type) {
	case []any:
		n := 1
		for _, e := range v {
			n += valueCount(e)
		}
		return n
	case map[string]any:
		n := 1
		for _, e := range v {
			n += valueCount(e)
		}
		return n
	default:
		return 1
	}
}

// patternSize is the number of instructions of the compiled pattern p: the
// factor by which matching it costs more than reading the string.
func patternSize(p string) int {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 1 // the compiler rejects it
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 1
	}
	return max(len(prog.Inst), 1)
}

// takeOverPatterns moves the pattern of every schema object reachable from
// root into its checkNode, so the cost of matching is counted before the
// match, not after it. It returns the size of the largest pattern it could
// not reach (an object known only through $dynamicAnchor), which the
// validator then still matches itself.
func takeOverPatterns(root *jsonschema.Schema, nodes []*checkNode) (unreached int) {
	seen := make(map[*jsonschema.Schema]bool)
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if n, ok := s.Extensions[checkExtension].(*checkNode); ok {
			n.reached = true
			if s.Pattern != nil {
				n.pattern, s.Pattern = s.Pattern, nil
			}
		}
		for _, c := range children(s) {
			walk(c)
		}
	}
	walk(root)
	for _, n := range nodes {
		if n.hasPattern && !n.reached {
			unreached = max(unreached, n.patternSize)
		}
	}
	return unreached
}

// children lists the schema objects that s applies to values.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch v := v.(type) {
		case *jsonschema.Schema:
			out = append(out, v)
		case []*jsonschema.Schema:
			out = append(out, v...)
		}
	}
	return out
}

// stopError reports work stopped because its context ended.
type stopError struct{ err error }

func (e *stopError) Error() string { return "llm: stopped: " + e.err.Error() }
func (e *stopError) Unwrap() error { return e.err }
