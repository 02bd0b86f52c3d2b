package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// registry is a SchemaLookup over a fixed set of tool schemas.
func registry(schemas map[string]string) reflection.SchemaLookup {
	return func(tool string) (reflection.ToolSchema, bool) {
		s, ok := schemas[tool]
		return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(s)}, ok
	}
}

var checkTools = map[string]string{
	"read_file": readFileSchema,
	"run_sql":   `{"type":"object","properties":{"query":{"type":"string","pattern":"^SELECT "}},"required":["query"]}`,
	"search":    `{"type":"object"}`,
	"no_schema": ``,
	"broken":    `{"type": 12}`,
	"too_deep":  nested(`{"properties":{"a":`, `{}`, `}}`, 40),
	"doubling":  doublingAllOf(),
	"doubling8": doubling(8), // 3 * 2^8 schema objects applied to {}
	"email":     `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"to":{"type":"string","format":"email"}}}`,
}

func TestInputCheck(t *testing.T) {
	check := llm.NewInputCheck(registry(checkTools))
	tests := []struct {
		name      string
		tool      string
		input     string
		wantErr   []string // substrings of the error; nil for no error
		wantLimit bool
	}{
		{name: "valid", tool: "read_file", input: `{"path":"docs/notes.md"}`},
		{name: "unknown tool passes", tool: "delete_all_files", input: `{"anything":1}`},
		{name: "empty schema passes", tool: "no_schema", input: `not even JSON`},
		{name: "permissive schema", tool: "search", input: `{"query":"DROP TABLE users"}`},
		{name: "issue 9 finding 5a: the same input against run_sql", tool: "run_sql", input: `{"query":"DROP TABLE users"}`,
			wantErr: []string{`input for tool "run_sql" refused: it does not match the schema: at /query: does not match pattern '^SELECT '`}},
		{name: "missing property", tool: "read_file", input: `{"file":"x"}`, wantErr: []string{"missing properties: 'path'"}},
		{name: "not JSON", tool: "read_file", input: `{"path":`, wantErr: []string{"refused"}},
		{name: "two JSON values", tool: "read_file", input: `{"path":"a"} {"path":"b"}`, wantErr: []string{"more than one JSON value"}},
		{name: "empty input is checked as {}", tool: "read_file", input: ``, wantErr: []string{"missing properties: 'path'"}},
		{name: "empty input passes an open schema", tool: "search", input: " "},
		{name: "issue 9 finding 5b: keys differing in case", tool: "read_file", input: `{"path":"/safe/ok","PATH":"/etc/passwd"}`,
			wantErr: []string{`has the key "PATH" more than once`}},
		{name: "exact duplicate keys", tool: "search", input: `{"q":1,"q":2}`, wantErr: []string{`has the key "q" more than once`}},
		{name: "duplicates in a nested object", tool: "search", input: `{"a":{"b":1,"x":{},"B":2}}`, wantErr: []string{`"B" more than once`}},
		{name: "a duplicate hidden by an escape", tool: "search", input: `{"path":1,"p\u0061th":2}`, wantErr: []string{`"path" more than once`}},
		{name: "duplicates among many keys", tool: "search", input: manyKeys(40, "k07"), wantErr: []string{`"K07" more than once`}},
		{name: "many distinct keys", tool: "search", input: manyKeys(40, "")},
		{name: "equal keys in different objects", tool: "search", input: `{"a":{"k":1},"b":{"k":2},"k":3}`},
		{name: "too deep", tool: "search", input: nested(`{"a":`, `1`, `}`, 33), wantErr: []string{"nesting depth 33 exceeds the limit of 32"}, wantLimit: true},
		{name: "just deep enough", tool: "search", input: nested(`{"a":`, `1`, `}`, 32)},
		{name: "huge exponent", tool: "search", input: `{"n":1e401}`, wantErr: []string{"exponent exceeds the limit of 400"}, wantLimit: true},
		{name: "schema does not compile", tool: "broken", input: `{}`, wantErr: []string{"its schema cannot be used"}},
		{name: "schema over a limit", tool: "too_deep", input: `{}`, wantErr: []string{"its schema cannot be used", "WithMaxSchemaDepth"}, wantLimit: true},
		{name: "validation over its budget", tool: "doubling", input: `{}`, wantErr: []string{"validation budget of 10000"}, wantLimit: true},
		{name: "format asserted by a draft-07 schema", tool: "email", input: `{"to":"not an address"}`, wantErr: []string{"is not valid 'email'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := check(tt.tool, json.RawMessage(tt.input))
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, llm.ErrInputRejected)
			assert.False(t, errorsIsInternal(err), "an input check's refusal is not a reflector error")
			assert.True(t, strings.HasPrefix(err.Error(), "llm: input for tool "), err.Error())
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, tt.wantLimit, errorsIsLimit(err))
			assert.Equal(t, err.Error(), check(tt.tool, json.RawMessage(tt.input)).Error(), "the same answer every time")
		})
	}
}

