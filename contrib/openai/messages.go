package reflectionopenai

import (
	"github.com/loopctl-go/reflection"
	"github.com/openai/openai-go/v3"
)

// ToolMessage translates the result of a tool call into the tool message
// that answers it: res.Content as the content, res.ID as the tool_call_id.
//
// Chat completions have no error flag on a tool message, so a failed call
// (res.IsError) is told to the model by its content alone: the failure text
// the Driver keeps, which for AskUser ends with a note that a human decision
// is needed. RunCalls keeps IsError for a host that needs it.
func ToolMessage(res reflection.ToolResult) openai.ChatCompletionMessageParamUnion {
	return openai.ToolMessage(res.Content, res.ID)
}

// ToolMessages translates results with ToolMessage, in order.
func ToolMessages(results []reflection.ToolResult) []openai.ChatCompletionMessageParamUnion {
	msgs := make([]openai.ChatCompletionMessageParamUnion, len(results))
	for i, res := range results {
		msgs[i] = ToolMessage(res)
	}
	return msgs
}
