package reflectionopenai_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
)

// FuzzToolCall: whatever a model writes in a tool call, ToolCall translates
// it without an error and without losing it. A function call's arguments
// become the input byte for byte (blank ones become {}); a custom call's
// free text becomes a JSON object from which reflection.InputText reads the
// text back unchanged (invalid UTF-8 comes back as U+FFFD, as encoding/json
// writes it). Parsing the envelope itself is the root's, fuzzed there.
//
//	go test -run '^$' -fuzz '^FuzzToolCall$' -fuzztime 10s ./contrib/openai
func FuzzToolCall(f *testing.F) {
	f.Add("run_sql", "SELECT * FROM t WHERE a < 3")
	f.Add("", "")
	f.Add("read_file", `{"path": "doc/notes.md"}`)
	f.Add("t", " \n\t")
	f.Add("quotes", "quotes \" \\ and\nlines")
	f.Add("bad", "\xff\xfe invalid")
	f.Add("html", "</script>&amp;")
	f.Add("envelope", `{"input":"x","input":"y"}`)
	f.Fuzz(func(t *testing.T, name, text string) {
		fn, err := reflectionopenai.ToolCall(openai.ChatCompletionMessageToolCallUnion{
			ID: "f", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: name, Arguments: text},
		})
		if err != nil {
			t.Fatalf("ToolCall(function): %v", err)
		}
		wantArgs := text
		if len(bytes.TrimSpace([]byte(text))) == 0 {
			wantArgs = "{}"
		}
		if fn.ID != "f" || fn.Name != name || string(fn.Input) != wantArgs {
			t.Fatalf("function call became %+v, want id f, name %q, input %q", fn, name, wantArgs)
		}

		custom, err := reflectionopenai.ToolCall(openai.ChatCompletionMessageToolCallUnion{
			ID: "c", Type: "custom", Custom: openai.ChatCompletionMessageCustomToolCallCustom{Name: name, Input: text},
		})
		if err != nil {
			t.Fatalf("ToolCall(custom): %v", err)
		}
		if custom.ID != "c" || custom.Name != name || !json.Valid(custom.Input) {
			t.Fatalf("custom call became %+v, want id c, name %q and a JSON input", custom, name)
		}
		got, err := reflection.InputText(custom.Input)
		if err != nil {
			t.Fatalf("InputText(%q): %v", custom.Input, err)
		}
		if utf8.ValidString(text) && got != text {
			t.Fatalf("round trip: got %q, want %q", got, text)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("round trip of %q gave invalid UTF-8 %q", text, got)
		}
	})
}
