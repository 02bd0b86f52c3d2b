package reflection

import (
	"bytes"
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

type taskKey struct{}

// ContextWithTask returns a copy of ctx that carries the agent's task, so the
// Reflector sees it in Failure.Task without any change to the host's
// signatures.
func ContextWithTask(ctx context.Context, task string) context.Context {
	return context.WithValue(ctx, taskKey{}, task)
}

// TaskFromContext returns the task stored by ContextWithTask, or "" when none.
func TaskFromContext(ctx context.Context) string {
	task, _ := ctx.Value(taskKey{}).(string)
	return task
}

// sameCall reports whether a and b run the same tool with the same input,
// inputs compared as JSON values: key order and insignificant whitespace do
// not matter.
func sameCall(a, b ToolCall) bool {
	return a.Name == b.Name && sameJSON(a.Input, b.Input)
}

// sameJSON reports whether a and b are the same JSON value; two texts that
// are not both JSON are the same only byte for byte.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, okA := canonicalJSON(a)
	cb, okB := canonicalJSON(b)
	return okA && okB && bytes.Equal(ca, cb)
}

// canonicalJSON rewrites a JSON text in one form per value: no insignificant
// whitespace, object keys sorted, strings escaped one way. Numbers keep their
// text. ok is false when b is not one JSON value.
func canonicalJSON(b []byte) (out []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// scanObject reports whether b is exactly one valid JSON value that is an
// object (white space around it allowed: json.Valid's grammar, its nesting
// limit included), and whether an object anywhere in it holds two keys that
// are equal, or equal under Unicode case folding (escapes decoded).
//
// Parsers disagree on such objects: encoding/json matches keys to struct
// fields without regard to case and lets the last one win, others keep the
// first. An input a schema checked could then reach a tool with another
// value, so the Driver drops an InputFix that has them, and InputText
// refuses them. A small object is checked without allocating.
func scanObject(b []byte) (object, dup bool) {
	r := jsonscanScan(b, jsonscanLimits{})
	return r.Object, r.Object && r.Dup
}
