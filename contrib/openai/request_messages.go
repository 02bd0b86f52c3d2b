package reflectionopenai

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	goopenai "github.com/sashabaranov/go-openai"
)

// Optional fields of a go-openai message, by their JSON names, and the roles
// that can carry each. Content and its parts are checked separately.
var messageFieldRoles = map[string][]string{
	"name":              {goopenai.ChatMessageRoleSystem, goopenai.ChatMessageRoleDeveloper, goopenai.ChatMessageRoleUser, goopenai.ChatMessageRoleAssistant, goopenai.ChatMessageRoleFunction},
	"refusal":           {goopenai.ChatMessageRoleAssistant},
	"function_call":     {goopenai.ChatMessageRoleAssistant},
	"tool_calls":        {goopenai.ChatMessageRoleAssistant},
	"tool_call_id":      {goopenai.ChatMessageRoleTool},
	"reasoning_content": nil, // no role in openai-go carries it
}

// messageParam translates one go-openai message.
func messageParam(m goopenai.ChatCompletionMessage) (openai.ChatCompletionMessageParamUnion, error) {
	if err := checkMessageFields(m); err != nil {
		return openai.ChatCompletionMessageParamUnion{}, err
	}
	if m.Content != "" && len(m.MultiContent) > 0 {
		return openai.ChatCompletionMessageParamUnion{}, errors.New("both content and content parts are set")
	}
	switch m.Role {
	case goopenai.ChatMessageRoleSystem:
		text, parts, err := textContent(m)
		if err != nil {
			return openai.ChatCompletionMessageParamUnion{}, err
		}
		sys := openai.ChatCompletionSystemMessageParam{Name: optString(m.Name)}
		sys.Content.OfString, sys.Content.OfArrayOfContentParts = text, parts
		return openai.ChatCompletionMessageParamUnion{OfSystem: &sys}, nil
	case goopenai.ChatMessageRoleDeveloper:
		text, parts, err := textContent(m)
		if err != nil {
			return openai.ChatCompletionMessageParamUnion{}, err
		}
		dev := openai.ChatCompletionDeveloperMessageParam{Name: optString(m.Name)}
		dev.Content.OfString, dev.Content.OfArrayOfContentParts = text, parts
		return openai.ChatCompletionMessageParamUnion{OfDeveloper: &dev}, nil
	case goopenai.ChatMessageRoleUser:
		return userMessage(m)
	case goopenai.ChatMessageRoleAssistant:
		return assistantMessage(m)
	case goopenai.ChatMessageRoleTool:
		text, parts, err := textContent(m)
		if err != nil {
			return openai.ChatCompletionMessageParamUnion{}, err
		}
		tool := openai.ChatCompletionToolMessageParam{ToolCallID: m.ToolCallID}
		tool.Content.OfString, tool.Content.OfArrayOfContentParts = text, parts
		return openai.ChatCompletionMessageParamUnion{OfTool: &tool}, nil
	case goopenai.ChatMessageRoleFunction:
		if len(m.MultiContent) > 0 {
			return openai.ChatCompletionMessageParamUnion{}, errors.New("a function message has no content parts")
		}
		return openai.ChatCompletionMessageParamOfFunction(m.Content, m.Name), nil
	default:
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
	}
}

