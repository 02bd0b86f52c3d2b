package llm

import (
	"github.com/loopctl-go/reflection/internal/jsonscan"
	"strconv"
)

// scanRules says what scanJSON enforces: a zero limit is no limit.
type scanRules struct {
	what          string // "tool schema" or "input", for the error
	depthOption   string // the option that sets limits.Depth
	limits        jsonscan.Limits
	duplicateKeys bool // refuse an object whose keys repeat, exactly or but for case
}

// schemaRules and inputRules are the rules for a tool schema and for an input
// to validate against one.
func (l *limits) schemaRules() scanRules {
	return scanRules{what: "tool schema", depthOption: "WithMaxSchemaDepth", limits: jsonscan.Limits{
		Depth: l.schemaDepth, Objects: l.schemaObjects, NumberLength: l.numberLength, NumberExponent: l.numberExponent}}
}

func (l *limits) inputRules() scanRules {
	return scanRules{what: "input", depthOption: "WithMaxInputDepth", duplicateKeys: true, limits: jsonscan.Limits{
		Depth: l.inputDepth, Tokens: l.inputTokens, NumberLength: l.numberLength, NumberExponent: l.numberExponent}}
}

// scanJSON makes one pass over b, a JSON text, with jsonscan.Scan, and
// returns what it found and the first rule b breaks in the order of the text:
// a *duplicateKeyError or a *limitError. It allocates nothing for a small,
// plain input. A text that is not JSON breaks no rule here (up to its first
// syntax error, the limits hold): decoding it fails later, with a better
// message.
func scanJSON(b []byte, rules *scanRules) (jsonscan.Result, error) {
	r := jsonscan.Scan(b, rules.limits)
	lim := &rules.limits
	switch {
	case rules.duplicateKeys && r.Dup: // found before any limit the scan stopped at
		return r, &duplicateKeyError{key: jsonscan.KeyText(r.DupKey)}
	case r.Over == jsonscan.LimitDepth:
		return r, &limitError{rules.what, over("nesting depth", r.Depth, lim.Depth), rules.depthOption}
	case r.Over == jsonscan.LimitObjects:
		return r, &limitError{rules.what, more("JSON objects", r.Objects, lim.Objects), "WithMaxSchemaObjects"}
	case r.Over == jsonscan.LimitTokens:
		return r, &limitError{rules.what, more("values and keys", r.Tokens, lim.Tokens), "WithMaxInputTokens"}
	case r.Over == jsonscan.LimitNumberLength:
		return r, &limitError{rules.what, "has a number literal of " + strconv.Itoa(len(r.Number)) +
			" bytes, more than the limit of " + strconv.Itoa(lim.NumberLength), "WithMaxNumberLength"}
	case r.Over == jsonscan.LimitNumberExponent:
		shown := r.Number[:min(len(r.Number), 32)]
		return r, &limitError{rules.what, "has the number " + string(shown) + " whose exponent exceeds the limit of " +
			strconv.Itoa(lim.NumberExponent), "WithMaxNumberExponent"}
	}
	return r, nil
}

// duplicateKeyError reports an object whose keys repeat. A schema validator
// sees only one of them, and a Go program that decodes the object into a
// struct matches keys regardless of case, so such an input could pass the
// check with one value and reach the tool with another.
type duplicateKeyError struct{ key string }

func (e *duplicateKeyError) Error() string {
	return "llm: input has the key " + strconv.Quote(e.key) +
		" more than once (keys that differ only in case count as the same key)"
}
