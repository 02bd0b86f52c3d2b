package llm_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The findings of issue 19 on what validating an input against a tool schema
// may cost, each kept as a test. Before the fix every one ran for seconds and
// allocated gigabytes (RELIABILITY.md and the notes have the figures), and
// most were then accepted; now each ends, in milliseconds, in an error that
// wraps ErrLimitExceeded and names the limit. The tests use only what the
// package had before, so they run against the old code too.

// bigRegex is a 21 KB regular expression, a{1000} 3,000 times, that compiles
// to about three million instructions.
var bigRegex = strings.Repeat("a{1000}", 3000)

// draft07 is the $schema of draft-07, under which jsonschema/v5 asserts
// format, "regex" included.
const draft07 = `"$schema":"http://json-schema.org/draft-07/schema#",`

// quoted returns each of texts as a JSON string.
func quoted(texts ...string) []string {
	out := make([]string, len(texts))
	for i, s := range texts {
		b, err := json.Marshal(s)
		if err != nil {
			panic(err)
		}
		out[i] = string(b)
	}
	return out
}

// requiredNames is a schema whose items each require n names, and an input
// of count empty objects.
func requiredNames(keyword string, n, count int) (schema, input string) {
	names := make([]string, n)
	for i := range names {
		names[i] = "n" + strconv.FormatInt(int64(i), 36)
	}
	list := `["` + strings.Join(names, `","`) + `"]`
	var items string
	switch keyword {
	case "required":
		items = `{"required":` + list + `}`
	case "dependentRequired":
		items = `{"dependentRequired":{"x":` + list + `}}`
	case "dependencies":
		items = `{"dependencies":{"x":` + list + `}}`
	}
	objects := strings.Repeat(`{"x":1},`, count)
	return `{"type":"object","properties":{"rows":{"type":"array","items":` + items + `}}}`,
		`{"rows":[` + strings.TrimSuffix(objects, ",") + `]}`
}

