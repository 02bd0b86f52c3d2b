package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goodFix is an answer whose InputFix fits readFileSchema.
var goodFix = answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil))

// requireRepairRequest checks that request 1 of srv is request 0 with the
// unusable answer and one complaint appended, and returns the complaint.
func requireRepairRequest(t *testing.T, srv *chatServer, badAnswer string) string {
	t.Helper()
	first, second := srv.requestAt(0), srv.requestAt(1)
	assert.Equal(t, first["model"], second["model"])
	assert.Equal(t, first["response_format"], second["response_format"], "a repair keeps the response format")
	msgs0, msgs1 := srv.messagesAt(0), srv.messagesAt(1)
	require.Len(t, msgs0, 2)
	require.Len(t, msgs1, 4)
	assert.Equal(t, msgs0, msgs1[:2], "a repair keeps the system prompt and the user message")
	assert.Equal(t, [2]string{"assistant", badAnswer}, msgs1[2])
	assert.Equal(t, "user", msgs1[3][0])
	complaint := msgs1[3][1]
	assert.True(t, strings.HasPrefix(complaint, "Your answer "), complaint)
	assert.Contains(t, complaint, "cannot be used: ")
	assert.True(t, strings.HasSuffix(complaint, "and nothing else."), complaint)
	return complaint
}

func TestRepairShapeError(t *testing.T) {
	bad := answer(true, "severe", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil))
	srv, client := replies(t, bad, goodFix)
	got, err := llm.New(client).Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	require.NotNil(t, got.Correction)
	assert.JSONEq(t, `{"path":"docs/notes.md"}`, string(got.Correction.ModifiedInput))
	require.Equal(t, 2, srv.requests())
	complaint := requireRepairRequest(t, srv, bad)
	assert.Contains(t, complaint, "does not match the failure_analysis schema")
	assert.Contains(t, complaint, "- at /severity: value must be one of")
}

func TestRepairSchemaErrorCarriesTheValidatorsPointer(t *testing.T) {
	bad := answer(true, "low", corr("input_fix", `{"path": 5}`, nil, nil))
	srv, client := replies(t, bad, goodFix)
	got, err := llm.New(client).Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"docs/notes.md"}`, string(got.Correction.ModifiedInput))
	complaint := requireRepairRequest(t, srv, bad)
	assert.Contains(t, complaint, "at /correction/modified_input, the corrected input does not match the input schema of tool \"read_file\"")
	assert.Contains(t, complaint, "- at /path: expected string, but got number")
}

func TestRepairUnknownAlternativeTool(t *testing.T) {
	bad := answer(true, "low", corr("tool_change", nil, "delete_all_files", nil))
	good := answer(true, "low", corr("tool_change", nil, "list_dir", nil))
	srv, client := replies(t, bad, good)
	r := llm.New(client, llm.WithToolCatalog(func(context.Context) []reflection.ToolSchema {
		return []reflection.ToolSchema{{Name: "read_file"}, {Name: "list_dir", Description: "List a directory."}}
	}))
	got, err := r.Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	assert.Equal(t, "list_dir", got.Correction.AlternativeTool)
	complaint := requireRepairRequest(t, srv, bad)
	assert.Contains(t, complaint, `at /correction/alternative_tool, "delete_all_files" is not one of the tools listed as available`)
}

func TestRepairOfAnAnswerCutAtTheTokenLimit(t *testing.T) {
	cut := `{"is_recoverable": true, "root_cause": "the pa`
	srv, client := newChatServer(t, func(n int) (int, string) {
		if n == 0 {
			return http.StatusOK, message(map[string]any{"role": "assistant", "content": cut}, "length")
		}
		return http.StatusOK, completion(goodFix)
	})
	_, err := llm.New(client).Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	complaint := requireRepairRequest(t, srv, cut)
	assert.True(t, strings.HasPrefix(srv.messagesAt(1)[3][1], "Your answer was cut off at the token limit, so it cannot be used: it holds no JSON object."), complaint)
}

// TestRepairModelThatNeverComplies: 1+n requests, round k carrying every
// earlier answer and complaint in order, then ErrInternal quoting the last
// answer.
func TestRepairModelThatNeverComplies(t *testing.T) {
	for _, rounds := range []int{1, 2, 3} {
		t.Run("rounds="+strconv.Itoa(rounds), func(t *testing.T) {
			say := func(n int) string { return "I cannot tell, attempt #" + strconv.Itoa(n) }
			srv, client := newChatServer(t, func(n int) (int, string) { return http.StatusOK, completion(say(n)) })
			_, err := llm.New(client, llm.WithRepairRounds(rounds)).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			require.Equal(t, 1+rounds, srv.requests())
			assert.Contains(t, err.Error(), "answer holds no JSON object")
			assert.True(t, strings.HasSuffix(err.Error(), "; the answer was: "+say(rounds)), err.Error())

			for k := range rounds + 1 {
				msgs := srv.messagesAt(k)
				require.Len(t, msgs, 2+2*k)
				assert.Equal(t, srv.messagesAt(0), msgs[:2])
				for j := range k {
					assert.Equal(t, [2]string{"assistant", say(j)}, msgs[2+2*j])
					assert.Equal(t, "user", msgs[3+2*j][0])
					assert.Contains(t, msgs[3+2*j][1], "Your answer cannot be used: it holds no JSON object.")
				}
			}
		})
	}
}

