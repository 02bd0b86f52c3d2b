package reflectionopenai

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"github.com/openai/openai-go/v3"
)

// ErrUnsupportedToolCall matches, with errors.Is, the error ToolCall returns
// for a tool call that is neither a function call nor a custom tool call.
var ErrUnsupportedToolCall = errors.New("reflectionopenai: unsupported tool call type")

// ToolCall translates one tool call of an assistant message into the call a
// Driver runs. The ID is the model's tool-call id.
//
// A function call keeps its name, and its arguments become the input as the
// model wrote them (not checked: the Driver passes input that is not JSON to
// dispatch untouched); empty arguments, which the API sends for a function
// without parameters, become {}. A custom tool call's free text becomes the
// JSON object {"input": "<text>"} of reflection.TextInput, so that an
// InputFix can correct it like any other input; reflection.InputText reads
// the text back. Any other type of call returns an error that matches
// ErrUnsupportedToolCall.
func ToolCall(tc openai.ChatCompletionMessageToolCallUnion) (reflection.ToolCall, error) {
	switch tc.Type {
	case "function":
		args := []byte(tc.Function.Arguments)
		if len(bytes.TrimSpace(args)) == 0 {
			args = []byte("{}")
		}
		return reflection.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: args}, nil
	case "custom":
		return reflection.ToolCall{ID: tc.ID, Name: tc.Custom.Name, Input: reflection.TextInput(tc.Custom.Input)}, nil
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
