package reflectionopenai

import (
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	goopenai "github.com/sashabaranov/go-openai"
)

// BenchmarkTranslate measures what the Client adds to each request of the
// llm Reflector, apart from the HTTP exchange: translating the request into
// openai-go's, and the answer back into go-openai's.
//
//	go test -run '^$' -bench Translate -benchmem ./contrib/openai
func BenchmarkTranslate(b *testing.B) {
	req := goopenai.ChatCompletionRequest{
		Model: "gpt-4o-mini",
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: llm.DefaultSystemPrompt},
			{Role: goopenai.ChatMessageRoleUser, Content: llm.UserMessage(reflection.Failure{
				Tool: "read_file", Input: json.RawMessage(`{"path":"doc/notes.md"}`), Error: "open doc/notes.md: no such file or directory", MaxAttempts: 6,
			})},
		},
		ResponseFormat: &goopenai.ChatCompletionResponseFormat{
			Type:       goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: llm.SchemaName, Schema: json.RawMessage(llm.ResponseSchema()), Strict: true},
		},
		Temperature:         0.2,
		MaxCompletionTokens: 400,
	}
	b.Run("request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := newParams(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
