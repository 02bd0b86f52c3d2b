package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/loopctl-go/reflection"
	"github.com/openai/openai-go/v3"
)

// ErrUnsupportedToolCall matches, with errors.Is, the error ToolCall returns
// for a tool call that is neither a function call nor a custom tool call.
var ErrUnsupportedToolCall = errors.New("openai: unsupported tool call type")

// ToolCall translates one tool call of an assistant message into the call a
// Driver runs. The ID is the model's tool-call id.
//
// A function call keeps its name, and its arguments become the input as the
// model wrote them (not checked: the Driver passes input that is not JSON to
// dispatch untouched); empty arguments, which the API sends for a function
// without parameters, become {}. A custom tool call's free text becomes the
// JSON object {"input": "<text>"}, so that an InputFix can correct it like
// any other input; CustomInput reads the text back. Any other type of call
// returns an error that matches ErrUnsupportedToolCall.
func ToolCall(tc openai.ChatCompletionMessageToolCallUnion) (reflection.ToolCall, error) {
	switch tc.Type {
	case "function":
		args := []byte(tc.Function.Arguments)
		if len(bytes.TrimSpace(args)) == 0 {
			args = []byte("{}")
		}
		return reflection.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: args}, nil
	case "custom":
		return reflection.ToolCall{ID: tc.ID, Name: tc.Custom.Name, Input: customInputJSON(tc.Custom.Input)}, nil
	default:
		return reflection.ToolCall{ID: tc.ID}, fmt.Errorf("%w %q (tool call %q)", ErrUnsupportedToolCall, tc.Type, tc.ID)
	}
}

// ToolCalls translates every tool call of msg, in the model's order, with
// ToolCall. It fails on the first call ToolCall cannot translate; Runner.Run
// answers such a call with an error message instead, so a turn goes on.
func ToolCalls(msg openai.ChatCompletionMessage) ([]reflection.ToolCall, error) {
	calls := make([]reflection.ToolCall, 0, len(msg.ToolCalls))
	for _, tc := range msg.ToolCalls {
		call, err := ToolCall(tc)
		if err != nil {
			return nil, err
		}
		calls = append(calls, call)
	}
	return calls, nil
}

// customInput is how a custom tool call's free text travels as a JSON input.
type customInput struct {
	Input *string `json:"input"`
}

// customInputJSON wraps text as {"input": text}. A string always encodes
// (invalid UTF-8 becomes U+FFFD), so there is no error to return.
func customInputJSON(text string) json.RawMessage {
	b, _ := marshalReadable(customInput{Input: &text})
	return b
}

// CustomInput returns the free text of a custom tool call's input: the
// string under "input" in the JSON object {"input": "..."} that ToolCall
// built, or that an InputFix put in its place. Any other input (not a JSON
// object, no "input" key, a value that is not a string, or another key) is an
// error that says what is wrong; a dispatch that returns it as a failure lets
// the Reflector correct the input.
func CustomInput(input json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	var in customInput
	if err := dec.Decode(&in); err != nil {
		return "", fmt.Errorf(`openai: custom tool input must be a JSON object {"input": "<text>"}: %w`, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New(`openai: custom tool input must be one JSON object {"input": "<text>"}; it has data after the object`)
	}
	if in.Input == nil {
		return "", errors.New(`openai: custom tool input must be a JSON object {"input": "<text>"}; "input" is missing or null`)
	}
	return *in.Input, nil
}
