package rules_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// The tests in this file were written when the stock table was attacked
// with mutations (one guard flipped or removed at a time): each one fails
// when a guard that no other test caught, or only one test caught, is
// broken.

// TestScanWindow: the stock table reads a long text through its first and
// last 4 KiB, and rejected credentials through its first 64 KiB, so a miss
// stays cheap however much a tool printed.
func TestScanWindow(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	filler := func(n int) string {
		return strings.Repeat("[build] compiling module github.com/acme/service/internal/handlers (pkg 12 of 40)\n", n/80+1)[:n]
	}
	tests := []struct {
		name string
		text string
		want string
	}{
		{"a transient word in the middle of a long text is not read",
			"job report\n" + filler(6<<10) + "read: connection reset by peer\n" + filler(6<<10) + "exit status 1", "skipped"},
		{"a text of exactly 8 KiB is read whole",
			filler(4<<10-6) + "connection reset" + filler(4<<10-10), "recoverable"},
		{"a transient word at the end of a long text is read",
			"job report\n" + filler(12<<10) + "read: connection reset by peer", "recoverable"},
		{"rejected credentials in the middle of a long text are read",
			"job report\n" + filler(6<<10) + "AccessDeniedException: User is not allowed\n" + filler(6<<10) + "read: connection reset by peer", "escalate"},
		{"rejection words in capitals in the middle of a long text are read",
			"job report\n" + filler(6<<10) + "HTTP/1.1 401 UNAUTHORIZED\n" + filler(6<<10) + "read: connection reset by peer", "escalate"},
		{"an untrusted certificate in the middle of a long text is read",
			"job report\n" + filler(6<<10) + "x509: certificate signed by unknown authority\n" + filler(6<<10) + "i/o timeout", "escalate"},
		{"a word cut by the window's edge is read whole",
			filler(4<<10-8) + "Permission denied (publickey)\n" + filler(8<<10) + "read: connection reset by peer", "escalate"},
		{"rejected credentials past the first 64 KiB are not read",
			"job report\n" + filler(70<<10) + "AccessDeniedException: User is not allowed\n" + filler(30<<10) + "read: connection reset by peer", "recoverable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "run_shell", Error: tt.text})
			assert.Equal(t, tt.want, verdictOf(a, err), "answered by %q", a.Context)
		})
	}
}

// TestUnknownToolNamesTheFailingTool: an unknown-tool message about some
// other tool (a shell tool's "jq not found") is not the failing tool's,
// even when the failing tool's own name is a typo of a listed one.
func TestUnknownToolNamesTheFailingTool(t *testing.T) {
	r := rules.New(rules.UnknownTool("web_search", "jq_query"))
	_, err := r.Analyze(context.Background(), reflection.Failure{Tool: "web_serach", Error: `tool "jq" not found`})
	require.ErrorIs(t, err, reflection.ErrSkipped)

	_, err = r.Analyze(context.Background(), reflection.Failure{Tool: "web_serach", Error: `tool "wget" not found`})
	require.ErrorIs(t, err, reflection.ErrSkipped, "the same first letter is not the same tool")

	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "web_serach", Error: `tool "web_serach" not found`})
	require.NoError(t, err)
	assert.Equal(t, "web_search", a.Correction.AlternativeTool)

	a, err = r.Analyze(context.Background(), reflection.Failure{Tool: "webSerach", Error: "MCP error -32602: Tool web-serach not found"})
	require.NoError(t, err, "the same name, written another way")
	assert.Equal(t, "web_search", a.Correction.AlternativeTool)
}

// TestQuotaPerMinuteIsARateLimit: a quota counted per minute or per second
// refills by itself, so it is a rate limit (recoverable), not a used-up
// quota (escalated); the daily one is.
func TestQuotaPerMinuteIsARateLimit(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		text, want, rule string
	}{
		{"429 Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com' for consumer 'project_number:5813'.",
			"recoverable", "rules: rate-limit"},
		{"googleapi: Error 429: Quota exceeded for quota metric 'Queries' and limit 'Queries per second per user' of service 'sheets.googleapis.com', rateLimitExceeded",
			"recoverable", "rules: rate-limit"},
		{"googleapi: Error 403: Daily Limit Exceeded. The quota will be reset at midnight Pacific Time (PT)., dailyLimitExceeded",
			"escalate", "rules: quota"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "tool", Error: tt.text})
			assert.Equal(t, tt.want, verdictOf(a, err))
			assert.Equal(t, tt.rule, a.Context)
		})
	}
}

