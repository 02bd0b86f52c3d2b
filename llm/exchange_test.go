package llm_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordExchanges returns an exchange hook that appends to *into. It takes no
// lock: the race detector would report a hook called off Analyze's goroutine.
func recordExchanges(into *[]llm.Exchange) llm.Option {
	return llm.WithExchangeHook(func(_ context.Context, e llm.Exchange) { *into = append(*into, e) })
}

var serverUsage = openai.Usage{PromptTokens: 200, CompletionTokens: 50, TotalTokens: 250}

func TestExchangeHookSeesEveryRound(t *testing.T) {
	bad := "I am not sure."
	_, client := replies(t, bad, goodFix)
	var got []llm.Exchange
	f := readFailure()
	f.Attempt = 2
	a, err := llm.New(client, recordExchanges(&got)).Analyze(context.Background(), f)
	require.NoError(t, err)
	require.NotNil(t, a.Correction)
	require.Len(t, got, 2)

	first, second := got[0], got[1]
	assert.Equal(t, 0, first.Round)
	assert.Equal(t, 1, second.Round)
	for _, e := range got {
		assert.Equal(t, serverUsage, e.Usage)
		assert.Equal(t, "gpt-4o-mini-2024-07-18", e.Model, "the model the server named")
		assert.Equal(t, openai.FinishReasonStop, e.FinishReason)
		assert.Equal(t, "read_file", e.Tool)
		assert.Equal(t, 2, e.Attempt)
		assert.NotZero(t, e.Latency)
		assert.Empty(t, e.Refusal)
	}
	assert.Equal(t, bad, first.Answer)
	assert.Equal(t, goodFix, second.Answer)
	require.Error(t, first.Err)
	assert.ErrorIs(t, first.Err, reflection.ErrInternal)
	assert.Contains(t, first.Err.Error(), "answer holds no JSON object")
	assert.NoError(t, second.Err)
}

func TestExchangeHookErrIsTheErrorAnalyzeReturns(t *testing.T) {
	_, client := replies(t, "no", "still no")
	var got []llm.Exchange
	_, err := llm.New(client, recordExchanges(&got)).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	require.Len(t, got, 2)
	assert.Same(t, err, got[1].Err)
	assert.Contains(t, got[0].Err.Error(), "the answer was: no")
}

func TestExchangeHookSeesTransportErrorsAndRefusals(t *testing.T) {
	tests := []struct {
		name  string
		reply func(int) (int, string)
		check func(t *testing.T, e llm.Exchange)
	}{
		{"transport error", func(int) (int, string) { return http.StatusServiceUnavailable, apiError("overloaded", "server_error") },
			func(t *testing.T, e llm.Exchange) {
				var apiErr *openai.APIError
				require.ErrorAs(t, e.Err, &apiErr)
				assert.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatusCode)
				assert.Zero(t, e.Usage)
				assert.Equal(t, "m-requested", e.Model, "the model requested, when the server named none")
				assert.Empty(t, e.Answer)
			}},
		{"refusal", func(int) (int, string) { return http.StatusOK, refusal("I won't.") },
			func(t *testing.T, e llm.Exchange) {
				assert.Equal(t, "I won't.", e.Refusal)
				assert.Contains(t, e.Err.Error(), "model refused: I won't.")
				assert.Equal(t, serverUsage, e.Usage)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := newChatServer(t, tt.reply)
			var got []llm.Exchange
			_, err := llm.New(client, recordExchanges(&got), llm.WithModel("m-requested")).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, 0, got[0].Round)
			assert.Same(t, err, got[0].Err)
			tt.check(t, got[0])
		})
	}
}

func TestExchangeHookGetsTheContextOfAnalyze(t *testing.T) {
	_, client := answering(t, answer(false, "low", nil))
	var got []any
	r := llm.New(client, llm.WithExchangeHook(func(ctx context.Context, _ llm.Exchange) { got = append(got, ctx.Value(ctxKey{})) }))
	_, err := r.Analyze(context.WithValue(context.Background(), ctxKey{}, "span-3"), readFailure())
	require.NoError(t, err)
	assert.Equal(t, []any{"span-3"}, got)
}

func TestExchangeHookPanicIsNotRecovered(t *testing.T) {
	_, client := answering(t, answer(false, "low", nil))
	boom := errors.New("host bug")
	r := llm.New(client, llm.WithExchangeHook(func(context.Context, llm.Exchange) { panic(boom) }))
	assert.PanicsWithError(t, boom.Error(), func() { _, _ = r.Analyze(context.Background(), readFailure()) })
}

// TestUsagePerFailure sums what recovery costs per failure, as the README
// shows: the tokens of every round of one Analyze.
func TestUsagePerFailure(t *testing.T) {
	_, client := replies(t, "?", goodFix)
	total := map[string]int{}
	r := llm.New(client, llm.WithExchangeHook(func(_ context.Context, e llm.Exchange) {
		total[e.Tool] += e.Usage.TotalTokens
	}))
	_, err := r.Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"read_file": 500}, total)
}