// TestValidationCostIsBounded: each attack, checked by an InputFix in
// Analyze and by an input check (which has no deadline), ends in a refusal
// that names the limit.
func TestValidationCostIsBounded(t *testing.T) {
	regexItems := `{` + draft07 + `"type":"object","properties":{"patterns":{"type":"array","items":{"type":"string","format":"regex"}}}}`
	reqSchema, reqInput := requiredNames("required", 25_000, 400)
	someReqSchema, someReqInput := requiredNames("required", 2_000, 400)
	depSchema, depInput := requiredNames("dependentRequired", 2_000, 400)
	oldDepSchema, oldDepInput := requiredNames("dependencies", 2_000, 400)
	mid := strings.Repeat("a{1000}", 9) // 63 bytes, 9,002 instructions: under every cap alone
	props := make([]string, 12)
	for i := range props {
		props[i] = `"p` + strconv.Itoa(i) + `":{"type":"string","pattern":` + quoted(mid)[0] + `}`
	}
	tests := []struct {
		name   string
		schema string
		input  string
		want   string // the option the error names
		why    string // what the error says
	}{
		{
			name:   "finding 1: three 21 KB regexes checked as format regex",
			schema: regexItems,
			input:  `{"patterns":[` + strings.Join(quoted(bigRegex, bigRegex, bigRegex), ",") + `]}`,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 1: a 3 KB regex of 1,000 Unicode classes checked as format regex",
			schema: regexItems,
			input:  `{"patterns":[` + quoted(strings.Repeat(`\pL`, 1000))[0] + `]}`,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 1: a 2.4 KB regex of 100 case-folded ranges checked as format regex",
			schema: regexItems,
			input:  `{"patterns":[` + quoted("(?i)" + strings.Repeat(`[\x{100}-\x{10FFFF}]`, 100))[0] + `]}`,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 1: keys compiled as regexes under regexProperties",
			schema: `{"type":"object","regexProperties":true}`,
			input:  `{` + quoted(bigRegex)[0] + `:1}`,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 1: a tool schema that takes a JSON Schema, checked by the meta-schema",
			schema: `{"type":"object","properties":{"schema":{"$ref":"http://json-schema.org/draft-07/schema#"}}}`,
			input:  `{"schema":{"properties":{"a":{"pattern":` + quoted(bigRegex)[0] + `}}}}`,
			want:   "WithValidationBudget",
			why:    "a schema whose checks cannot be counted against the validation budget",
		},
		{
			name:   "finding 2: a 21 KB pattern in the tool schema",
			schema: `{"type":"object","properties":{"q":{"type":"string","pattern":` + quoted(bigRegex)[0] + `}}}`,
			input:  `{"q":"a"}`,
			want:   "WithValidationBudget",
			why:    "tool schema has patterns that together cost more than the validation budget",
		},
		{
			name:   "finding 2: a 140-byte pattern of 20,002 instructions in the tool schema",
			schema: `{"type":"object","properties":{"q":{"type":"string","pattern":` + quoted(strings.Repeat("a{1000}", 20))[0] + `}}}`,
			input:  `{"q":"a"}`,
			want:   "WithMaxPatternSize",
			why:    "tool schema has a pattern that compiles to 20002 instructions, more than the limit of 10000",
		},
		{
			name:   "finding 2: twelve patterns of 9,002 instructions in the tool schema",
			schema: `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`,
			input:  `{"p0":"a"}`,
			want:   "WithValidationBudget",
			why:    "tool schema has patterns that together cost more than the validation budget",
		},
		{
			name:   "finding 2: a 2.4 KB case-insensitive pattern of 100 wide ranges in the tool schema",
			schema: `{"type":"object","properties":{"q":{"type":"string","pattern":` + quoted("(?i)" + strings.Repeat(`[\x{100}-\x{10FFFF}]`, 100))[0] + `}}}`,
			input:  `{"q":"a"}`,
			want:   "WithValidationBudget",
			why:    "tool schema has patterns that together cost more than the validation budget",
		},
		{
			name:   "finding 3: 25,000 required names under items, 400 objects",
			schema: reqSchema,
			input:  reqInput,
			want:   "WithValidationBudget",
			why:    "tool schema has a schema object that costs 26542 checks each time it is applied",
		},
		{
			name:   "finding 3: 2,000 required names under items, 400 objects",
			schema: someReqSchema,
			input:  someReqInput,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 3: 2,000 dependentRequired names under items",
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema",` + strings.TrimPrefix(depSchema, "{"),
			input:  depInput,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
		{
			name:   "finding 3: 2,000 draft-07 dependencies names under items",
			schema: `{` + draft07 + strings.TrimPrefix(oldDepSchema, "{"),
			input:  oldDepInput,
			want:   "WithValidationBudget",
			why:    "input needs more checks than the validation budget",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("Analyze", func(t *testing.T) {
				_, client := answering(t, answer(true, "low", corr("input_fix", tt.input, nil, nil)))
				f := readFailure()
				f.Schema.InputSchema = json.RawMessage(tt.schema)
				got, err := llm.New(client, llm.WithRepairRounds(0)).Analyze(context.Background(), f)
				requireInternal(t, err)
				assert.Zero(t, got)
				assert.ErrorIs(t, err, llm.ErrLimitExceeded)
				assert.Contains(t, err.Error(), tt.want)
				assert.Contains(t, err.Error(), tt.why)
			})
			t.Run("input check", func(t *testing.T) {
				lookup := func(string) (reflection.ToolSchema, bool) {
					return reflection.ToolSchema{Name: "t", InputSchema: json.RawMessage(tt.schema)}, true
				}
				err := llm.NewInputCheck(lookup)("t", json.RawMessage(tt.input))
				require.ErrorIs(t, err, llm.ErrInputRejected)
				assert.ErrorIs(t, err, llm.ErrLimitExceeded)
				assert.Contains(t, err.Error(), tt.want)
				assert.Contains(t, err.Error(), tt.why)
			})
		})
	}
}
