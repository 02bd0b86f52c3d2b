package llm

import (
	"context"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
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

// isRegex is the format "regex" (which jsonschema/v5 asserts under draft-07
// and earlier) and the test of regexProperties: whether a string of the input
// is a regular expression regexp.Compile accepts. It charges the parse first
// (see parseCost), then parses; it compiles nothing, since a pattern compiles
// exactly when it parses.
func (m *meter) isRegex(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	m.charge(parseCost(s))
	_, err := syntax.Parse(s, syntax.Perl)
	return err == nil
}

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
// applying it costs and, once taken over from the validator, its pattern and
// its regexProperties.
type checkNode struct {
	meter        *meter
	weight       int            // checks of applying it to any value
	objectWeight int            // further checks of applying it to an object: its names (required and the like)
	hasPattern   bool           // the schema object has a pattern keyword
	pattern      *regexp.Regexp // the pattern, matched here so its cost is counted first
	patternSize  int            // instructions of the compiled pattern
	regexKeys    bool           // the schema object has regexProperties: true
	keysTaken    bool           // ... and its test of the keys is done here
	reached      bool           // found by takeOver
}

// Validate counts the checks of applying this schema object to v and, when
// it holds the pattern or the regexProperties, applies them. The validator
// calls it after the object's other keywords, so the count of a subtree is
// complete before its parent's.
func (n *checkNode) Validate(ctx jsonschema.ValidationContext, v any) error {
	switch v := v.(type) {
	case string:
		if n.pattern == nil {
			break
		}
		n.meter.charge(n.weight + len(v)*n.patternSize/patternUnit)
		if !n.pattern.MatchString(v) {
			return ctx.Error("pattern", "does not match pattern %s", quoteLikeValidator(n.pattern.String()))
		}
		return nil
	case map[string]any:
		n.meter.charge(n.weight + n.objectWeight)
		if n.keysTaken {
			return n.checkKeys(ctx, v)
		}
		return nil
	}
	n.meter.charge(n.weight)
	return nil
}

// checkKeys is regexProperties: every key of the object must be a regular
// expression. Keys are taken in order, so the same object always costs the
// same and fails the same way.
func (n *checkNode) checkKeys(ctx jsonschema.ValidationContext, object map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(object)) {
		if !n.meter.isRegex(k) {
			return ctx.Error("regexProperties", "patternProperty %s is not valid regex", quoteLikeValidator(k))
		}
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

// nameUnit is how many bytes of the names a schema object lists (required,
// dependentRequired, dependencies) count as one check, besides one per name:
// the validator looks each name up, and quotes every missing one in its
// error.
const nameUnit = 64

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
	if names, ok := m["required"].([]any); ok {
		n.objectWeight += namesWeight(names)
	}
	for _, keyword := range []string{"dependentRequired", "dependencies"} {
		deps, _ := m[keyword].(map[string]any)
		for _, d := range deps {
			n.objectWeight++ // the validator looks the property up
			if names, ok := d.([]any); ok {
				n.objectWeight += namesWeight(names)
			}
		}
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
	n.regexKeys = m["regexProperties"] == true
	if cost := n.weight + n.objectWeight; cost > c.budget {
		c.failed = &limitError{"tool schema", "has a schema object that costs " + strconv.Itoa(cost) +
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

// namesWeight is the weight of a list of property names: one per name, and
// one per nameUnit bytes of them.
func namesWeight(names []any) int {
	size := 0
	for _, v := range names {
		if s, ok := v.(string); ok {
			size += len(s)
		}
	}
	return len(names) + size/nameUnit
}

// patternSize is the number of instructions of the compiled pattern p: the
// factor by which matching it costs more than reading the string. The
// schema's patterns have been measured before it was compiled (see
// checkPatterns), so this parse is known to be cheap.
func patternSize(p string) int {
	size, err := programSize(p)
	if err != nil {
		return 1 // the compiler rejects it
	}
	return max(size, 1)
}

// takeOver moves the pattern and the regexProperties of every schema object
// reachable from root into its checkNode, so the cost of matching a string
// or testing a key is counted before the work, not after it. It returns the
// size of the largest pattern it could not reach (an object known only
// through $dynamicAnchor), which the validator then still matches itself.
// It refuses a schema whose validation would leave the counted checks: one
// that reaches a schema compiled elsewhere (a $ref to a JSON Schema
// meta-schema, which jsonschema/v5 keeps compiled once for everyone, with
// none of the checks here), or that has regexProperties out of reach.
func takeOver(root *jsonschema.Schema, nodes []*checkNode) (unreached int, err error) {
	seen := make(map[*jsonschema.Schema]bool)
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] || err != nil {
			return
		}
		seen[s] = true
		n, ok := s.Extensions[checkExtension].(*checkNode)
		switch {
		case ok:
			n.reached = true
			if s.Pattern != nil {
				n.pattern, s.Pattern = s.Pattern, nil
			}
			if s.RegexProperties {
				n.keysTaken, s.RegexProperties = true, false
			}
		case s.Always == nil && s.Ref == nil:
			// A schema of true or false costs nothing, and a draft-07 object
			// with a $ref has no other keyword: the compiler calls no
			// extension for either. Anything else was compiled elsewhere.
			err = &limitError{"tool schema", "refers to " + strconv.Quote(s.Location) +
				", a schema whose checks cannot be counted against the validation budget", "WithValidationBudget"}
			return
		}
		for _, c := range children(s) {
			walk(c)
		}
	}
	walk(root)
	for _, n := range nodes {
		switch {
		case err != nil:
		case n.regexKeys && !n.reached:
			err = &limitError{"tool schema", "has regexProperties where its checks cannot be counted against the validation budget", "WithValidationBudget"}
		case n.hasPattern && !n.reached:
			unreached = max(unreached, n.patternSize)
		}
	}
	return unreached, err
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
