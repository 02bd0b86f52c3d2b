package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerCapRefusesAnAnswerThatWouldParse: an answer one byte over 1 MiB
// is refused even though it parses; one exactly at 1 MiB is read.
func TestAnswerCapRefusesAnAnswerThatWouldParse(t *testing.T) {
	good := answer(false, "low", nil)
	atCap := good + strings.Repeat(" ", 1<<20-len(good))
	_, client := answering(t, atCap)
	_, err := llm.New(client).Analyze(context.Background(), readFailure())
	require.NoError(t, err, "an answer of exactly 1 MiB is read")

	_, client = answering(t, atCap+" ")
	_, err = llm.New(client, llm.WithRepairRounds(0)).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	assert.Contains(t, err.Error(), "answer is 1048577 bytes, more than 1048576")
}

// TestAnswerOfObjectStartsIsRefusedCheaply: a 240 KB answer of '{' (which
// took 16 s before the number of starts tried in prose was capped).
func TestAnswerOfObjectStartsIsRefusedCheaply(t *testing.T) {
	_, client := answering(t, strings.Repeat("{", 240_000))
	_, err := llm.New(client, llm.WithRepairRounds(0)).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	assert.Contains(t, err.Error(), "answer holds no JSON object")
}

// TestSchemaValidationAppliesToInputFixOnly: a modified_input that fails
// the schema is refused in an InputFix and ignored in any other correction.
func TestSchemaValidationAppliesToInputFixOnly(t *testing.T) {
	const misfit = `{"file":"docs/notes.md"}`
	for _, typ := range []string{"tool_change", "prerequisite_fix", "approach_change", "escalate"} {
		t.Run(typ, func(t *testing.T) {
			_, client := answering(t, answer(true, "low", corr(typ, misfit, "list_dir", "do it")))
			got, err := llm.New(client).Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			assert.Equal(t, misfit, string(got.Correction.ModifiedInput))
		})
	}
	t.Run("input_fix", func(t *testing.T) {
		_, client := answering(t, answer(true, "low", corr("input_fix", misfit, nil, nil)))
		_, err := llm.New(client).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
		assert.Contains(t, err.Error(), "modified_input does not match the schema")
	})
}

func TestErrorsQuoteTheAnswer(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"short, whole", "no idea", "; the answer was: no idea"},
		{"long, cut at 512 bytes", strings.Repeat("a", 600), "; the answer was: " + strings.Repeat("a", 512) + "…[truncated 88 bytes]"},
		{"cut on a UTF-8 boundary", strings.Repeat("a", 511) + "é" + strings.Repeat("b", 10), "; the answer was: " + strings.Repeat("a", 511) + "…[truncated 12 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, tt.content)
			_, err := llm.New(client).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			assert.True(t, strings.HasSuffix(err.Error(), tt.want), err.Error())
		})
	}
}

// TestRedactorScrubsErrors: errors get logged by hosts, so what they quote
// (the model's answer, a validator's message that quotes a rejected value, a
// refusal) passes through the redactor.
func TestRedactorScrubsErrors(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	emailSchema := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"to":{"type":"string","format":"email"}}}`
	tests := []struct {
		name   string
		reply  string
		schema string
	}{
		{"the quoted answer", "my key is " + secret, ""},
		{"a format error quoting the rejected value", answer(true, "low", corr("input_fix", `{"to":"`+secret+`"}`, nil, nil)), emailSchema},
		{"a refusal", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := completion(tt.reply)
			if tt.name == "a refusal" {
				body = refusal("I will not repeat " + secret)
			}
			f := readFailure()
			if tt.schema != "" {
				f.Schema.InputSchema = json.RawMessage(tt.schema)
			}
			for _, withRedactor := range []bool{false, true} {
				_, client := newChatServer(t, func(int) (int, string) { return 200, body })
				opts := []llm.Option{llm.WithRepairRounds(0)}
				if withRedactor {
					opts = append(opts, llm.WithRedactor(redact))
				}
				_, err := llm.New(client, opts...).Analyze(context.Background(), f)
				requireInternal(t, err)
				if withRedactor {
					assert.NotContains(t, err.Error(), secret)
					assert.Contains(t, err.Error(), "[REDACTED]")
				} else {
					assert.Contains(t, err.Error(), secret, "without a redactor the error shows what was said")
				}
			}
		})
	}
}

func TestInputFixWithRepeatedKeysIsRepaired(t *testing.T) {
	bad := answer(true, "low", corr("input_fix", `{"path":"/safe/ok","PATH":"/etc/passwd"}`, nil, nil))
	good := answer(true, "low", corr("input_fix", `{"path":"/safe/ok"}`, nil, nil))
	srv, client := replies(t, bad, good)
	f := readFailure()
	f.Schema.InputSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","pattern":"^/safe/"}}}`)
	got, err := llm.New(client).Analyze(context.Background(), f)
	require.NoError(t, err)
	assert.Equal(t, `{"path":"/safe/ok"}`, string(got.Correction.ModifiedInput))
	complaint := srv.messagesAt(1)[3][1]
	assert.Contains(t, complaint, `the corrected input is refused: llm: input has the key "PATH" more than once`)
}

