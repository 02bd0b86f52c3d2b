package llm_test

import (
	"context"
	"testing"

	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

// cannedClient answers every request in process, with no HTTP, so the
// benchmark measures what Analyze costs apart from the network.
type cannedClient struct{ resp openai.ChatCompletionResponse }

func (c cannedClient) CreateChatCompletion(context.Context, openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return c.resp, nil
}

func canned(content string) cannedClient {
	return cannedClient{resp: openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
		Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content},
		FinishReason: openai.FinishReasonStop,
	}}}}
}

func BenchmarkAnalyze(b *testing.B) {
	ctx := context.Background()
	f := readFailure()
	fix := canned(answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil)))

	b.Run("no correction", func(b *testing.B) {
		r := llm.New(canned(answer(false, "medium", nil)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Analyze(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("input fix, warm schema cache", func(b *testing.B) {
		r := llm.New(fix)
		if _, err := r.Analyze(ctx, f); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Analyze(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("input fix, cold schema cache", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := llm.New(fix).Analyze(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
