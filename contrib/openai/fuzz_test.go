package openai_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	reflectopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
)

// FuzzCustomInput: whatever free text the model writes for a custom tool,
// ToolCall wraps it in a JSON object that CustomInput reads back unchanged
// (invalid UTF-8 comes back as U+FFFD, as encoding/json writes it); and
// CustomInput never panics on any input, answering either the text or an
// error.
//
//	go test -run '^$' -fuzz '^FuzzCustomInput$' -fuzztime 10s ./contrib/openai
func FuzzCustomInput(f *testing.F) {
	f.Add("SELECT * FROM t WHERE a < 3", []byte(`{"input":"x"}`))
	f.Add("", []byte(`{}`))
	f.Add("quotes \" \\ and\nlines", []byte(`{"input":null}`))
	f.Add("\xff\xfe invalid", []byte(`{"input":"a"} trailing`))
	f.Add("</script>&amp;", []byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, text string, raw []byte) {
		call, err := reflectopenai.ToolCall(openai.ChatCompletionMessageToolCallUnion{
			ID: "c", Type: "custom", Custom: openai.ChatCompletionMessageCustomToolCallCustom{Name: "t", Input: text},
		})
		if err != nil {
			t.Fatalf("ToolCall: %v", err)
		}
		if !json.Valid(call.Input) {
			t.Fatalf("input %q is not JSON", call.Input)
		}
		got, err := reflectopenai.CustomInput(call.Input)
		if err != nil {
			t.Fatalf("CustomInput(%q): %v", call.Input, err)
		}
		if utf8.ValidString(text) && got != text {
			t.Fatalf("round trip: got %q, want %q", got, text)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("round trip of %q gave invalid UTF-8 %q", text, got)
		}

		out, err := reflectopenai.CustomInput(raw)
		if err != nil && out != "" {
			t.Fatalf("CustomInput(%q) = %q with error %v", raw, out, err)
		}
		if err == nil && !json.Valid(raw) {
			t.Fatalf("CustomInput accepted %q, which is not JSON", raw)
		}
	})
}
