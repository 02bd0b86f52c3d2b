package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectopenai "github.com/loopctl-go/reflection/contrib/openai"
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
			got, err := reflectopenai.ToolCall(msg.ToolCalls[0])
			require.NoError(t, err)
			assert.Equal(t, tt.want.ID, got.ID)
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, string(tt.want.Input), string(got.Input))
		})
	}
}

func TestToolCallRefusesAnUnknownType(t *testing.T) {
	msg := assistantMessage(t, map[string]any{"id": "call_9", "type": "hologram", "hologram": map[string]any{"name": "x"}})
	got, err := reflectopenai.ToolCall(msg.ToolCalls[0])
	require.ErrorIs(t, err, reflectopenai.ErrUnsupportedToolCall)
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
	calls, err := reflectopenai.ToolCalls(msg)
	require.NoError(t, err)
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	assert.Equal(t, []string{"call_a", "call_b", "call_c"}, ids)

	none, err := reflectopenai.ToolCalls(openai.ChatCompletionMessage{Content: "done"})
	require.NoError(t, err)
	assert.Empty(t, none)

	msg = assistantMessage(t, functionCall("call_a", "read_file", `{}`), map[string]any{"id": "call_x", "type": "hologram"})
	_, err = reflectopenai.ToolCalls(msg)
	assert.ErrorIs(t, err, reflectopenai.ErrUnsupportedToolCall)
}

func TestCustomInput(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string
		wantErr string
	}{
		{name: "the text", input: `{"input":"SELECT 1"}`, want: "SELECT 1"},
		{name: "empty text", input: `{"input":""}`, want: ""},
		{name: "escapes decoded", input: `{"input":"a\nb \u003c c"}`, want: "a\nb < c"},
		{name: "surrounding whitespace", input: " {\"input\": \"x\"}\n", want: "x"},
		{name: "not JSON", input: `SELECT 1`, wantErr: "must be a JSON object"},
		{name: "a JSON string", input: `"SELECT 1"`, wantErr: "must be a JSON object"},
		{name: "empty", input: ``, wantErr: "must be a JSON object"},
		{name: "no input key", input: `{}`, wantErr: `"input" is missing or null`},
		{name: "null input", input: `{"input":null}`, wantErr: `"input" is missing or null`},
		{name: "input not a string", input: `{"input":42}`, wantErr: "must be a JSON object"},
		{name: "another key", input: `{"input":"x","limit":3}`, wantErr: `unknown field "limit"`},
		{name: "data after the object", input: `{"input":"x"} {"input":"y"}`, wantErr: "data after the object"},
		{name: "a stray brace after the object", input: `{"input":"x"}}`, wantErr: "data after the object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflectopenai.CustomInput(json.RawMessage(tt.input))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), "openai: ")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCustomInputReadsBackWhatToolCallWrote(t *testing.T) {
	for _, text := range []string{"", "plain", "quotes \" and \\ backslashes", "<html> & tags", "ünïcode ✓", "lines\nand\ttabs"} {
		msg := assistantMessage(t, customCall("c", "tool", text))
		call, err := reflectopenai.ToolCall(msg.ToolCalls[0])
		require.NoError(t, err)
		got, err := reflectopenai.CustomInput(call.Input)
		require.NoError(t, err)
		assert.Equal(t, text, got)
	}
}

func TestToolMessages(t *testing.T) {
	msgs := reflectopenai.ToolMessages([]reflection.ToolResult{
		{ID: "call_1", Content: "ship on friday"},
		{ID: "call_2", Content: "open x: no such file", IsError: true},
	})
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"role":"tool","tool_call_id":"call_1","content":"ship on friday"},
		{"role":"tool","tool_call_id":"call_2","content":"open x: no such file"}
	]`, string(b))
	assert.Empty(t, reflectopenai.ToolMessages(nil))
}
