package reflectionopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/loopctl-go/reflection/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goOpenAIClient is a real go-openai client pointed at s, the reference for
// what a request and an answer look like in go-openai's hands.
func goOpenAIClient(s *chatServer) *goopenai.Client {
	cfg := goopenai.DefaultConfig("test-key")
	cfg.BaseURL = s.srv.URL + "/v1"
	cfg.HTTPClient = s.srv.Client()
	return goopenai.NewClientWithConfig(cfg)
}

// fullRequest sets every field the Client translates.
func fullRequest() goopenai.ChatCompletionRequest {
	seed := 7
	return goopenai.ChatCompletionRequest{
		Model: "gpt-4o-mini",
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: "You analyse failures.", Name: "analyst"},
			{Role: goopenai.ChatMessageRoleDeveloper, MultiContent: []goopenai.ChatMessagePart{{Type: goopenai.ChatMessagePartTypeText, Text: "Be brief."}}},
			{Role: goopenai.ChatMessageRoleUser, Content: "Tool: read_file\nError: boom", Name: "ada"},
			{Role: goopenai.ChatMessageRoleUser, MultiContent: []goopenai.ChatMessagePart{
				{Type: goopenai.ChatMessagePartTypeText, Text: "and this screenshot"},
				{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: "https://example.com/s.png", Detail: goopenai.ImageURLDetailLow}},
			}},
			{Role: goopenai.ChatMessageRoleAssistant, Content: "Looking.", ToolCalls: []goopenai.ToolCall{
				{ID: "call_1", Type: goopenai.ToolTypeFunction, Function: goopenai.FunctionCall{Name: "read_file", Arguments: `{"path":"a"}`}},
			}},
			{Role: goopenai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "no such file"},
			{Role: goopenai.ChatMessageRoleAssistant, Refusal: "I cannot help with that."},
			{Role: goopenai.ChatMessageRoleAssistant, FunctionCall: &goopenai.FunctionCall{Name: "legacy", Arguments: `{}`}},
			{Role: goopenai.ChatMessageRoleFunction, Name: "legacy", Content: "legacy result"},
		},
		MaxTokens:           300,
		MaxCompletionTokens: 512,
		Temperature:         0.2,
		TopP:                0.9,
		N:                   1,
		Stop:                []string{"\n\n"},
		PresencePenalty:     0.5,
		FrequencyPenalty:    -0.25,
		Seed:                &seed,
		LogitBias:           map[string]int{"1639": 6},
		User:                "user-1",
		SafetyIdentifier:    "hash-1",
		Store:               true,
		Metadata:            map[string]string{"run": "42"},
		ReasoningEffort:     "low",
		ServiceTier:         goopenai.ServiceTierFlex,
		Verbosity:           "low",
		ResponseFormat: &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name:        llm.SchemaName,
				Description: "a failure analysis",
				Schema:      json.RawMessage(llm.ResponseSchema()),
				Strict:      true,
			},
		},
	}
}

func TestClientSendsWhatGoOpenAIWouldSend(t *testing.T) {
	formats := map[string]*goopenai.ChatCompletionResponseFormat{
		"json_schema": fullRequest().ResponseFormat,
		"json_object": {Type: goopenai.ChatCompletionResponseFormatTypeJSONObject},
		"text":        {Type: goopenai.ChatCompletionResponseFormatTypeText},
		"none":        nil,
	}
	for name, format := range formats {
		t.Run(name, func(t *testing.T) {
			srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
			req := fullRequest()
			req.ResponseFormat = format

			_, err := goOpenAIClient(srv).CreateChatCompletion(context.Background(), req)
			require.NoError(t, err)
			_, err = reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(), req)
			require.NoError(t, err)

			reqs := srv.requests()
			require.Len(t, reqs, 2)
			want, got := reqs[0], reqs[1]
			assert.Equal(t, false, want["stream"], "go-openai always sends stream:false")
			delete(want, "stream")
			assert.Equal(t, want, got)
		})
	}
}

