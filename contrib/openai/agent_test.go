package reflectionopenai_test

import (
	"context"
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

// agentModel scripts the model of an agent loop: the first agent request is
// answered with two tool calls (a function call with a wrong path and a
// custom SQL call with a typo), the Reflector's requests with fixes for each,
// and the next agent request with a final answer.
func agentModel() func(int, map[string]any) (int, string) {
	return func(_ int, req map[string]any) (int, string) {
		msgs, _ := req["messages"].([]any)
		if isReflectorRequest(req) {
			user, _ := msgs[1].(map[string]any)["content"].(string)
			switch {
			case strings.HasPrefix(user, "Tool: read_file\n"):
				return http.StatusOK, textAnswer(analysisJSON(true, inputFix(`{"path":"docs/notes.md"}`)))
			case strings.HasPrefix(user, "Tool: run_sql\n"):
				return http.StatusOK, textAnswer(analysisJSON(true, inputFix(`{"input":"SELECT count(*) FROM notes"}`)))
			}
			return http.StatusBadRequest, apiError("unexpected analysis: "+user, "invalid_request_error", "unexpected")
		}
		if len(msgs) == 1 {
			return http.StatusOK, toolCallsAnswer(
				functionCall("call_read", "read_file", `{"path":"doc/notes.md"}`),
				customCall("call_sql", "run_sql", "SELEC count(*) FROM notes"),
			)
		}
		return http.StatusOK, textAnswer("The notes say: ship on friday (42 notes).")
	}
}

func TestAgentLoopRecoversAndTheModelGetsTheToolMessages(t *testing.T) {
	for _, concurrency := range []int{1, 2} {
		t.Run(map[int]string{1: "one call after another", 2: "calls at once"}[concurrency], func(t *testing.T) {
			srv, client := newChatServer(t, agentModel())
			tools := []openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool()}
			lookup, err := reflectionopenai.Schemas(tools)
			require.NoError(t, err)
			driver := reflection.NewDriver(
				reflection.WithReflector(llm.New(reflectionopenai.NewClient(client))), // the agent's own client
				reflection.WithStrategy(noWait(3)),
				reflection.WithSchemas(lookup),
			)
			recorder := newRecorder()
			runner := reflectionopenai.NewRunner(driver, recorder.dispatch, reflectionopenai.WithConcurrency(concurrency))

			ctx := reflection.ContextWithTask(context.Background(), "summarise the notes")
			params := openai.ChatCompletionNewParams{
				Model:    openai.ChatModelGPT4oMini,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What do my notes say, and how many are there?")},
				Tools:    tools,
			}
			var final string
			for turn := 0; turn < 4 && final == ""; turn++ {
				completion, err := client.Chat.Completions.New(ctx, params)
				require.NoError(t, err)
				msg := completion.Choices[0].Message
				params.Messages = append(params.Messages, msg.ToParam())
				if len(msg.ToolCalls) == 0 {
					final = msg.Content
					break
				}
				results, err := runner.Run(ctx, msg)
				require.NoError(t, err)
				params.Messages = append(params.Messages, results...)
			}
			assert.Equal(t, "The notes say: ship on friday (42 notes).", final)
			assert.ElementsMatch(t, []string{
				`read_file {"path":"doc/notes.md"}`, `read_file {"path":"docs/notes.md"}`,
				`run_sql {"input":"SELEC count(*) FROM notes"}`, `run_sql {"input":"SELECT count(*) FROM notes"}`,
			}, recorder.seen())

			// The model's second turn carried its own tool calls and both
			// recovered results, in its order.
			var agentRequests []map[string]any
			for _, req := range srv.requests() {
				if !isReflectorRequest(req) {
					agentRequests = append(agentRequests, req)
				}
			}
			require.Len(t, agentRequests, 2)
			assert.Len(t, srv.requests(), 4, "two agent turns and one analysis per failed call")
			msgs, _ := agentRequests[1]["messages"].([]any)
			require.Len(t, msgs, 4)
			assert.Equal(t, map[string]any{
				"role": "assistant",
				"tool_calls": []any{
					map[string]any{"id": "call_read", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"doc/notes.md"}`}},
					map[string]any{"id": "call_sql", "type": "custom", "custom": map[string]any{"name": "run_sql", "input": "SELEC count(*) FROM notes"}},
				},
			}, msgs[1])
			assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_read", "content": "ship on friday"}, msgs[2])
			assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_sql", "content": "1 row: 42"}, msgs[3])
			tools0, _ := agentRequests[0]["tools"].([]any)
			assert.Len(t, tools0, 2, "the agent's request declared both tools")
		})
	}
}

func TestAgentLoopGoesOnWhenAToolCannotRecover(t *testing.T) {
	// The Reflector's server is down: the Driver gives up softly, and the
	// model is told what failed instead of the agent aborting.
	srv, client := newChatServer(t, func(_ int, req map[string]any) (int, string) {
		if isReflectorRequest(req) {
			return http.StatusServiceUnavailable, apiError("overloaded", "server_error", "overloaded")
		}
		msgs, _ := req["messages"].([]any)
		if len(msgs) == 1 {
			return http.StatusOK, toolCallsAnswer(functionCall("call_read", "read_file", `{"path":"doc/notes.md"}`))
		}
		return http.StatusOK, textAnswer("I could not find the notes.")
	})
	driver := reflection.NewDriver(reflection.WithReflector(llm.New(reflectionopenai.NewClient(client))), reflection.WithStrategy(noWait(3)))
	recorder := newRecorder()
	runner := reflectionopenai.NewRunner(driver, recorder.dispatch)

	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4oMini, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Read my notes")}, Tools: []openai.ChatCompletionToolUnionParam{readFileTool()}}
	completion, err := client.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	msg := completion.Choices[0].Message
	results, err := runner.Run(context.Background(), msg)
	require.NoError(t, err)
	params.Messages = append(params.Messages, msg.ToParam())
	params.Messages = append(params.Messages, results...)
	completion, err = client.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	assert.Equal(t, "I could not find the notes.", completion.Choices[0].Message.Content)
	assert.Len(t, recorder.seen(), 1, "a broken Reflector means no blind retry")
	last, _ := srv.last()["messages"].([]any)
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_read", "content": "open doc/notes.md: no such file or directory"}, last[2])
}
