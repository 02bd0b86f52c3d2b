package reflectioneino

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/loopctl-go/reflection"
)

// emptyObjectSchema is the input schema of a tool whose ToolInfo has no
// parameters: eino calls such a tool with an empty JSON object.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// toolSchema builds a tool's reflection.ToolSchema from its eino ToolInfo:
// the name, the description and the JSON Schema of its parameters, marshalled
// once here so that no lookup marshals again.
func toolSchema(ctx context.Context, t tool.BaseTool) (reflection.ToolSchema, error) {
	info, err := t.Info(ctx)
	if err != nil {
		return reflection.ToolSchema{}, fmt.Errorf("reflectioneino: tool info: %w", err)
	}
	if info == nil {
		return reflection.ToolSchema{}, fmt.Errorf("reflectioneino: %T returned no tool info", t)
	}
	if info.Name == "" {
		return reflection.ToolSchema{}, fmt.Errorf("reflectioneino: %T has an empty tool name", t)
	}
	s := reflection.ToolSchema{Name: info.Name, Description: info.Desc, InputSchema: emptyObjectSchema}
	js, err := info.ToJSONSchema()
	if err != nil {
		return reflection.ToolSchema{}, fmt.Errorf("reflectioneino: tool %q: parameters to JSON Schema: %w", info.Name, err)
	}
	if js != nil {
		b, err := json.Marshal(js)
		if err != nil {
			return reflection.ToolSchema{}, fmt.Errorf("reflectioneino: tool %q: marshal JSON Schema: %w", info.Name, err)
		}
		s.InputSchema = b
	}
	return s, nil
}
