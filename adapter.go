package reflection

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// What an adapter for a host framework shares with every other: which of
// Run's errors the framework sees, and how a tool that takes plain text
// carries it as a JSON input that an InputFix can correct.

// FrameworkError returns the error a host framework should see for a call
// that Run ended with err: err when ctx has ended (the caller has gone and
// the framework must stop too), nil otherwise. Every other end of a call
// (Skip, AskUser, Fail, a wait the deadline refused, the ceiling, a refused
// dispatch) leaves the latest failure text in Run's result, which the model
// reads so it can change its plan; a framework that aborts an agent on a
// tool error would lose exactly that. A host that wants Run's own error
// calls Run and keeps it.
func FrameworkError(ctx context.Context, err error) error {
	if err != nil && ctx != nil && ctx.Err() != nil {
		return err
	}
	return nil
}

// TextInput returns text as the JSON object {"input": text}: how a tool that
// takes plain text (a custom tool of OpenAI's API, a langchaingo tool)
// carries it as a ToolCall's input, so that a Reflector can correct it with
// an InputFix like any other input. <, > and & stay as they are: the text is
// for a model, not a web page. Invalid UTF-8 becomes U+FFFD.
func TextInput(text string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(textInput{Input: text}) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// textInput is the shape of TextInput's object.
type textInput struct {
	Input string `json:"input"`
}

// InputText returns the text of an input made by TextInput, or put in its
// place by an InputFix: the string under "input" in a JSON object that has
// that one key, spelt exactly so. Anything else (not a JSON object, a key
// repeated or differing in case, another key, a value that is not a
// string) is an error wrapping ErrNotTextInput that says what is wrong; a
// dispatch that returns it as a failure lets the Reflector correct the
// input.
func InputText(input json.RawMessage) (string, error) {
	switch object, dup := scanObject(input); {
	case !object:
		return "", fmt.Errorf("%w: it is not one JSON object", ErrNotTextInput)
	case dup:
		return "", fmt.Errorf("%w: a key repeats", ErrNotTextInput)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotTextInput, err)
	}
	raw, ok := fields["input"]
	if !ok || len(fields) != 1 {
		return "", fmt.Errorf(`%w: it must have the one key "input"`, ErrNotTextInput)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", fmt.Errorf(`%w: "input" is not a string`, ErrNotTextInput)
	}
	return text, nil
}
