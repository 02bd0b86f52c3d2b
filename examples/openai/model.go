package main

import (
	"encoding/json"
	"net/http"
	"strings"
)

// fakeModel plays the model on the chat-completions wire format. Requests
// that ask for the failure_analysis schema come from the llm Reflector and
// get an analysis of the failure in their user message; the agent's first
// request gets three tool calls, and its next one the final answer.
func fakeModel(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			JSONSchema struct {
				Name string `json:"name"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var msg map[string]any
	switch {
	case req.ResponseFormat.JSONSchema.Name == "failure_analysis":
		user, _ := req.Messages[len(req.Messages)-1].Content.(string)
		msg = map[string]any{"role": "assistant", "content": analysis(user)}
	case len(req.Messages) == 1:
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_notes", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"doc/release-notes.md"}`}},
			map[string]any{"id": "call_count", "type": "custom", "custom": map[string]any{"name": "run_sql", "input": "SELCT count(*) FROM notes"}},
			map[string]any{"id": "call_docs", "type": "function", "function": map[string]any{"name": "search_v1", "arguments": `{"query":"release"}`}},
		}}
	default:
		msg = map[string]any{"role": "assistant", "content": "v1.2 ships tool-call recovery for openai-go; there are 42 notes, and 3 doc pages mention the release."}
	}
	finish := "stop"
	if msg["tool_calls"] != nil {
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-offline", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
	})
}

// analysis is the model's answer to the Reflector, as the JSON text of a
// failure analysis, for the failure told in user (llm.UserMessage's form).
func analysis(user string) string {
	correction := map[string]any{"alternative_tool": nil, "modified_input": nil, "guidance": nil}
	switch {
	case strings.HasPrefix(user, "Tool: read_file\n"):
		correction["correction_type"] = "input_fix"
		correction["description"] = "the notes are under docs/"
		correction["modified_input"] = `{"path":"docs/release-notes.md"}`
	case strings.HasPrefix(user, "Tool: run_sql\n"):
		correction["correction_type"] = "input_fix"
		correction["description"] = "SELCT is a typo of SELECT"
		correction["modified_input"] = `{"input":"SELECT count(*) FROM notes"}`
	case strings.HasPrefix(user, "Tool: search_v1\n"):
		correction["correction_type"] = "tool_change"
		correction["description"] = "search_v1 was replaced by search"
		correction["alternative_tool"] = "search"
	default:
		correction = nil
	}
	b, _ := json.Marshal(map[string]any{
		"is_recoverable": correction != nil,
		"root_cause":     "the call was wrong, not the tool",
		"severity":       "low",
		"correction":     correction,
		"context":        "",
	})
	return string(b)
}
