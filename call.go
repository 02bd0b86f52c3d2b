package reflection

import (
	"context"
	"encoding/json"
)

// MaxRecoveryAttempts is the hard ceiling on retries after the original
// call: a tool runs at most MaxRecoveryAttempts+1 = 6 times per call,
// whatever the strategy says.
const MaxRecoveryAttempts = 5

// ToolCall is one call of a tool, as the model asked for it.
type ToolCall struct {
	ID    string          // the model's tool-call id
	Name  string          // the tool to run
	Input json.RawMessage // the tool's arguments, normally a JSON object
}

// ToolResult is what a tool call produced, as the model will see it.
type ToolResult struct {
	ID      string // always the original ToolCall.ID, whatever corrections did
	Content string // the output, or the failure text when IsError is set
	IsError bool   // the call failed
}

// DispatchFunc runs one tool call: the host framework's own dispatch, with
// its registry, hooks and observers. The Driver calls it once per attempt.
// A returned error and a result with IsError both count as failures.
type DispatchFunc func(ctx context.Context, call ToolCall) (ToolResult, error)

// SchemaLookup returns the registered schema of a tool, and false for a tool
// the host does not know.
type SchemaLookup func(tool string) (ToolSchema, bool)
