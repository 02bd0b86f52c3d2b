package reflectionlangchaingo

import (
	"github.com/loopctl-go/reflection"
	"github.com/tmc/langchaingo/tools"
)

// Schema returns the schema of t as a wrapper presents it to a Reflector:
// t's name and description, and [InputSchema] as its input schema (shared:
// it must not be modified). A nil t gives the zero ToolSchema.
func Schema(t tools.Tool) reflection.ToolSchema {
	if t == nil {
		return reflection.ToolSchema{}
	}
	return reflection.ToolSchema{Name: t.Name(), Description: t.Description(), InputSchema: inputSchema}
}

// Schemas returns a reflection.SchemaLookup that knows the tools of ts by
// name, with Schema's schema for each, built once, here; it skips nil tools,
// and of two tools with one name keeps the last, as langchaingo's executor
// does. WrapTool gives each wrapper's Driver Schemas of its own tool alone, so
// the Reflector sees the {"input": "<text>"} schema and every ToolChange is
// dropped before it costs a call.
func Schemas(ts []tools.Tool) reflection.SchemaLookup {
	byName := make(map[string]reflection.ToolSchema, len(ts))
	for _, t := range ts {
		if t != nil {
			s := Schema(t)
			byName[s.Name] = s
		}
	}
	return func(name string) (reflection.ToolSchema, bool) {
		s, ok := byName[name]
		return s, ok
	}
}
