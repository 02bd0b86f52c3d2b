package reflectionopenai

import (
	"github.com/openai/openai-go/v3"
	goopenai "github.com/sashabaranov/go-openai"
)

// fromCompletion translates openai-go's answer into go-openai's.
func fromCompletion(c *openai.ChatCompletion) goopenai.ChatCompletionResponse {
	resp := goopenai.ChatCompletionResponse{
		ID:                c.ID,
		Object:            string(c.Object),
		Created:           c.Created,
		Model:             c.Model,
		SystemFingerprint: c.SystemFingerprint,
		ServiceTier:       goopenai.ServiceTier(c.ServiceTier),
		Usage:             fromUsage(c.Usage),
	}
	if c.Choices != nil {
		resp.Choices = make([]goopenai.ChatCompletionChoice, len(c.Choices))
	}
	for i, ch := range c.Choices {
		resp.Choices[i] = goopenai.ChatCompletionChoice{
			Index:        int(ch.Index),
			Message:      fromMessage(ch.Message),
			FinishReason: goopenai.FinishReason(ch.FinishReason),
		}
	}
	return resp
}

// fromMessage translates the message of a choice.
func fromMessage(m openai.ChatCompletionMessage) goopenai.ChatCompletionMessage {
	role := string(m.Role)
	if role == "" {
		role = goopenai.ChatMessageRoleAssistant
	}
	msg := goopenai.ChatCompletionMessage{Role: role, Content: m.Content, Refusal: m.Refusal}
	if m.FunctionCall.Name != "" || m.FunctionCall.Arguments != "" {
		msg.FunctionCall = &goopenai.FunctionCall{Name: m.FunctionCall.Name, Arguments: m.FunctionCall.Arguments}
	}
	for _, tc := range m.ToolCalls {
		call := goopenai.ToolCall{ID: tc.ID, Type: goopenai.ToolType(tc.Type)}
		switch tc.Type {
		case "custom":
			call.Function = goopenai.FunctionCall{Name: tc.Custom.Name, Arguments: tc.Custom.Input}
		default:
			call.Function = goopenai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return msg
}

// fromUsage translates token usage; a breakdown the server sent (or that
// holds a count) becomes a non-nil details pointer.
func fromUsage(u openai.CompletionUsage) goopenai.Usage {
	usage := goopenai.Usage{
		PromptTokens:     int(u.PromptTokens),
		CompletionTokens: int(u.CompletionTokens),
		TotalTokens:      int(u.TotalTokens),
	}
	if p := u.PromptTokensDetails; u.JSON.PromptTokensDetails.Valid() || p.AudioTokens != 0 || p.CachedTokens != 0 {
		usage.PromptTokensDetails = &goopenai.PromptTokensDetails{AudioTokens: int(p.AudioTokens), CachedTokens: int(p.CachedTokens)}
	}
	if c := u.CompletionTokensDetails; u.JSON.CompletionTokensDetails.Valid() ||
		c.AudioTokens != 0 || c.ReasoningTokens != 0 || c.AcceptedPredictionTokens != 0 || c.RejectedPredictionTokens != 0 {
		usage.CompletionTokensDetails = &goopenai.CompletionTokensDetails{
			AudioTokens:              int(c.AudioTokens),
			ReasoningTokens:          int(c.ReasoningTokens),
			AcceptedPredictionTokens: int(c.AcceptedPredictionTokens),
			RejectedPredictionTokens: int(c.RejectedPredictionTokens),
		}
	}
	return usage
}
