package llm

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// checkPatterns measures, before a tool schema is compiled, what compiling
// its regular expressions will cost: the value of every "pattern" and every
// key of every "patternProperties", wherever they stand (counting a few
// that are not keywords can only refuse more). jsonschema/v5 parses and
// compiles each of them, up to twice, before it calls anything of this
// package: to check the schema against its meta-schema (whose format "regex"
// draft-07 asserts) and to keep it. So each is refused over lim.patternSize
// instructions, and all of
// them together over the validation budget (parseCost, and one check per
// compileUnit instructions). Nothing is compiled here; the only parse is
// that of a pattern whose parseCost still fits the budget. The schema is
// walked in a fixed order, so the same schema always gets the same answer.
func checkPatterns(doc []byte, lim *limits) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return nil // the compiler reports it
	}
	total := 0
	var walk func(v any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			var patterns []string
			if p, ok := v["pattern"].(string); ok {
				patterns = append(patterns, p)
			}
			if pp, ok := v["patternProperties"].(map[string]any); ok {
				patterns = append(patterns, slices.Sorted(maps.Keys(pp))...)
			}
			for _, p := range patterns {
				if total = add(total, parseCost(p)); total > lim.budget {
					return patternsOverBudget(lim.budget)
				}
				size, err := programSize(p)
				if err != nil {
					continue // the compiler reports it
				}
				if size > lim.patternSize {
					return &limitError{"tool schema", "has a pattern that compiles to " + strconv.Itoa(size) +
						" instructions, more than the limit of " + strconv.Itoa(lim.patternSize), "WithMaxPatternSize"}
				}
				if total = add(total, size/compileUnit); total > lim.budget {
					return patternsOverBudget(lim.budget)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if err := walk(v[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(tree)
}

func patternsOverBudget(budget int) error {
	return &limitError{"tool schema", "has patterns that together cost more than the validation budget of " +
		strconv.Itoa(budget) + " checks to compile", "WithValidationBudget"}
}