// TestForbiddenRateLimitIsARateLimit: GitHub answers its secondary rate
// limits with 403 Forbidden; the words win over the status, so they are
// retried. A 403 that says a quota is used up is the quota's.
func TestForbiddenRateLimitIsARateLimit(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		text, want, rule string
	}{
		{"HTTP 403: You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "recoverable", "rules: rate-limit"},
		{"403 Forbidden: API rate limit exceeded for installation ID 4242.", "recoverable", "rules: rate-limit"},
		{"googleapi: Error 403: Daily Limit Exceeded. The quota will be reset at midnight Pacific Time (PT)., dailyLimitExceeded", "escalate", "rules: quota"},
		{"403 Forbidden", "escalate", "rules: forbidden"},
		{"googleapi: Error 403: Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com', rateLimitExceeded",
			"recoverable", "rules: rate-limit"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "tool", Error: tt.text})
			assert.Equal(t, tt.want, verdictOf(a, err))
			assert.Equal(t, tt.rule, a.Context)
		})
	}
}

// TestTypedForbidden: a StatusCode() of 403 is a refusal, unless the
// error's text says it is a rate limit.
func TestTypedForbidden(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		msg, want, rule string
	}{
		{"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "recoverable", "rules: rate-limit"},
		{"Resource not accessible by integration", "escalate", "rules: http-status-auth"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			err := &httpError{status: 403, msg: tt.msg}
			a, aerr := r.Analyze(context.Background(), reflection.Failure{Tool: "github", Err: err})
			assert.Equal(t, tt.want, verdictOf(a, aerr))
			assert.Equal(t, tt.rule, a.Context)
		})
	}
}

// TestErrTextWhenErrorIsEmpty: a Failure that carries only Err is read by
// its error's text.
func TestErrTextWhenErrorIsEmpty(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Err: errors.New("read tcp 10.0.0.2:51234->10.0.0.5:443: read: connection reset by peer")})
	require.NoError(t, err)
	assert.Equal(t, "rules: network", a.Context)
	_, err = r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Err: errors.New("json: cannot unmarshal string into Go value of type int")})
	assert.ErrorIs(t, err, reflection.ErrSkipped)
}

// TestRequestLargerThanLimit: a rate limit whose message shows that the
// request alone asks for more than the whole limit cannot be waited out
// (Groq's "Limit 5000, Used 0, Requested ~12903"); one that asks for less,
// or exactly the limit, can.
func TestRequestLargerThanLimit(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		text, want string
	}{
		{"Rate limit reached for model `mixtral-8x7b-32768` in organization `org_01hq` on tokens per minute (TPM): Limit 5000, Used 0, Requested ~12903. Please try again in 1m32.2s.", "skipped"},
		{"Limit 7,000, Used 0, Requested 12,903. Please try again in 52s.", "skipped"},
		{"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.", "recoverable"},
		{"Rate limit reached for model `llama3-8b` on tokens per minute (TPM): Limit 6000, Used 0, Requested 6000. Please try again in 12s.", "recoverable"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "llm", Error: tt.text})
			assert.Equal(t, tt.want, verdictOf(a, err), "answered by %q", a.Context)
		})
	}
}

// TestUnknownToolNameFromTheMessage: when the failure does not name the
// failing tool, the name in the message counts, even at its very start.
func TestUnknownToolNameFromTheMessage(t *testing.T) {
	r := rules.New(rules.UnknownTool("web_search", "read_file"))
	a, err := r.Analyze(context.Background(), reflection.Failure{Error: "web_serach is not a valid tool, try another one"})
	require.NoError(t, err)
	assert.Equal(t, "web_search", a.Correction.AlternativeTool)

	a, err = r.Analyze(context.Background(), reflection.Failure{Tool: "fileRead", Error: "Unknown tool"})
	require.NoError(t, err)
	assert.Equal(t, "read_file", a.Correction.AlternativeTool, "word order does not count")

	// Padded with separators up to the longest name read (2×10+16 bytes).
	padded := "web_search" + strings.Repeat("_", 26)
	a, err = r.Analyze(context.Background(), reflection.Failure{Tool: padded, Error: "Unknown tool"})
	require.NoError(t, err)
	assert.Equal(t, "web_search", a.Correction.AlternativeTool)
	_, err = r.Analyze(context.Background(), reflection.Failure{Tool: padded + "_", Error: "Unknown tool"})
	assert.ErrorIs(t, err, reflection.ErrSkipped, "one byte longer is not read")
}