func TestClientRequestOnTheWire(t *testing.T) {
	// What the llm Reflector sends, spelled out: the schema arrives intact
	// and the temperature is the decimal go-openai's caller wrote.
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
	req := fullRequest()
	_, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	body := srv.last()
	assert.Equal(t, "gpt-4o-mini", body["model"])
	assert.Equal(t, 0.2, body["temperature"])
	assert.EqualValues(t, 512, body["max_completion_tokens"])
	var schema any
	require.NoError(t, json.Unmarshal(llm.ResponseSchema(), &schema))
	assert.Equal(t, map[string]any{
		"type": "json_schema",
		"json_schema": map[string]any{
			"name": "failure_analysis", "description": "a failure analysis", "strict": true, "schema": schema,
		},
	}, body["response_format"])
	msgs, _ := body["messages"].([]any)
	require.Len(t, msgs, len(req.Messages))
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "no such file"}, msgs[5])
}

func TestClientAppliesItsRequestOptions(t *testing.T) {
	var header string
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
	mw := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		header = r.Header.Get("X-Caller")
		return next(r)
	})
	_, err := reflectionopenai.NewClient(client, option.WithHeader("X-Caller", "reflector"), mw).CreateChatCompletion(context.Background(),
		goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "reflector", header)
	assert.Len(t, srv.requests(), 1)
}

