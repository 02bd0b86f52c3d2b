package reflectionopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/loopctl-go/reflection/llm"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFileFailure() reflection.Failure {
	return reflection.Failure{
		Error:       "open doc/notes.md: no such file or directory",
		Tool:        "read_file",
		Input:       json.RawMessage(`{"path":"doc/notes.md"}`),
		Schema:      &reflection.ToolSchema{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		Task:        "summarise the notes",
		MaxAttempts: 6,
	}
}

func TestLLMReflectorThroughClient(t *testing.T) {
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) {
		return http.StatusOK, textAnswer(analysisJSON(true, inputFix(`{"path":"docs/notes.md"}`)))
	})
	r := llm.New(reflectionopenai.NewClient(client), llm.WithTemperature(0.2), llm.WithMaxTokens(400))
	a, err := r.Analyze(context.Background(), readFileFailure())
	require.NoError(t, err)
	assert.True(t, a.IsRecoverable)
	require.NotNil(t, a.Correction)
	assert.Equal(t, reflection.InputFix, a.Correction.Type)
	assert.JSONEq(t, `{"path":"docs/notes.md"}`, string(a.Correction.ModifiedInput))

	body := srv.last()
	assert.Equal(t, "gpt-4o-mini", body["model"])
	assert.Equal(t, 0.2, body["temperature"])
	assert.EqualValues(t, 400, body["max_completion_tokens"])
	rf, _ := body["response_format"].(map[string]any)
	assert.Equal(t, "json_schema", rf["type"])
	js, _ := rf["json_schema"].(map[string]any)
	assert.Equal(t, llm.SchemaName, js["name"])
	assert.Equal(t, true, js["strict"])
	var schema any
	require.NoError(t, json.Unmarshal(llm.ResponseSchema(), &schema))
	assert.Equal(t, schema, js["schema"])
	msgs, _ := body["messages"].([]any)
	require.Len(t, msgs, 2)
	assert.Equal(t, map[string]any{"role": "system", "content": llm.DefaultSystemPrompt}, msgs[0])
	assert.Equal(t, map[string]any{"role": "user", "content": llm.UserMessage(readFileFailure())}, msgs[1])
}

func TestLLMReflectorThroughClientInJSONObjectMode(t *testing.T) {
	srv, client := newChatServer(t, func(int, map[string]any) (int, string) {
		return http.StatusOK, textAnswer("```json\n" + analysisJSON(false, nil) + "\n```")
	})
	r := llm.New(reflectionopenai.NewClient(client), llm.WithModel("llama3.2"), llm.WithResponseFormat(llm.ResponseFormatJSONObject))
	a, err := r.Analyze(context.Background(), readFileFailure())
	require.NoError(t, err)
	assert.False(t, a.IsRecoverable)
	assert.Equal(t, map[string]any{"type": "json_object"}, srv.last()["response_format"])
	assert.Equal(t, "llama3.2", srv.last()["model"])
}

func TestLLMReflectorThroughClientFails(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		wantInErr string
		apiStatus int // >0: errors.As finds *openai.Error with this status
	}{
		{name: "API error", status: http.StatusInternalServerError, body: apiError("boom", "server_error", "internal"), wantInErr: "chat completion", apiStatus: 500},
		{name: "unauthorised", status: http.StatusUnauthorized, body: apiError("bad key", "invalid_request_error", "invalid_api_key"), wantInErr: "chat completion", apiStatus: 401},
		{name: "refusal", status: http.StatusOK, body: completionJSON(map[string]any{"role": "assistant", "content": nil, "refusal": "I won't."}, "stop"), wantInErr: "model refused: I won't."},
		{name: "no choices", status: http.StatusOK, body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`, wantInErr: "no choices"},
		{name: "cut at the token limit", status: http.StatusOK, body: completionJSON(map[string]any{"role": "assistant", "content": `{"is_recoverable":tr`}, "length"), wantInErr: "token limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := newChatServer(t, func(int, map[string]any) (int, string) { return tt.status, tt.body })
			_, err := llm.New(reflectionopenai.NewClient(client)).Analyze(context.Background(), readFileFailure())
			require.ErrorIs(t, err, reflection.ErrInternal)
			assert.Contains(t, err.Error(), tt.wantInErr)
			var apiErr *openai.Error
			if tt.apiStatus > 0 {
				require.True(t, errors.As(err, &apiErr), "errors.As finds *openai.Error through the llm Reflector: %v", err)
				assert.Equal(t, tt.apiStatus, apiErr.StatusCode)
			} else {
				assert.False(t, errors.As(err, &apiErr))
			}
		})
	}
}

func TestDriverWithLLMReflectorThroughClient(t *testing.T) {
	// One openai-go client serves the Driver's Reflector; the Runner turns
	// the model's tool call into a recovered tool message.
	srv, client := newChatServer(t, func(_ int, req map[string]any) (int, string) {
		if !isReflectorRequest(req) {
			return http.StatusBadRequest, apiError("unexpected request", "invalid_request_error", "unexpected")
		}
		return http.StatusOK, textAnswer(analysisJSON(true, inputFix(`{"path":"docs/notes.md"}`)))
	})
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{readFileTool()})
	require.NoError(t, err)
	d := reflection.NewDriver(
		reflection.WithReflector(llm.New(reflectionopenai.NewClient(client))),
		reflection.WithStrategy(noWait(3)),
		reflection.WithSchemas(lookup),
	)
	tools := newRecorder()
	ctx := reflection.ContextWithTask(context.Background(), "summarise the notes")
	msgs, err := reflectionopenai.NewRunner(d, tools.dispatch).Run(ctx, assistantMessage(t, functionCall("call_1", "read_file", `{"path":"doc/notes.md"}`)))
	require.NoError(t, err)
	assert.Equal(t, "ship on friday", msgs[0].OfTool.Content.OfString.Value)
	require.Len(t, srv.requests(), 1)
	user := srv.last()["messages"].([]any)[1].(map[string]any)["content"].(string)
	assert.True(t, strings.HasPrefix(user, "Tool: read_file\nInput: {\"path\":\"doc/notes.md\"}\nSchema: "), user)
	assert.Contains(t, user, "Task: summarise the notes")
}