func TestRepairIsNotTriedWhenAskingAgainCannotHelp(t *testing.T) {
	withSchema := func(schema string) reflection.Failure {
		f := readFailure()
		f.Schema.InputSchema = json.RawMessage(schema)
		return f
	}
	tests := []struct {
		name  string
		reply func(n int) (int, string)
		f     reflection.Failure
		want  string
	}{
		{"transport error", func(int) (int, string) {
			return http.StatusInternalServerError, apiError("The server had an error", "server_error")
		}, readFailure(), "chat completion"},
		{"refusal", func(int) (int, string) { return http.StatusOK, refusal("I can't help with that.") }, readFailure(), "model refused"},
		{"no choices", func(int) (int, string) {
			return http.StatusOK, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`
		}, readFailure(), "no choices"},
		{"tool schema that does not compile", func(int) (int, string) { return http.StatusOK, completion(goodFix) },
			withSchema(`{"type": 12}`), "does not compile"},
		{"tool schema over a limit", func(int) (int, string) { return http.StatusOK, completion(goodFix) },
			withSchema(nested(`{"properties":{"a":`, `{}`, `}}`, 40)), "exceeds a limit"},
		{"validation over its budget", func(int) (int, string) {
			return http.StatusOK, completion(answer(true, "low", corr("input_fix", `{}`, nil, nil)))
		}, withSchema(doublingAllOf()), "validation budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := newChatServer(t, tt.reply)
			_, err := llm.New(client, llm.WithRepairRounds(3)).Analyze(context.Background(), tt.f)
			requireInternal(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, 1, srv.requests())
		})
	}
}

func TestRepairRoundsZeroMakesOneRequest(t *testing.T) {
	for _, n := range []int{0, -1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			srv, client := replies(t, "no JSON here", goodFix)
			_, err := llm.New(client, llm.WithRepairRounds(n)).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			assert.Equal(t, 1, srv.requests())
		})
	}
}

func TestRepairDefaultIsOneRound(t *testing.T) {
	srv, client := replies(t, "no JSON here")
	_, err := llm.New(client).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	assert.Equal(t, 1+llm.DefaultRepairRounds, srv.requests())
	assert.Equal(t, 1, llm.DefaultRepairRounds)
}

func TestRepairIsNotTriedOnceTheContextHasEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, client := newChatServer(t, func(int) (int, string) {
		cancel()
		return http.StatusOK, completion("no JSON here")
	})
	_, err := llm.New(client).Analyze(ctx, readFailure())
	requireInternal(t, err)
	assert.Equal(t, 1, srv.requests())
}

func TestRepairKeepsTheFormatOfEveryResponseFormat(t *testing.T) {
	for _, format := range []llm.ResponseFormat{llm.ResponseFormatJSONSchema, llm.ResponseFormatJSONObject, llm.ResponseFormatNone} {
		t.Run(strconv.Itoa(int(format)), func(t *testing.T) {
			srv, client := replies(t, "not JSON", goodFix)
			_, err := llm.New(client, llm.WithResponseFormat(format), llm.WithModel("m1")).Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			requireRepairRequest(t, srv, "not JSON")
		})
	}
}

// TestRepairRedactsWhatItSendsBack: the echoed answer and the complaint pass
// through the redactor, like everything else that is sent.
func TestRepairRedactsWhatItSendsBack(t *testing.T) {
	const secret = "sk-live-0123456789"
	bad := answer(true, "low", corr("input_fix", `{"path": 5, "token": "`+secret+`"}`, nil, nil))
	srv, client := replies(t, bad, goodFix)
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	_, err := llm.New(client, llm.WithRedactor(redact)).Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	msgs := srv.messagesAt(1)
	assert.NotContains(t, msgs[2][1]+msgs[3][1], secret)
	assert.Contains(t, msgs[2][1], "[REDACTED]")
}

// slowClient answers each request after a delay of fake time, and fails when
// the request's context ends first.
type slowClient struct {
	delay   time.Duration
	answers []string
	calls   int
}

func (c *slowClient) CreateChatCompletion(ctx context.Context, _ openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	n := c.calls
	c.calls++
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
		return openai.ChatCompletionResponse{}, ctx.Err()
	}
	return canned(c.answers[min(n, len(c.answers)-1)]).resp, nil
}

// TestRepairRequestTimeoutIsPerRequest: two requests of 40 ms each both fit
// a 50 ms request timeout; a timeout over the whole Analyze would have
// stopped the second.
func TestRepairRequestTimeoutIsPerRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &slowClient{delay: 40 * time.Millisecond, answers: []string{"not JSON", goodFix}}
		_, err := llm.New(c, llm.WithRequestTimeout(50*time.Millisecond)).Analyze(context.Background(), readFailure())
		require.NoError(t, err)
		assert.Equal(t, 2, c.calls)

		c = &slowClient{delay: 60 * time.Millisecond, answers: []string{"not JSON", goodFix}}
		_, err = llm.New(c, llm.WithRequestTimeout(50*time.Millisecond)).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, c.calls, "a request that times out is a transport error: not repaired")
	})
}
