package llm_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
)

// The attacks of issue 9 on the llm Reflector, each kept as a test. Before
// the limits and the validation budget, every one either stalled Analyze for
// seconds to minutes (and gigabytes), or was accepted, or made the validator
// panic; RELIABILITY.md has the figures. Now each ends in an error that names
// the limit it broke, in milliseconds. Each test uses only what Analyze had
// before, so it runs against the old code too.

// nested returns open repeated n times, then leaf, then close n times.
func nested(open, leaf, closing string, n int) string {
	return strings.Repeat(open, n) + leaf + strings.Repeat(closing, n)
}

// doublingAllOf is the 1.3 KB schema of issue 9 whose allOf doubles at each
// of 20 levels: validating {} against it applies 2^21 schema objects.
func doublingAllOf() string { return doubling(20) }

// doubling is a schema whose allOf doubles at each of n levels.
func doubling(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := range n {
		b.WriteString(`"l` + strconv.Itoa(i) + `":{"allOf":[{"$ref":"#/$defs/l` + strconv.Itoa(i+1) + `"},{"$ref":"#/$defs/l` + strconv.Itoa(i+1) + `"}]},`)
	}
	b.WriteString(`"l` + strconv.Itoa(n) + `":{"type":"object"}},"$ref":"#/$defs/l0"}`)
	return b.String()
}

// numbersAgainstEnum is a schema whose items must be one of 1,000 numbers, and
// an input of nearly 10,000 numbers (within the token limit) that each match
// only the last one.
func numbersAgainstEnum() (schema, input string) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = strconv.Itoa(100_000 + i)
	}
	items := make([]string, 9_990)
	for i := range items {
		items[i] = values[len(values)-1]
	}
	return `{"type":"object","properties":{"a":{"type":"array","items":{"enum":[` + strings.Join(values, ",") + `]}}}}`,
		`{"a":[` + strings.Join(items, ",") + `]}`
}

func TestAttacksEndInAnErrorNamingTheLimit(t *testing.T) {
	enumSchema, enumInput := numbersAgainstEnum()
	tests := []struct {
		name   string
		schema string
		input  string // the model's modified_input
		want   []string
	}{
		{
			name:   "finding 1: recursive schema, answer nested 1000 deep with an invalid leaf",
			schema: `{"type":"object","properties":{"a":{"$ref":"#"}}}`,
			input:  nested(`{"a":`, `1`, `}`, 1000),
			want:   []string{"nesting depth 33 exceeds the limit of 32", "WithMaxInputDepth"},
		},
		{
			name:   "finding 2: allOf doubling at each of 20 levels",
			schema: doublingAllOf(),
			input:  `{}`,
			want:   []string{"validation budget", "WithValidationBudget"},
		},
		{
			name:   "finding 2: a 105 KB schema nested 4999 deep",
			schema: nested(`{"properties":{"a":`, `{}`, `}}`, 4999),
			input:  `{}`,
			want:   []string{"nesting depth 65 exceeds the limit of 64", "WithMaxSchemaDepth"},
		},
		{
			name:   "1e999999 against an integer",
			schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			input:  `{"n":1e999999}`,
			want:   []string{"exponent exceeds the limit of 400", "WithMaxNumberExponent"},
		},
		{
			name:   "1e9999999 against an integer",
			schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			input:  `{"n":1e9999999}`,
			want:   []string{"exponent exceeds the limit of 400", "WithMaxNumberExponent"},
		},
		{
			name:   "10,000 numbers against an enum of 1,000",
			schema: enumSchema,
			input:  enumInput,
			want:   []string{"validation budget", "WithValidationBudget"},
		},
		{
			name:   "a pattern of 3,003 instructions against a 64 KiB string",
			schema: `{"type":"object","properties":{"s":{"type":"string","pattern":"(a|b){1000}x"}}}`,
			input:  `{"s":"` + strings.Repeat("ab", 32<<10) + `"}`,
			want:   []string{"validation budget", "WithValidationBudget"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, answer(true, "low", corr("input_fix", tt.input, nil, nil)))
			f := readFailure()
			f.Schema.InputSchema = json.RawMessage(tt.schema)
			got, err := llm.New(client).Analyze(context.Background(), f)
			requireInternal(t, err)
			assert.Zero(t, got)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