func TestClientAnswerMatchesGoOpenAIs(t *testing.T) {
	answers := map[string]string{
		"text":                     textAnswer(`{"is_recoverable":false}`),
		"refusal":                  completionJSON(map[string]any{"role": "assistant", "content": nil, "refusal": "I can't help with that."}, "stop"),
		"cut at the token limit":   completionJSON(map[string]any{"role": "assistant", "content": `{"is_rec`, "refusal": nil}, "length"),
		"function tool calls":      toolCallsAnswer(functionCall("call_1", "read_file", `{"path":"a"}`), functionCall("call_2", "list", ``)),
		"deprecated function call": completionJSON(map[string]any{"role": "assistant", "content": nil, "function_call": map[string]any{"name": "legacy", "arguments": "{}"}}, "function_call"),
		"no usage details":         `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		"no choices":               `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`,
		"two choices":              `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"stop"},{"index":1,"message":{"role":"assistant","content":"b"},"finish_reason":"content_filter"}]}`,
	}
	for name, body := range answers {
		t.Run(name, func(t *testing.T) {
			srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, body })
			req := goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
			want, err := goOpenAIClient(srv).CreateChatCompletion(context.Background(), req)
			require.NoError(t, err)
			got, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(), req)
			require.NoError(t, err)

			assert.Equal(t, "req_test", got.Header().Get("X-Request-Id"), "the HTTP header is kept")
			want.SetHeader(nil)
			got.SetHeader(nil)
			assert.Equal(t, want, got)
		})
	}
}

func TestClientAnswerInDetail(t *testing.T) {
	_, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("hello") })
	got, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(),
		goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	require.NoError(t, err)
	require.Len(t, got.Choices, 1)
	assert.Equal(t, goopenai.ChatCompletionMessage{Role: "assistant", Content: "hello"}, got.Choices[0].Message)
	assert.Equal(t, goopenai.FinishReasonStop, got.Choices[0].FinishReason)
	assert.Equal(t, goopenai.Usage{
		PromptTokens: 200, CompletionTokens: 50, TotalTokens: 250,
		PromptTokensDetails:     &goopenai.PromptTokensDetails{CachedTokens: 128},
		CompletionTokensDetails: &goopenai.CompletionTokensDetails{ReasoningTokens: 16},
	}, got.Usage)
	assert.Equal(t, "chatcmpl-test", got.ID)
	assert.Equal(t, "chat.completion", got.Object)
	assert.EqualValues(t, 1700000000, got.Created)
	assert.Equal(t, "gpt-4o-mini-2024-07-18", got.Model)
	assert.Equal(t, "fp_test", got.SystemFingerprint)
	assert.Equal(t, goopenai.ServiceTierDefault, got.ServiceTier)
}

func TestClientCustomToolCallInTheAnswer(t *testing.T) {
	_, client := newChatServer(t, func(int, map[string]any) (int, string) {
		return http.StatusOK, toolCallsAnswer(customCall("call_c", "run_sql", "SELECT 1"))
	})
	got, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(),
		goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, []goopenai.ToolCall{{ID: "call_c", Type: goopenai.ToolTypeCustom, Function: goopenai.FunctionCall{Name: "run_sql", Arguments: "SELECT 1"}}},
		got.Choices[0].Message.ToolCalls)

	// Sent back in the conversation, it is a custom tool call again.
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
	_, err = reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(), goopenai.ChatCompletionRequest{
		Model:    "gpt-4o-mini",
		Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}, got.Choices[0].Message},
	})
	require.NoError(t, err)
	msgs, _ := srv.last()["messages"].([]any)
	require.Len(t, msgs, 2)
	assert.Equal(t, map[string]any{
		"role":       "assistant",
		"tool_calls": []any{map[string]any{"id": "call_c", "type": "custom", "custom": map[string]any{"name": "run_sql", "input": "SELECT 1"}}},
	}, msgs[1])
}

func TestClientKeepsTheOpenAIError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
	}{
		{"bad request", http.StatusBadRequest, "invalid_value"},
		{"rate limited", http.StatusTooManyRequests, "rate_limit_exceeded"},
		{"server error", http.StatusServiceUnavailable, "overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := newChatServer(t, func(int, map[string]any) (int, string) {
				return tt.status, apiError("it went wrong", "invalid_request_error", tt.code)
			})
			_, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(),
				goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
			require.Error(t, err)
			var apiErr *openai.Error
			require.True(t, errors.As(err, &apiErr), "errors.As finds *openai.Error in %v", err)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.code, apiErr.Code)
			assert.Equal(t, "it went wrong", apiErr.Message)
			assert.Contains(t, err.Error(), "reflectionopenai: chat completion: ")
		})
	}
}

func TestClientTransportError(t *testing.T) {
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
	srv.srv.Close()
	_, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(),
		goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	require.Error(t, err)
	var apiErr *openai.Error
	assert.False(t, errors.As(err, &apiErr))
	assert.Contains(t, err.Error(), "reflectionopenai: chat completion: ")
}

func TestClientHonoursCancel(t *testing.T) {
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reflectionopenai.NewClient(client).CreateChatCompletion(ctx,
		goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, srv.requests())
}

func TestClientRefusesWhatItCannotTranslate(t *testing.T) {
	user := []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}
	tests := []struct {
		name    string
		req     goopenai.ChatCompletionRequest
		wantErr string
	}{
		{"streaming", goopenai.ChatCompletionRequest{Model: "m", Messages: user, Stream: true, StreamOptions: &goopenai.StreamOptions{IncludeUsage: true}},
			"reflectionopenai: request sets stream, stream_options, which this client does not translate"},
		{"tools", goopenai.ChatCompletionRequest{Model: "m", Messages: user, Tools: []goopenai.Tool{{Type: goopenai.ToolTypeFunction}}, ToolChoice: "auto", ParallelToolCalls: false},
			"reflectionopenai: request sets tools, tool_choice, parallel_tool_calls"},
		{"functions", goopenai.ChatCompletionRequest{Model: "m", Messages: user, Functions: []goopenai.FunctionDefinition{{Name: "f"}}, FunctionCall: "auto"},
			"reflectionopenai: request sets functions, function_call"},
		{"log probabilities", goopenai.ChatCompletionRequest{Model: "m", Messages: user, LogProbs: true, TopLogProbs: 2},
			"reflectionopenai: request sets logprobs, top_logprobs"},
		{"prediction and extensions", goopenai.ChatCompletionRequest{Model: "m", Messages: user, Prediction: &goopenai.Prediction{Type: "content"},
			ChatTemplateKwargs: map[string]any{"enable_thinking": false}, ChatCompletionRequestExtensions: goopenai.ChatCompletionRequestExtensions{GuidedChoice: []string{"a"}}},
			"reflectionopenai: request sets prediction, chat_template_kwargs, guided_choice"},
		{"unknown role", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "narrator", Content: "x"}}},
			`reflectionopenai: message 0 (narrator): unknown role "narrator"`},
		{"a tool call id on a user message", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x", ToolCallID: "c"}}},
			"reflectionopenai: message 0 (user): sets tool_call_id, which this client cannot send in a user message"},
		{"reasoning content", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "assistant", Content: "x", ReasoningContent: "hmm"}}},
			"reflectionopenai: message 0 (assistant): sets reasoning_content"},
		{"a name and tool calls on a tool message", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "tool", Content: "x", Name: "n", ToolCalls: []goopenai.ToolCall{{ID: "c"}}}}},
			"reflectionopenai: message 0 (tool): sets name, tool_calls, which this client cannot send in a tool message"},
		{"content and parts", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x", MultiContent: []goopenai.ChatMessagePart{{Type: "text", Text: "y"}}}}},
			"reflectionopenai: message 0 (user): both content and content parts are set"},
		{"an image in a system message", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "system", MultiContent: []goopenai.ChatMessagePart{{Type: "image_url", ImageURL: &goopenai.ChatMessageImageURL{URL: "u"}}}}}},
			`reflectionopenai: message 0 (system): content part 0 has type "image_url"; a system message takes text parts only`},
		{"an image part without its url", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", MultiContent: []goopenai.ChatMessagePart{{Type: "image_url"}}}}},
			"reflectionopenai: message 0 (user): content part 0 is an image without an image_url"},
		{"an unknown part type", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", MultiContent: []goopenai.ChatMessagePart{{Type: "video"}}}}},
			`reflectionopenai: message 0 (user): content part 0 has type "video"`},
		{"parts in a function message", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "function", Name: "f", MultiContent: []goopenai.ChatMessagePart{{Type: "text", Text: "y"}}}}},
			"reflectionopenai: message 0 (function): a function message has no content parts"},
		{"an unknown tool call type", goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "assistant", ToolCalls: []goopenai.ToolCall{{ID: "c", Type: goopenai.ToolTypeMCP}}}}},
			`reflectionopenai: message 0 (assistant): tool call 0 has type "mcp"`},
		{"an unknown response format", goopenai.ChatCompletionRequest{Model: "m", Messages: user, ResponseFormat: &goopenai.ChatCompletionResponseFormat{Type: "yaml"}},
			`reflectionopenai: response format: unknown type "yaml"`},
		{"json_schema without a schema object", goopenai.ChatCompletionRequest{Model: "m", Messages: user, ResponseFormat: &goopenai.ChatCompletionResponseFormat{Type: "json_schema"}},
			"reflectionopenai: response format: type json_schema without a json_schema"},
		{"a schema under another type", goopenai.ChatCompletionRequest{Model: "m", Messages: user, ResponseFormat: &goopenai.ChatCompletionResponseFormat{
			Type: "json_object", JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: "x"}}},
			`reflectionopenai: response format: type "json_object" with a json_schema`},
		{"a schema that does not marshal", goopenai.ChatCompletionRequest{Model: "m", Messages: user, ResponseFormat: &goopenai.ChatCompletionResponseFormat{
			Type: "json_schema", JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: "x", Schema: json.RawMessage(`{"type":`)}}},
			`reflectionopenai: response format: schema of "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := newChatServer(t, func(int, map[string]any) (int, string) { return http.StatusOK, textAnswer("ok") })
			_, err := reflectionopenai.NewClient(client).CreateChatCompletion(context.Background(), tt.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, srv.requests(), "nothing is sent")
		})
	}
}

func TestClientWithoutAnOpenAIClient(t *testing.T) {
	req := goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
	_, err := reflectionopenai.NewClient(nil).CreateChatCompletion(context.Background(), req)
	assert.EqualError(t, err, "reflectionopenai: client has no openai-go client")
	var nilClient *reflectionopenai.Client
	_, err = nilClient.CreateChatCompletion(context.Background(), req)
	assert.EqualError(t, err, "reflectionopenai: client has no openai-go client")
}

func TestClientRequestOptionsOverrideTheClients(t *testing.T) {
	// The agent's client retries (openai-go's default); the Reflector's
	// requests need not: a request option given to NewClient wins.
	srv, _ := newChatServer(t, func(int, map[string]any) (int, string) {
		return http.StatusServiceUnavailable, apiError("overloaded", "server_error", "overloaded")
	})
	retrying := openai.NewClient(option.WithAPIKey("test-key"), option.WithBaseURL(srv.srv.URL+"/v1/"), option.WithHTTPClient(srv.srv.Client()))
	_, err := reflectionopenai.NewClient(&retrying, option.WithMaxRetries(0)).CreateChatCompletion(context.Background(),
		goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	assert.Len(t, srv.requests(), 1, "no retry")
}
