package llm

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realPatterns are patterns of real tool and API schemas, the heaviest
// kinds: bounded repetitions of classes, a date-time, semantic versions, an
// e-mail address.
var realPatterns = []string{
	`^[a-zA-Z0-9._:-]{1,128}$`, `^[A-Za-z0-9_-]{20,80}$`, `^[a-f0-9]{64}$`, `^[a-zA-Z0-9_-]+$`, `^[A-Za-z0-9][A-Za-z0-9._:-]*$`,
	`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`,
	`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`,
	`^[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`,
	`(?i)^[a-z0-9-]{1,63}$`, `^[\p{L}\p{N} _-]{1,100}$`,
}

// TestLimitsAdmitRealPatterns: each real pattern is far under the size
// limit, and a schema of 40 properties, each with the costliest of them, is
// within the validation budget.
func TestLimitsAdmitRealPatterns(t *testing.T) {
	costliest, costliestPattern := 0, ""
	for _, p := range realPatterns {
		size, err := programSize(p)
		require.NoError(t, err, p)
		assert.Less(t, size, DefaultMaxPatternSize/10, p)
		if cost := parseCost(p) + size/compileUnit; cost > costliest {
			costliest, costliestPattern = cost, p
		}
	}
	t.Logf("the costliest real pattern costs %d checks to compile: %s", costliest, costliestPattern)
	props := make([]string, 40)
	for i := range props {
		b, _ := json.Marshal(costliestPattern)
		props[i] = `"p` + strconv.Itoa(i) + `":{"type":"string","pattern":` + string(b) + `}`
	}
	lim := defaultLimits()
	_, err := compileValidator(context.Background(), []byte(`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`), &lim)
	require.NoError(t, err)
}

// TestCheckPatternsAnswersTheSameEveryTime: with a pattern over the size
// limit and patterns over the budget in one schema, the walk's fixed order
// decides which is reported, every time.
func TestCheckPatternsAnswersTheSameEveryTime(t *testing.T) {
	props := []string{`"z":{"pattern":"` + strings.Repeat("a{1000}", 11) + `"}`}
	for i := range 20 {
		props = append(props, `"p`+strconv.Itoa(i)+`":{"patternProperties":{"`+strings.Repeat("b{1000}", 9)+strconv.Itoa(i)+`":{}}}`)
	}
	doc := []byte(`{"properties":{` + strings.Join(props, ",") + `}}`)
	lim := defaultLimits()
	first := checkPatterns(doc, &lim)
	require.ErrorIs(t, first, ErrLimitExceeded)
	for range 20 {
		assert.Equal(t, first, checkPatterns(doc, &lim))
	}
	lim.budget = 1 << 20
	assert.ErrorContains(t, checkPatterns(doc, &lim), "compiles to 11002 instructions, more than the limit of 10000 (see WithMaxPatternSize)")
	lim.patternSize = 20_000
	assert.NoError(t, checkPatterns(doc, &lim))
}

// TestNamesWeigh: required, dependentRequired and dependencies cost one
// check per name and per nameUnit bytes, charged when applied to an object.
func TestNamesWeigh(t *testing.T) {
	long := strings.Repeat("n", 2*nameUnit)
	tests := []struct {
		schema string
		want   int
	}{
		{`{"required":["a","b","` + long + `"]}`, 3 + (2+2*nameUnit)/nameUnit},
		{`{"dependentRequired":{"a":["b","c"],"d":[]}}`, 2 + 2},
		{`{"dependencies":{"a":["b"],"c":{"required":["x"]}}}`, 2 + 1},
	}
	for _, tt := range tests {
		lim := defaultLimits()
		cc := &checkCompiler{meter: &meter{}, budget: lim.budget}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(tt.schema), &m))
		ext, err := cc.Compile(jsonschema.CompilerContext{}, m)
		require.NoError(t, err)
		assert.Equal(t, tt.want, ext.(*checkNode).objectWeight, tt.schema)
	}
}

// TestRegexPropertiesAreCheckedHere: regexProperties, taken over from the
// validator, still refuses a key that is not a regular expression, and
// charges each key's parse.
func TestRegexPropertiesAreCheckedHere(t *testing.T) {
	lim := defaultLimits()
	v, err := compileValidator(context.Background(), []byte(`{"type":"object","regexProperties":true}`), &lim)
	require.NoError(t, err)
	require.NoError(t, v.validate(context.Background(), []byte(`{"a+":1,"^b$":2}`), &lim))
	assert.Equal(t, lim.budget-1-(1+len("a+"))-(1+len("^b$")), v.meter.left, "one check for the object, and each key's parse")
	err = v.validate(context.Background(), []byte(`{"a+":1,"(":2}`), &lim)
	require.Error(t, err)
	assert.Equal(t, []violation{{keyword: "/regexProperties", message: "patternProperty '(' is not valid regex"}}, violations(err))
}

// TestMetaSchemasAreRefused: a $ref to any draft's meta-schema would
// validate outside the budget.
func TestMetaSchemasAreRefused(t *testing.T) {
	for _, url := range []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-04/schema#"} {
		lim := defaultLimits()
		_, err := compileValidator(context.Background(), []byte(`{"properties":{"s":{"$ref":"`+url+`"}}}`), &lim)
		require.ErrorIs(t, err, ErrLimitExceeded, url)
		assert.ErrorContains(t, err, "a schema whose checks cannot be counted against the validation budget", url)
	}
	lim := defaultLimits()
	_, err := compileValidator(context.Background(), []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}},`+
		`"properties":{"s":{"$ref":"#/definitions/a"},"t":true,"u":false}}`), &lim)
	assert.NoError(t, err, "a $schema, a draft-07 $ref inside the document and boolean schemas are fine")
}
