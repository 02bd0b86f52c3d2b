package langchaingo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// inputSchema is the JSON Schema of every wrapped tool's input: an object
// with one string, the text the tool takes.
var inputSchema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The text the tool takes."}},"required":["input"],"additionalProperties":false}`)

// InputSchema returns the JSON Schema of a wrapped tool's input, the same for
// every tool: {"input": "<text>"} and nothing else. The slice is the
// caller's.
func InputSchema() json.RawMessage {
	return append(json.RawMessage(nil), inputSchema...)
}

// textInput is the JSON object {"input": text}. HTML characters stay as
// they are: the text is for a model and a Reflector, not a web page.
type textInput struct {
	Input *string `json:"input"`
}

// TextInput returns text as the JSON object a wrapped tool's call carries:
// {"input": text}. A Reflector writes an InputFix for a wrapped tool with it.
func TextInput(text string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(textInput{Input: &text}) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ErrInputShape is wrapped by InputText's error when an input is not
// {"input": "<text>"}.
var ErrInputShape = errors.New(`langchaingo: tool input must be {"input": "<text>"}`)

// InputText returns the text of a wrapped tool's input {"input": "<text>"}.
// Anything else (not a JSON object, no "input" key, an input that is not a
// string, another key beside it) is an error wrapping ErrInputShape.
func InputText(input json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	var in textInput
	if err := dec.Decode(&in); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInputShape, err)
	}
	if in.Input == nil {
		return "", fmt.Errorf(`%w: no "input" string`, ErrInputShape)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("%w: data after the object", ErrInputShape)
	}
	return *in.Input, nil
}

// CheckInput reports whether input is {"input": "<text>"}, the only input a
// wrapped tool takes, with InputText's error; tool is not consulted. It has
// the signature of reflection.WithInputCheck: given to a Driver whose tools
// are all wrappers, it drops an InputFix of another shape before it costs a
// call, and the retry runs the input as it was.
func CheckInput(tool string, input json.RawMessage) error {
	_, err := InputText(input)
	return err
}
