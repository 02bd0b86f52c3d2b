package llm

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanJSON: each limit jsonscan.Scan stops at becomes the error that
// names it and its option; a repeated key found before the limit is reported
// first. (The scan itself is fuzzed in internal/jsonscan, FuzzScan.)
func TestScanJSON(t *testing.T) {
	lim := defaultLimits()
	lim.schemaDepth, lim.inputDepth, lim.inputTokens, lim.schemaObjects, lim.numberLength, lim.numberExponent = 2, 2, 6, 2, 5, 10
	tests := []struct {
		name   string
		schema bool
		doc    string
		want   string // "" for no error
	}{
		{"within every limit", false, `{"a":[1,2e3]}`, ""},
		{"not JSON is left to the decoder", false, `{"a":`, ""},
		{"depth", false, `{"a":[[1]]}`, "llm: input nesting depth 3 exceeds the limit of 2 (see WithMaxInputDepth)"},
		{"schema depth", true, `[[[1]]]`, "llm: tool schema nesting depth 3 exceeds the limit of 2 (see WithMaxSchemaDepth)"},
		{"tokens", false, `{"a":[1,2,3,4]}`, "llm: input has 7 values and keys, more than the limit of 6 (see WithMaxInputTokens)"},
		{"objects", true, `[{},{},{}]`, "llm: tool schema has 3 JSON objects, more than the limit of 2 (see WithMaxSchemaObjects)"},
		{"number length", false, `[123456]`, "llm: input has a number literal of 6 bytes, more than the limit of 5 (see WithMaxNumberLength)"},
		{"number exponent", false, `[1e-11]`, "llm: input has the number 1e-11 whose exponent exceeds the limit of 10 (see WithMaxNumberExponent)"},
		{"a repeated key before a limit", false, `{"k":1,"\u004b":2,"x":[[1]]}`, `llm: input has the key "K" more than once (keys that differ only in case count as the same key)`},
		{"a limit before a repeated key", false, `{"x":[[1]],"k":1,"K":2}`, "llm: input nesting depth 3 exceeds the limit of 2 (see WithMaxInputDepth)"},
		{"schemas may repeat keys", true, `{"k":1,"k":2}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := lim.inputRules()
			if tt.schema {
				rules = lim.schemaRules()
			}
			_, err := scanJSON([]byte(tt.doc), &rules)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			var dup *duplicateKeyError
			assert.True(t, errors.Is(err, ErrLimitExceeded) != errors.As(err, &dup), "a limit error matches ErrLimitExceeded, a repeated key does not")
		})
	}
}

func TestScanJSONAllocatesNothingForASmallInput(t *testing.T) {
	doc := []byte(`{"path":"docs/notes.md","offset":10,"opts":{"follow":true,"tags":["a","b"]}}`)
	lim := defaultLimits()
	rules := lim.inputRules()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := scanJSON(doc, &rules); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