func TestLimitsAreOptions(t *testing.T) {
	withInput := func(in string) string { return answer(true, "low", corr("input_fix", in, nil, nil)) }
	tests := []struct {
		name   string
		opt    llm.Option
		answer string
		want   string // "" when the option at 0 must keep the default
	}{
		{"schema bytes", llm.WithMaxSchemaBytes(50), goodFix, "WithMaxSchemaBytes"},
		{"schema depth", llm.WithMaxSchemaDepth(2), goodFix, "tool schema nesting depth 3 exceeds the limit of 2"},
		{"schema objects", llm.WithMaxSchemaObjects(2), goodFix, "tool schema has 3 JSON objects, more than the limit of 2"},
		{"input depth", llm.WithMaxInputDepth(1), withInput(`{"path":"a","x":{}}`), "input nesting depth 2 exceeds the limit of 1"},
		{"input tokens", llm.WithMaxInputTokens(2), goodFix, "input has 3 values and keys, more than the limit of 2"},
		{"number length", llm.WithMaxNumberLength(3), withInput(`{"path":"a","n":12345}`), "number literal of 5 bytes"},
		{"number exponent", llm.WithMaxNumberExponent(5), withInput(`{"path":"a","n":1e6}`), "the number 1e6 whose exponent exceeds the limit of 5"},
		{"validation budget", llm.WithValidationBudget(1), goodFix, "validation budget of 1"},
		{"an enum that costs more than the budget", llm.WithValidationBudget(3), goodFix, "costs 4 checks each time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := readFailure()
			if strings.HasPrefix(tt.name, "an enum") {
				f.Schema.InputSchema = json.RawMessage(`{"properties":{"path":{"enum":["a","b","docs/notes.md"]}}}`)
			}
			_, client := answering(t, tt.answer)
			_, err := llm.New(client, tt.opt, llm.WithRepairRounds(0)).Analyze(context.Background(), f)
			requireInternal(t, err)
			assert.ErrorIs(t, err, llm.ErrLimitExceeded)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("0 or below keeps the defaults", func(t *testing.T) {
		_, client := answering(t, goodFix)
		var opts []llm.Option
		for _, n := range []int{0, -1} {
			opts = append(opts, llm.WithMaxSchemaBytes(n), llm.WithMaxSchemaDepth(n), llm.WithMaxSchemaObjects(n),
				llm.WithMaxInputDepth(n), llm.WithMaxInputTokens(n), llm.WithMaxNumberLength(n), llm.WithMaxNumberExponent(n),
				llm.WithValidationBudget(n), llm.WithMaxCatalogBytes(n))
		}
		_, err := llm.New(client, opts...).Analyze(context.Background(), readFailure())
		require.NoError(t, err)
	})
}

// countdownCtx is a context whose Err turns to Canceled after a number of
// calls: a deterministic way to end a context in the middle of a validation.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func endingAfter(n int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestValidationStopsWhenTheContextEnds: compiling and validating look at
// Analyze's context, so a huge budget does not keep Analyze past its end.
func TestValidationStopsWhenTheContextEnds(t *testing.T) {
	f := readFailure()
	f.Schema.InputSchema = json.RawMessage(doublingAllOf())
	r := llm.New(canned(answer(true, "low", corr("input_fix", `{}`, nil, nil))), llm.WithValidationBudget(1<<30))

	_, err := r.Analyze(endingAfter(3), f)
	requireInternal(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped", "compiling stopped")

	_, err = r.Analyze(endingAfter(1000), f)
	requireInternal(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "checking modified_input against the schema of \"read_file\" stopped")
}

// TestPatternsAreStillChecked: patterns are matched by the budget's
// extension, not the validator; every way of reaching one still applies it.
func TestPatternsAreStillChecked(t *testing.T) {
	tests := []struct {
		name, schema, input string
		ok                  bool
	}{
		{"a property", `{"properties":{"q":{"pattern":"^SELECT "}}}`, `{"q":"DROP"}`, false},
		{"a property, matching", `{"properties":{"q":{"pattern":"^SELECT "}}}`, `{"q":"SELECT 1"}`, true},
		{"through $ref", `{"$defs":{"s":{"type":"string","pattern":"^a+$"}},"properties":{"q":{"$ref":"#/$defs/s"}}}`, `{"q":"ab"}`, false},
		{"in a draft-07 definition", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"pattern":"^a+$"}},"properties":{"q":{"$ref":"#/definitions/s"}}}`, `{"q":"b"}`, false},
		{"property names", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"Q":1}`, false},
		{"array items", `{"properties":{"l":{"items":{"pattern":"^x"}}}}`, `{"l":["x1","y2"]}`, false},
		{"patternProperties", `{"patternProperties":{"^n_":{"type":"integer"}}}`, `{"n_a":"one"}`, false},
		{"not a string", `{"properties":{"q":{"pattern":"^a"}}}`, `{"q":5}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := readFailure()
			f.Schema.InputSchema = json.RawMessage(tt.schema)
			_, client := answering(t, answer(true, "low", corr("input_fix", tt.input, nil, nil)))
			_, err := llm.New(client, llm.WithRepairRounds(0)).Analyze(context.Background(), f)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInternal(t, err)
			assert.Contains(t, err.Error(), "modified_input does not match the schema")
		})
	}
	t.Run("the message reads as the validator's", func(t *testing.T) {
		check := llm.NewInputCheck(registry(map[string]string{"t": `{"properties":{"q":{"pattern":"^it's \"x\"$"}}}`}))
		err := check("t", json.RawMessage(`{"q":"no"}`))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `at /q: does not match pattern '^it\'s "x"$'`)
	})
	t.Run("a long key against patternProperties is refused up front", func(t *testing.T) {
		check := llm.NewInputCheck(registry(map[string]string{"t": `{"patternProperties":{"(a|b){1000}x":{}}}`}))
		err := check("t", json.RawMessage(`{"`+strings.Repeat("ab", 1000)+`":1}`))
		require.ErrorIs(t, err, llm.ErrLimitExceeded)
		assert.Contains(t, err.Error(), "has a key of 2000 bytes, too long to match against a pattern of")
	})
}
