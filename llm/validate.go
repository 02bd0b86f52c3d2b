package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// decodeJSON decodes doc, one JSON value, keeping numbers exact.
func decodeJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// validateValue checks v against sch. A panic inside the validator is
// recovered and returned as an error; the panics that end a validation on
// its budget or its context become their errors.
func validateValue(sch *jsonschema.Schema, v any, budget int) (err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case budgetSpent:
			err = &limitError{"input", "needs more checks than the validation budget of " + strconv.Itoa(budget) +
				" against this schema", "WithValidationBudget"}
		case validationStopped:
			err = &stopError{p.err}
		default:
			err = fmt.Errorf("validator panicked: %v", p)
		}
	}()
	return sch.Validate(v)
}

// validate checks doc against the schema of v, within the limits on an
// input and the validation budget. ctx, which may be nil, stops it early.
func (v *validator) validate(ctx context.Context, doc []byte, lim *limits) error {
	rules := lim.inputRules()
	st, err := scanJSON(doc, &rules)
	if err != nil {
		return err
	}
	room := lim.budget * patternUnit
	if v.keyPatternSize > 0 && st.MaxKey*v.keyPatternSize > room {
		return &limitError{"input", "has a key of " + strconv.Itoa(st.MaxKey) + " bytes, too long to match against a pattern of " +
			strconv.Itoa(v.keyPatternSize) + " instructions within the validation budget", "WithValidationBudget"}
	}
	if v.loosePatternSize > 0 && st.MaxString*v.loosePatternSize > room {
		return &limitError{"input", "has a string of " + strconv.Itoa(st.MaxString) + " bytes, too long to match against a pattern of " +
			strconv.Itoa(v.loosePatternSize) + " instructions within the validation budget", "WithValidationBudget"}
	}
	value, err := decodeJSON(doc)
	if err != nil {
		return err
	}
	if !st.Valid { // what follows the value is not white space
		return errors.New("text follows the JSON value")
	}
	v.meter.left, v.meter.ctx, v.meter.sinceCtx = lim.budget, ctx, 0
	return validateValue(v.schema, value, lim.budget)
}

// violation is one leaf of a validation error: where in the instance, and
// what the validator said.
type violation struct {
	at      string // JSON pointer into the validated value; "" is the value itself
	keyword string // JSON pointer to the keyword in the schema
	message string
}

// violations lists the leaves of err, a *jsonschema.ValidationError, in a
// stable order. Any other error is one violation at the root.
func violations(err error) []violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []violation{{message: err.Error()}}
	}
	var out []violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, violation{at: e.InstanceLocation, keyword: e.KeywordLocation, message: e.Message})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortFunc(out, func(a, b violation) int {
		if c := strings.Compare(a.at, b.at); c != 0 {
			return c
		}
		if c := strings.Compare(a.keyword, b.keyword); c != 0 {
			return c
		}
		return strings.Compare(a.message, b.message)
	})
	return slices.Compact(out)
}

// maxViolations bounds how many violations a message lists.
const maxViolations = 8

// describe renders the violations of err, one per line when lines is true
// and separated by "; " otherwise, each as "at /pointer: message", with
// prefix before every pointer (the place of the validated value inside a
// larger document).
func describe(err error, prefix string, lines bool) string {
	vs := violations(err)
	var b strings.Builder
	for i, v := range vs {
		if i == maxViolations {
			b.WriteString(sep(lines))
			b.WriteString("and " + strconv.Itoa(len(vs)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString(sep(lines))
		}
		if lines {
			b.WriteString("- ")
		}
		at := prefix + v.at
		if at == "" {
			at = "/"
		}
		b.WriteString("at ")
		b.WriteString(at)
		b.WriteString(": ")
		b.WriteString(v.message)
	}
	return b.String()
}

func sep(lines bool) string {
	if lines {
		return "\n"
	}
	return "; "
}
