package reflectionopenai_test

import (
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolCall(t *testing.T) {
	tests := []struct {
		name string
		call map[string]any
		want reflection.ToolCall
	}{
		{
			name: "function call keeps its arguments as they are",
			call: functionCall("call_1", "read_file", `{"path": "doc/notes.md"}`),
			want: reflection.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path": "doc/notes.md"}`)},
		},
		{
			name: "function call without arguments gets an empty object",
			call: functionCall("call_2", "list_files", ""),
			want: reflection.ToolCall{ID: "call_2", Name: "list_files", Input: json.RawMessage(`{}`)},
		},
		{
			name: "function arguments that are not JSON pass untouched",
			call: functionCall("call_3", "read_file", `{"path": `),
			want: reflection.ToolCall{ID: "call_3", Name: "read_file", Input: json.RawMessage(`{"path": `)},
		},
		{
			name: "custom call's free text travels as an input object",
			call: customCall("call_4", "run_sql", "SELECT * FROM t WHERE a < 3 AND b = \"x\"\n"),
			want: reflection.ToolCall{ID: "call_4", Name: "run_sql", Input: json.RawMessage(`{"input":"SELECT * FROM t WHERE a < 3 AND b = \"x\"\n"}`)},
		},
		{
			name: "custom call with empty text",
			call: customCall("call_5", "ping", ""),
			want: reflection.ToolCall{ID: "call_5", Name: "ping", Input: json.RawMessage(`{"input":""}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := assistantMessage(t, tt.call)
			got, err := reflectionopenai.ToolCall(msg.ToolCalls[0])
			require.NoError(t, err)
			assert.Equal(t, tt.want.ID, got.ID)
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, string(tt.want.Input), string(got.Input))
		})
	}
}

func TestToolCallRefusesAnUnknownType(t *testing.T) {
	msg := assistantMessage(t, map[string]any{"id": "call_9", "type": "hologram", "hologram": map[string]any{"name": "x"}})
	got, err := reflectionopenai.ToolCall(msg.ToolCalls[0])
	require.ErrorIs(t, err, reflectionopenai.ErrUnsupportedToolCall)
	assert.Contains(t, err.Error(), `"hologram"`)
	assert.Contains(t, err.Error(), `"call_9"`)
	assert.Equal(t, "call_9", got.ID, "the id is kept so the call can still be answered")
}

func TestToolCallsKeepsTheModelsOrder(t *testing.T) {
	msg := assistantMessage(t,
		functionCall("call_a", "read_file", `{"path":"a"}`),
		customCall("call_b", "run_sql", "SELECT 1"),
		functionCall("call_c", "read_file", `{"path":"c"}`),
	)
	calls, err := reflectionopenai.ToolCalls(msg)
	require.NoError(t, err)
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	assert.Equal(t, []string{"call_a", "call_b", "call_c"}, ids)

	none, err := reflectionopenai.ToolCalls(openai.ChatCompletionMessage{Content: "done"})
	require.NoError(t, err)
	assert.Empty(t, none)

	msg = assistantMessage(t, functionCall("call_a", "read_file", `{}`), map[string]any{"id": "call_x", "type": "hologram"})
	_, err = reflectionopenai.ToolCalls(msg)
	assert.ErrorIs(t, err, reflectionopenai.ErrUnsupportedToolCall)
}

func TestToolCallCustomTextReadsBack(t *testing.T) {
	for _, text := range []string{"", "plain", "quotes \" and \\ backslashes", "<html> & tags", "ünïcode ✓", "lines\nand\ttabs"} {
		msg := assistantMessage(t, customCall("c", "tool", text))
		call, err := reflectionopenai.ToolCall(msg.ToolCalls[0])
		require.NoError(t, err)
		assert.Equal(t, string(reflection.TextInput(text)), string(call.Input), "the root's envelope")
		got, err := reflection.InputText(call.Input)
		require.NoError(t, err)
		assert.Equal(t, text, got)
	}
}

func TestToolMessages(t *testing.T) {
	msgs := reflectionopenai.ToolMessages([]reflection.ToolResult{
		{ID: "call_1", Content: "ship on friday"},
		{ID: "call_2", Content: "open x: no such file", IsError: true},
	})
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"role":"tool","tool_call_id":"call_1","content":"ship on friday"},
		{"role":"tool","tool_call_id":"call_2","content":"open x: no such file"}
	]`, string(b))
	assert.Empty(t, reflectionopenai.ToolMessages(nil))
}
