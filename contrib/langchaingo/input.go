package reflectionlangchaingo

import (
	"encoding/json"

	"github.com/loopctl-go/reflection"
)

// inputSchema is the JSON Schema of every wrapped tool's input: an object
// with one string, the text the tool takes.
var inputSchema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The text the tool takes."}},"required":["input"],"additionalProperties":false}`)

// InputSchema returns the JSON Schema of a wrapped tool's input, the same for
// every tool: the {"input": "<text>"} of reflection.TextInput and nothing
// else. The slice is the caller's.
func InputSchema() json.RawMessage {
	return append(json.RawMessage(nil), inputSchema...)
}

// CheckInput reports whether input is {"input": "<text>"}, the only input a
// wrapped tool takes, with reflection.InputText's error (it wraps
// reflection.ErrNotTextInput); tool is not consulted. It is
// reflection.InputText in the signature of reflection.WithInputCheck: given
// to a Driver whose tools are all wrappers, it drops an InputFix of another
// shape before it costs a call, and the retry runs the input as it was.
func CheckInput(tool string, input json.RawMessage) error {
	_, err := reflection.InputText(input)
	return err
}