// TestBareTimeout: a message that is nothing but "timeout" is one, up to 32
// bytes of it.
func TestBareTimeout(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	at32 := strings.Repeat("-", 12) + " timeout " + strings.Repeat("-", 11)
	require.Len(t, at32, 32)
	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Error: at32})
	assert.Equal(t, "recoverable", verdictOf(a, err))
	_, err = r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Error: at32 + "-"})
	assert.ErrorIs(t, err, reflection.ErrSkipped)
}

// TestUnknownToolClosest: the closest name wins; a distance equal to the
// pair's limit still qualifies; two equally close names are a tie.
func TestUnknownToolClosest(t *testing.T) {
	tests := []struct {
		tools []string
		tool  string
		want  string // "" means the rule declines
	}{
		{[]string{"search"}, "serach", "search"}, // 1 edit, the most six letters allow
		{[]string{"read_file", "read_files"}, "readFile", "read_file"},
		{[]string{"read_files", "read_filed"}, "readfile", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := rules.New(rules.UnknownTool(tt.tools...))
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: tt.tool, Error: "Unknown tool"})
			if tt.want == "" {
				assert.ErrorIs(t, err, reflection.ErrSkipped)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.Correction.AlternativeTool)
		})
	}
}

// TestRetryAfterHints: the stock table's transient answers carry the delay
// the text states, in every form it is read from.
func TestRetryAfterHints(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		text string
		want time.Duration // -1: more than a day (a date far ahead)
	}{
		{"Retry-After: 7", 7 * time.Second},
		{"503 Service Unavailable; retry after 2 minutes", 2 * time.Minute},
		{"503 Service Unavailable; retry after 1 hour", time.Hour},
		{"503 Service Unavailable; retry after 99999999999999999999 seconds", math.MaxInt64},
		{"503 Service Unavailable\nRetry-After: Fri, 31 Dec 9999 23:59:59 GMT", -1},
		{"503 Service Unavailable\nRetry-After: Fri Dec 31 23:59:59 9999", -1},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Error: tt.text})
			require.NoError(t, err)
			require.True(t, a.IsRecoverable)
			if tt.want < 0 {
				assert.Greater(t, a.RetryAfter, 24*time.Hour)
				return
			}
			assert.Equal(t, tt.want, a.RetryAfter)
		})
	}
}

// TestStatusInText: the statuses the stock table reads from a text, where
// nothing else in it says what happened.
func TestStatusInText(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		text, want string
	}{
		{"upstream returned status code 502", "recoverable"},
		{`401 {"error":"login required"}`, "escalate"},
		{"syntax error at line 502", "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Error: tt.text})
			assert.Equal(t, tt.want, verdictOf(a, err), "answered by %q", a.Context)
		})
	}
}

// TestAnswerContexts: Answer and AnswerFunc name the rule in an analysis
// without a Context of its own, keep the one it has, and hand out copies
// of a Correction.
func TestAnswerContexts(t *testing.T) {
	ctx := context.Background()
	fix := &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "search"}
	given := reflection.FailureAnalysis{IsRecoverable: true, Correction: fix}
	r := rules.New(
		rules.Rule{Name: "fixed", When: rules.Contains("a"), Then: rules.Answer(given)},
		rules.Rule{Name: "own", When: rules.Contains("b"), Then: rules.Answer(reflection.FailureAnalysis{Context: "mine"})},
		rules.Rule{Name: "fn", When: rules.Contains("c"), Then: rules.AnswerFunc(func(reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{RootCause: "c"}, nil
		})},
		rules.Rule{Name: "fn-own", When: rules.Contains("d"), Then: rules.AnswerFunc(func(reflection.Failure) (reflection.FailureAnalysis, error) {
			return reflection.FailureAnalysis{Context: "its own"}, nil
		})},
	)
	fix.AlternativeTool = "changed after New"

	a, err := r.Analyze(ctx, reflection.Failure{Error: "a"})
	require.NoError(t, err)
	assert.Equal(t, "rules: fixed", a.Context)
	require.NotNil(t, a.Correction)
	assert.Equal(t, "search", a.Correction.AlternativeTool, "Answer copied the Correction when it was built")
	assert.NotSame(t, fix, a.Correction)

	a, _ = r.Analyze(ctx, reflection.Failure{Error: "b"})
	assert.Equal(t, "mine", a.Context)
	assert.Nil(t, a.Correction)
	a, _ = r.Analyze(ctx, reflection.Failure{Error: "c"})
	assert.Equal(t, "rules: fn", a.Context)
	a, _ = r.Analyze(ctx, reflection.Failure{Error: "d"})
	assert.Equal(t, "its own", a.Context)
}