// checkMessageFields refuses a message that sets a field its role cannot
// carry.
func checkMessageFields(m goopenai.ChatCompletionMessage) error {
	set := map[string]bool{
		"name":              m.Name != "",
		"refusal":           m.Refusal != "",
		"function_call":     m.FunctionCall != nil,
		"tool_calls":        len(m.ToolCalls) > 0,
		"tool_call_id":      m.ToolCallID != "",
		"reasoning_content": m.ReasoningContent != "",
	}
	var bad []string
	for field, on := range set {
		if on && !slices.Contains(messageFieldRoles[field], m.Role) {
			bad = append(bad, field)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("sets %s, which this client cannot send in a %s message", strings.Join(bad, ", "), m.Role)
}

// textContent is a message's content when only text may appear: the string,
// or the text parts.
func textContent(m goopenai.ChatCompletionMessage) (param.Opt[string], []openai.ChatCompletionContentPartTextParam, error) {
	if len(m.MultiContent) == 0 {
		return param.NewOpt(m.Content), nil, nil
	}
	parts := make([]openai.ChatCompletionContentPartTextParam, len(m.MultiContent))
	for i, part := range m.MultiContent {
		if part.Type != goopenai.ChatMessagePartTypeText {
			return param.Opt[string]{}, nil, fmt.Errorf("content part %d has type %q; a %s message takes text parts only", i, part.Type, m.Role)
		}
		parts[i] = openai.ChatCompletionContentPartTextParam{Text: part.Text}
	}
	return param.Opt[string]{}, parts, nil
}

// userMessage translates a user message, whose parts may be text or images.
func userMessage(m goopenai.ChatCompletionMessage) (openai.ChatCompletionMessageParamUnion, error) {
	user := openai.ChatCompletionUserMessageParam{Name: optString(m.Name)}
	if len(m.MultiContent) == 0 {
		user.Content.OfString = param.NewOpt(m.Content)
		return openai.ChatCompletionMessageParamUnion{OfUser: &user}, nil
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, len(m.MultiContent))
	for i, part := range m.MultiContent {
		switch part.Type {
		case goopenai.ChatMessagePartTypeText:
			parts[i] = openai.TextContentPart(part.Text)
		case goopenai.ChatMessagePartTypeImageURL:
			if part.ImageURL == nil {
				return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("content part %d is an image without an image_url", i)
			}
			parts[i] = openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
				URL:    part.ImageURL.URL,
				Detail: string(part.ImageURL.Detail),
			})
		default:
			return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("content part %d has type %q", i, part.Type)
		}
	}
	user.Content.OfArrayOfContentParts = parts
	return openai.ChatCompletionMessageParamUnion{OfUser: &user}, nil
}

// assistantMessage translates an assistant message: its content (left out
// when empty, as go-openai does), refusal, name and calls.
func assistantMessage(m goopenai.ChatCompletionMessage) (openai.ChatCompletionMessageParamUnion, error) {
	asst := openai.ChatCompletionAssistantMessageParam{Name: optString(m.Name), Refusal: optString(m.Refusal)}
	switch {
	case len(m.MultiContent) > 0:
		for i, part := range m.MultiContent {
			if part.Type != goopenai.ChatMessagePartTypeText {
				return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("content part %d has type %q; an assistant message takes text parts only", i, part.Type)
			}
			asst.Content.OfArrayOfContentParts = append(asst.Content.OfArrayOfContentParts,
				openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{OfText: &openai.ChatCompletionContentPartTextParam{Text: part.Text}})
		}
	case m.Content != "":
		asst.Content.OfString = param.NewOpt(m.Content)
	}
	if fc := m.FunctionCall; fc != nil {
		asst.FunctionCall = openai.ChatCompletionAssistantMessageParamFunctionCall{Name: fc.Name, Arguments: fc.Arguments}
	}
	for i, tc := range m.ToolCalls {
		switch tc.Type {
		case goopenai.ToolTypeFunction, "":
			asst.ToolCalls = append(asst.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
				},
			})
		case goopenai.ToolTypeCustom: // as fromCompletion writes it: the free text in Function.Arguments
			asst.ToolCalls = append(asst.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{
					ID:     tc.ID,
					Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: tc.Function.Name, Input: tc.Function.Arguments},
				},
			})
		default:
			return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool call %d has type %q", i, tc.Type)
		}
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &asst}, nil
}

// optString is s as an optional value, omitted when empty.
func optString(s string) param.Opt[string] {
	if s == "" {
		return param.Opt[string]{}
	}
	return param.NewOpt(s)
}