func manyKeys(n int, dup string) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = `"k` + string(rune('0'+i/10)) + string(rune('0'+i%10)) + `":1`
	}
	if dup != "" {
		keys = append(keys, `"`+strings.ToUpper(dup)+`":2`)
	}
	return "{" + strings.Join(keys, ",") + "}"
}

func TestInputCheckOptions(t *testing.T) {
	t.Run("no lookup", func(t *testing.T) {
		assert.NoError(t, llm.NewInputCheck(nil)("read_file", json.RawMessage(`{}`)))
	})
	t.Run("validation off", func(t *testing.T) {
		check := llm.NewInputCheck(registry(checkTools), llm.WithSchemaValidation(false))
		assert.NoError(t, check("read_file", json.RawMessage(`{"PATH":1,"path":2}`)))
	})
	t.Run("limits are options", func(t *testing.T) {
		check := llm.NewInputCheck(registry(checkTools), llm.WithMaxInputDepth(2), llm.WithValidationBudget(500), nil)
		err := check("search", json.RawMessage(`{"a":{"b":{}}}`))
		require.ErrorIs(t, err, llm.ErrLimitExceeded)
		assert.Contains(t, err.Error(), "nesting depth 3 exceeds the limit of 2")
		err = check("doubling8", json.RawMessage(`{}`))
		require.ErrorIs(t, err, llm.ErrLimitExceeded)
		assert.Contains(t, err.Error(), "validation budget of 500")
		assert.NoError(t, llm.NewInputCheck(registry(checkTools))("doubling8", json.RawMessage(`{}`)), "within the default budget")
	})
	t.Run("a panicking lookup", func(t *testing.T) {
		check := llm.NewInputCheck(func(string) (reflection.ToolSchema, bool) { panic("registry broke") })
		err := check("read_file", json.RawMessage(`{}`))
		require.ErrorIs(t, err, llm.ErrInputRejected)
		assert.Contains(t, err.Error(), "registry broke")
	})
	t.Run("the redactor scrubs what the error quotes", func(t *testing.T) {
		const secret = "sk-live-0123456789"
		in := json.RawMessage(`{"to":"` + secret + `"}`)
		err := llm.NewInputCheck(registry(checkTools))("email", in)
		require.Error(t, err)
		assert.Contains(t, err.Error(), secret, "the validator quotes the rejected value")
		redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
		err = llm.NewInputCheck(registry(checkTools), llm.WithRedactor(redact))("email", in)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), secret)
		assert.Contains(t, err.Error(), "[REDACTED]")
	})
}

func TestInputCheckOfAReflectorSharesItsOptions(t *testing.T) {
	_, client := answering(t, goodFix)
	r := llm.New(client, llm.WithMaxInputDepth(1))
	check := r.InputCheck(registry(checkTools))
	assert.NoError(t, check("read_file", json.RawMessage(`{"path":"a"}`)))
	err := check("search", json.RawMessage(`{"a":{}}`))
	require.ErrorIs(t, err, llm.ErrLimitExceeded)
	_, err = r.Analyze(context.Background(), readFailure())
	require.NoError(t, err)
}

func TestInputCheckIsSafeForConcurrentUse(t *testing.T) {
	check := llm.NewInputCheck(registry(checkTools))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				assert.NoError(t, check("read_file", json.RawMessage(`{"path":"x"}`)))
			case 1:
				assert.Error(t, check("run_sql", json.RawMessage(`{"query":"DROP TABLE users"}`)))
			default:
				assert.ErrorIs(t, check("doubling", json.RawMessage(`{}`)), llm.ErrLimitExceeded)
			}
		})
	}
	wg.Wait()
}
