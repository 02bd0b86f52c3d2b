package reflectionadk

import (
	"encoding/json"
	"strings"

	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// declarer is a tool that declares itself to the model: every function tool
// of ADK (functiontool, agenttool, mcptoolset's tools) is one.
type declarer interface {
	Declaration() *genai.FunctionDeclaration
}

// Schema returns t's declaration as a reflection.ToolSchema: t's name (the
// one ADK runs its calls under), the declaration's description, and its
// parameters as a JSON Schema. A declaration's
// ParametersJsonSchema (what functiontool and mcptoolset set) is used as it
// is; a genai.Schema in Parameters is turned into the JSON Schema it
// stands for (its types in lower case, nullable as a "null" type). It
// returns false for a tool that declares no function (a model's built-in
// tool, such as Google Search).
func Schema(t tool.Tool) (reflection.ToolSchema, bool) {
	d, ok := t.(declarer)
	if !ok || t == nil {
		return reflection.ToolSchema{}, false
	}
	decl := d.Declaration()
	if decl == nil {
		return reflection.ToolSchema{}, false
	}
	s := reflection.ToolSchema{Name: t.Name(), Description: decl.Description}
	switch {
	case decl.ParametersJsonSchema != nil:
		if b, err := json.Marshal(decl.ParametersJsonSchema); err == nil && string(b) != "null" {
			s.InputSchema = b
		}
	case decl.Parameters != nil:
		if b, err := json.Marshal(jsonSchema(decl.Parameters)); err == nil {
			s.InputSchema = b
		}
	}
	return s, true
}

// Schemas returns the declarations of tools as a reflection.SchemaLookup,
// for reflection.WithSchemas: the Reflector sees each tool's parameters, and
// the Driver drops a ToolChange to a tool not among them. Each schema is
// built once, here; a later tool of the same name replaces an earlier one.
// NewPlugin and WrapTools need no such lookup (they build their own); this
// one is for a host that runs ADK tools through a Driver by other means.
func Schemas(tools ...tool.Tool) reflection.SchemaLookup {
	byName := make(map[string]reflection.ToolSchema, len(tools))
	for _, t := range tools {
		if s, ok := Schema(t); ok {
			byName[s.Name] = s
		}
	}
	return func(name string) (reflection.ToolSchema, bool) {
		s, ok := byName[name]
		return s, ok
	}
}

// jsonSchema returns the JSON Schema a genai.Schema stands for, as a value
// json.Marshal writes.
func jsonSchema(s *genai.Schema) map[string]any {
	out := map[string]any{}
	if s == nil {
		return out
	}
	if s.Type != "" && s.Type != genai.TypeUnspecified {
		t := strings.ToLower(string(s.Type))
		if s.Nullable != nil && *s.Nullable {
			out["type"] = []string{t, "null"}
		} else {
			out["type"] = t
		}
	}
	put := func(key string, v any, ok bool) {
		if ok {
			out[key] = v
		}
	}
	put("title", s.Title, s.Title != "")
	put("description", s.Description, s.Description != "")
	put("format", s.Format, s.Format != "")
	put("pattern", s.Pattern, s.Pattern != "")
	put("enum", s.Enum, len(s.Enum) > 0)
	put("default", s.Default, s.Default != nil)
	put("example", s.Example, s.Example != nil)
	put("required", s.Required, len(s.Required) > 0)
	putNumber(out, "minimum", s.Minimum)
	putNumber(out, "maximum", s.Maximum)
	putNumber(out, "minLength", s.MinLength)
	putNumber(out, "maxLength", s.MaxLength)
	putNumber(out, "minItems", s.MinItems)
	putNumber(out, "maxItems", s.MaxItems)
	putNumber(out, "minProperties", s.MinProperties)
	putNumber(out, "maxProperties", s.MaxProperties)
	if s.Items != nil {
		out["items"] = jsonSchema(s.Items)
	}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for k, v := range s.Properties {
			props[k] = jsonSchema(v)
		}
		out["properties"] = props
	}
	if len(s.AnyOf) > 0 {
		alts := make([]any, len(s.AnyOf))
		for i, v := range s.AnyOf {
			alts[i] = jsonSchema(v)
		}
		out["anyOf"] = alts
	}
	return out
}

// putNumber sets out[key] to *p when p is set.
func putNumber[T int64 | float64](out map[string]any, key string, p *T) {
	if p != nil {
		out[key] = *p
	}
}
