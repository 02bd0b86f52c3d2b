package reflectionopenai_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFileTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "read_file",
		Description: openai.String("Read a file of the project"),
		Parameters: shared.FunctionParameters{
			"type":                 "object",
			"properties":           map[string]any{"path": map[string]any{"type": "string", "minLength": 1}},
			"required":             []string{"path"},
			"additionalProperties": false,
		},
	})
}

func sqlTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
		Name:        "run_sql",
		Description: openai.String("Run one read-only SQL query"),
	})
}

func TestSchemas(t *testing.T) {
	grammar := openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
		Name: "date",
		Format: openai.ChatCompletionCustomToolCustomFormatUnionParam{OfGrammar: &openai.ChatCompletionCustomToolCustomFormatGrammarParam{
			Grammar: openai.ChatCompletionCustomToolCustomFormatGrammarGrammarParam{Definition: `^\d{4}-\d{2}-\d{2}$`, Syntax: "regex"},
		}},
	})
	noParams := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "now"})
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool(), grammar, noParams})
	require.NoError(t, err)

	tests := []struct {
		tool, description, schema string
	}{
		{"read_file", "Read a file of the project",
			`{"type":"object","properties":{"path":{"type":"string","minLength":1}},"required":["path"],"additionalProperties":false}`},
		{"run_sql", "Run one read-only SQL query",
			`{"type":"object","properties":{"input":{"type":"string","description":"The free-text input of the tool."}},"required":["input"],"additionalProperties":false}`},
		{"date", "",
			`{"type":"object","properties":{"input":{"type":"string","description":"The free-text input of the tool. It must match this regex grammar:\n^\\d{4}-\\d{2}-\\d{2}$"}},"required":["input"],"additionalProperties":false}`},
		{"now", "", `{"type":"object","properties":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got, ok := lookup(tt.tool)
			require.True(t, ok)
			assert.Equal(t, tt.tool, got.Name)
			assert.Equal(t, tt.description, got.Description)
			assert.JSONEq(t, tt.schema, string(got.InputSchema))
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		_, ok := lookup("write_file")
		assert.False(t, ok)
	})
}

func TestSchemasKeepsGrammarTextReadable(t *testing.T) {
	lark := openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
		Name: "math",
		Format: openai.ChatCompletionCustomToolCustomFormatUnionParam{OfGrammar: &openai.ChatCompletionCustomToolCustomFormatGrammarParam{
			Grammar: openai.ChatCompletionCustomToolCustomFormatGrammarGrammarParam{Definition: `start: expr "<" expr`, Syntax: "lark"},
		}},
	})
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{lark})
	require.NoError(t, err)
	got, _ := lookup("math")
	assert.Contains(t, string(got.InputSchema), `lark grammar:\nstart: expr \"<\" expr`, "no \\u003c in what the model reads")
}

// countingSchema is a parameter value that counts how often it is marshalled.
type countingSchema struct{ n *atomic.Int32 }

func (c countingSchema) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`{"type":"string"}`), nil
}

func TestSchemasMarshalsOnceNotPerLookup(t *testing.T) {
	var n atomic.Int32
	tool := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:       "search",
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"q": countingSchema{&n}}},
	})
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{tool})
	require.NoError(t, err)
	require.EqualValues(t, 1, n.Load())
	for range 100 {
		got, ok := lookup("search")
		require.True(t, ok)
		require.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}}}`, string(got.InputSchema))
	}
	assert.EqualValues(t, 1, n.Load(), "lookups must not marshal again")
}

// failingSchema is a parameter value that cannot be marshalled.
type failingSchema struct{}

func (failingSchema) MarshalJSON() ([]byte, error) { return nil, assert.AnError }

func TestSchemasRefusesBadDefinitions(t *testing.T) {
	tests := []struct {
		name    string
		tools   []openai.ChatCompletionToolUnionParam
		wantErr string
	}{
		{"two tools with one name", []openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool(), readFileTool()}, `tool 2: two tools are named "read_file"`},
		{"a function and a custom tool with one name", []openai.ChatCompletionToolUnionParam{
			sqlTool(), openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "run_sql"}),
		}, `tool 1: two tools are named "run_sql"`},
		{"a function without a name", []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{})}, "tool 0: a function tool has no name"},
		{"a custom tool without a name", []openai.ChatCompletionToolUnionParam{openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{})}, "tool 0: a custom tool has no name"},
		{"an empty definition", []openai.ChatCompletionToolUnionParam{{}}, "tool 0: neither a function nor a custom tool"},
		{"both kinds in one definition", []openai.ChatCompletionToolUnionParam{{
			OfFunction: readFileTool().OfFunction, OfCustom: sqlTool().OfCustom,
		}}, "tool 0: both a function and a custom tool are set"},
		{"parameters that do not marshal", []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "broken", Parameters: shared.FunctionParameters{"type": failingSchema{}},
		})}, `tool 0: function "broken": parameters do not marshal to JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup, err := reflectionopenai.Schemas(tt.tools)
			require.Error(t, err)
			assert.Nil(t, lookup)
			assert.Contains(t, err.Error(), "reflectionopenai: "+tt.wantErr)
		})
	}
}

func TestSchemasOfNoTools(t *testing.T) {
	lookup, err := reflectionopenai.Schemas(nil)
	require.NoError(t, err)
	_, ok := lookup("anything")
	assert.False(t, ok)
}

func TestSchemasIsAJSONSchemaForEveryTool(t *testing.T) {
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool()})
	require.NoError(t, err)
	for _, name := range []string{"read_file", "run_sql"} {
		s, _ := lookup(name)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(s.InputSchema, &doc), name)
		assert.Equal(t, "object", doc["type"], name)
	}
}
