package llm_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

// scriptClient answers request n with answers[n] (the last one again past
// the end), cut at the token limit when cut[n] says so, and records every
// request.
type scriptClient struct {
	answers []string
	cut     []bool
	reqs    []openai.ChatCompletionRequest
}

func (c *scriptClient) CreateChatCompletion(_ context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	req.Messages = slices.Clone(req.Messages)
	c.reqs = append(c.reqs, req)
	n := min(len(c.reqs)-1, len(c.answers)-1)
	finish := openai.FinishReasonStop
	if c.cut[n] {
		finish = openai.FinishReasonLength
	}
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
		Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: c.answers[n]}, FinishReason: finish,
	}}}, nil
}

// relCut is "the first n bytes on a UTF-8 boundary, then …[truncated N
// bytes]", written again.
func relCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…[truncated " + strconv.Itoa(len(s)-n) + " bytes]"
}

// FuzzRepairConversation drives Analyze with three scripted answers and up
// to three repair rounds, and checks the conversation it builds: request k
// repeats the system and user messages of the first and the same model and
// response format, then carries every earlier answer (cut at 8 KiB) and the
// complaint about it, in order; only an unusable answer is followed by
// another request; and a final error quotes the last answer.
//
//	go test -run '^$' -fuzz '^FuzzRepairConversation$' -fuzztime 10s ./llm
func FuzzRepairConversation(f *testing.F) {
	good := answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil))
	f.Add("no JSON", good, "", uint8(1), false, false)
	f.Add(answer(true, "severe", nil), answer(true, "low", corr("input_fix", `{"path":5}`, nil, nil)), good, uint8(3), false, true)
	f.Add(`{"is_recoverable": tr`, good, good, uint8(2), true, false)
	f.Add("", "\xff\xfe{", strings.Repeat("é", 5000), uint8(3), true, true)
	f.Add(answer(true, "low", corr("tool_change", nil, "nope", nil)), answer(true, "low", corr("input_fix", `{"path":"a","PATH":"b"}`, nil, nil)), "x", uint8(2), false, false)
	f.Fuzz(func(t *testing.T, a0, a1, a2 string, rounds uint8, cutFirst, lenient bool) {
		n := int(rounds % 4)
		c := &scriptClient{answers: []string{a0, a1, a2}, cut: []bool{cutFirst, false, false}}
		opts := []llm.Option{llm.WithRepairRounds(n), llm.WithToolCatalog(func(context.Context) []reflection.ToolSchema {
			return []reflection.ToolSchema{{Name: "list_dir"}}
		})}
		if lenient {
			opts = append(opts, llm.WithResponseFormat(llm.ResponseFormatJSONObject))
		}
		var exchanges []llm.Exchange
		opts = append(opts, llm.WithExchangeHook(func(_ context.Context, e llm.Exchange) { exchanges = append(exchanges, e) }))
		_, err := llm.New(c, opts...).Analyze(context.Background(), readFailure())

		if len(c.reqs) < 1 || len(c.reqs) > 1+n {
			t.Fatalf("%d requests with %d repair rounds", len(c.reqs), n)
		}
		if len(exchanges) != len(c.reqs) {
			t.Fatalf("%d exchanges for %d requests", len(exchanges), len(c.reqs))
		}
		first := c.reqs[0]
		for k, req := range c.reqs {
			if req.Model != first.Model || req.ResponseFormat != first.ResponseFormat {
				t.Fatalf("request %d changed the model or the response format", k)
			}
			if len(req.Messages) != 2+2*k || !sameMessage(req.Messages[0], first.Messages[0]) || !sameMessage(req.Messages[1], first.Messages[1]) {
				t.Fatalf("request %d has %d messages, or not the first two of request 0", k, len(req.Messages))
			}
			for j := range k {
				echo := relCut(c.answers[j], 8<<10)
				if c.answers[j] == "" {
					echo = "(an empty answer)"
				}
				got, complaint := req.Messages[2+2*j], req.Messages[3+2*j]
				if got.Role != openai.ChatMessageRoleAssistant || got.Content != echo {
					t.Fatalf("request %d, message %d: %s %q, want the answer %q", k, 2+2*j, got.Role, got.Content, echo)
				}
				if complaint.Role != openai.ChatMessageRoleUser || !strings.HasPrefix(complaint.Content, "Your answer ") ||
					!strings.HasSuffix(complaint.Content, "and nothing else.") {
					t.Fatalf("request %d, message %d is not a complaint: %q", k, 3+2*j, complaint.Content)
				}
				if want := j == 0 && cutFirst; want != strings.HasPrefix(complaint.Content, "Your answer was cut off at the token limit") {
					t.Fatalf("complaint %d about the token limit: %q", j, complaint.Content)
				}
				if exchanges[j].Err == nil {
					t.Fatalf("round %d was repaired after an accepted answer", j)
				}
			}
		}
		last := len(c.reqs) - 1
		if err == nil {
			if exchanges[last].Err != nil {
				t.Fatalf("Analyze succeeded, but its last exchange failed: %v", exchanges[last].Err)
			}
			return
		}
		if !errors.Is(err, reflection.ErrInternal) || err != exchanges[last].Err {
			t.Fatalf("error %v does not wrap ErrInternal or is not the last exchange's", err)
		}
		if want := "; the answer was: " + relCut(c.answers[min(last, 2)], 512); !strings.HasSuffix(err.Error(), want) {
			t.Fatalf("error %q does not end with %q", err, want)
		}
	})
}

func sameMessage(a, b openai.ChatCompletionMessage) bool {
	return a.Role == b.Role && a.Content == b.Content
}
