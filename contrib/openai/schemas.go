package reflectionopenai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"github.com/openai/openai-go/v3"
)

// emptyParameters is the input schema of a function declared without
// parameters: the API reads that as an empty parameter list.
const emptyParameters = `{"type":"object","properties":{}}`

// Schemas builds, once, a SchemaLookup from the tool definitions of a
// request (ChatCompletionNewParams.Tools), for reflection.WithSchemas. Every
// schema is marshalled here, not on each lookup, and the lookup is safe for
// concurrent use; later changes to tools do not reach it.
//
// A function tool's schema is its parameters (an empty object schema when it
// has none). A custom tool takes free text, which travels as {"input":
// "<text>"} (see ToolCall), so its schema is generated: an object with one
// required string property "input", whose description carries the tool's
// grammar when it has one (a grammar is not a JSON Schema, so the Reflector
// reads it but a validator does not check it).
//
// It returns an error for a tool that is neither a function nor a custom
// tool, a tool without a name, two tools with the same name, and parameters
// that do not marshal to a JSON object.
func Schemas(tools []openai.ChatCompletionToolUnionParam) (reflection.SchemaLookup, error) {
	byName := make(map[string]reflection.ToolSchema, len(tools))
	for i, tool := range tools {
		schema, err := toolSchema(tool)
		if err != nil {
			return nil, fmt.Errorf("reflectionopenai: tool %d: %w", i, err)
		}
		if _, dup := byName[schema.Name]; dup {
			return nil, fmt.Errorf("reflectionopenai: tool %d: two tools are named %q", i, schema.Name)
		}
		byName[schema.Name] = schema
	}
	return func(name string) (reflection.ToolSchema, bool) {
		schema, ok := byName[name]
		return schema, ok
	}, nil
}

// toolSchema is the schema of one tool definition.
func toolSchema(tool openai.ChatCompletionToolUnionParam) (reflection.ToolSchema, error) {
	switch {
	case tool.OfFunction != nil && tool.OfCustom != nil:
		return reflection.ToolSchema{}, errors.New("both a function and a custom tool are set")
	case tool.OfFunction != nil:
		fn := tool.OfFunction.Function
		if fn.Name == "" {
			return reflection.ToolSchema{}, errors.New("a function tool has no name")
		}
		params, err := parametersJSON(fn.Parameters)
		if err != nil {
			return reflection.ToolSchema{}, fmt.Errorf("function %q: %w", fn.Name, err)
		}
		return reflection.ToolSchema{Name: fn.Name, Description: fn.Description.Value, InputSchema: params}, nil
	case tool.OfCustom != nil:
		c := tool.OfCustom.Custom
		if c.Name == "" {
			return reflection.ToolSchema{}, errors.New("a custom tool has no name")
		}
		schema, err := customSchema(c.Format)
		if err != nil {
			return reflection.ToolSchema{}, fmt.Errorf("custom tool %q: %w", c.Name, err)
		}
		return reflection.ToolSchema{Name: c.Name, Description: c.Description.Value, InputSchema: schema}, nil
	default:
		return reflection.ToolSchema{}, errors.New("neither a function nor a custom tool")
	}
}

// parametersJSON marshals a function's parameters, which must be a JSON
// Schema object.
func parametersJSON(params map[string]any) (json.RawMessage, error) {
	if params == nil {
		return json.RawMessage(emptyParameters), nil
	}
	b, err := marshalReadable(params)
	if err != nil {
		return nil, fmt.Errorf("parameters do not marshal to JSON: %w", err)
	}
	return b, nil
}

// customSchema is the generated input schema of a custom tool.
func customSchema(format openai.ChatCompletionCustomToolCustomFormatUnionParam) (json.RawMessage, error) {
	desc := "The free-text input of the tool."
	if g := format.OfGrammar; g != nil {
		syntax := g.Grammar.Syntax
		if syntax == "" {
			syntax = "the tool's"
		}
		desc = fmt.Sprintf("The free-text input of the tool. It must match this %s grammar:\n%s", syntax, g.Grammar.Definition)
	}
	type property struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	schema := struct {
		Type                 string              `json:"type"`
		Properties           map[string]property `json:"properties"`
		Required             []string            `json:"required"`
		AdditionalProperties bool                `json:"additionalProperties"`
	}{
		Type:       "object",
		Properties: map[string]property{"input": {Type: "string", Description: desc}},
		Required:   []string{"input"},
	}
	return marshalReadable(schema)
}
