package rules_test

import (
	"context"
	"strings"
	"testing"

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
		{"a transient word at the end of a long text is read",
			"job report\n" + filler(12<<10) + "read: connection reset by peer", "recoverable"},
		{"rejected credentials in the middle of a long text are read",
			"job report\n" + filler(6<<10) + "AccessDeniedException: User is not allowed\n" + filler(6<<10) + "read: connection reset by peer", "escalate"},
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

	a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "web_serach", Error: `tool "web_serach" not found`})
	require.NoError(t, err)
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
