package rules_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// statusError is an error with the HTTP status an SDK's error reports.
type statusError struct {
	text   string
	status int
}

func (e *statusError) Error() string   { return e.text }
func (e *statusError) StatusCode() int { return e.status }

// TestPrecedence holds the stock table to its order where two verdicts meet
// in one text: credentials refused for good win over everything, an
// expired token over the generic words of a refusal, a spent quota over a
// retry delay and over the words of a rate limit, a rate limit per minute
// over the word "quota", and vague words over a "try again later".
func TestPrecedence(t *testing.T) {
	r := rules.New(rules.Defaults()...)
	tests := []struct {
		name    string
		f       reflection.Failure
		verdict string
		rule    string
	}{
		// Credentials beside a transient word.
		{"a disabled organisation under a 503", reflection.Failure{Error: "503 Service Unavailable: organization disabled by administrator"}, "escalate", "rules: credentials-rejected"},
		{"a revoked token beside a gateway timeout", reflection.Failure{Error: "the API token you supplied was revoked; gateway timeout"}, "escalate", "rules: credentials-rejected"},
		{"rejected credentials and a retry", reflection.Failure{Error: "credentials rejected by server, retrying in 5 seconds"}, "escalate", "rules: credentials-rejected"},
		{"a rejected client certificate under a 502", reflection.Failure{Error: "Bad Gateway: the upstream rejected our client certificate"}, "escalate", "rules: credentials-rejected"},
		{"expired or revoked", reflection.Failure{Error: `{"error": "invalid_grant", "error_description": "Token has been expired or revoked."}`}, "escalate", "rules: credentials-rejected"},
		{"a refresh token that expired", reflection.Failure{Error: "AADSTS700082: The refresh token has expired due to inactivity."}, "escalate", "rules: credentials-rejected"},
		{"an expired token whose refresh failed", reflection.Failure{Error: "Error when retrieving token from sso: Token has expired and refresh failed"}, "escalate", "rules: credentials-rejected"},
		{"an API key that expired", reflection.Failure{Error: "API key expired. Please renew the API key."}, "escalate", "rules: credentials-rejected"},

		// Expired tokens: one retry, on the call's first failure only.
		{"an expired token, first failure", reflection.Failure{Error: "ExpiredToken: The security token included in the request is expired"}, "recoverable", "rules: expired-token"},
		{"an expired token, second attempt", reflection.Failure{Error: "ExpiredToken: The security token included in the request is expired", Attempt: 1}, "escalate", "rules: expired-token"},
		{"an expired token under 401 Unauthorized", reflection.Failure{Error: "401 Unauthorized: token expired"}, "recoverable", "rules: expired-token"},
		{"an expired token with a typed 401", reflection.Failure{Err: &statusError{"jwt expired", 401}, Error: "jwt expired"}, "recoverable", "rules: expired-token"},
		{"an expired token with a typed 401, second attempt", reflection.Failure{Err: &statusError{"jwt expired", 401}, Error: "jwt expired", Attempt: 2}, "escalate", "rules: expired-token"},
		{"a typed 401 that is not an expiry", reflection.Failure{Err: &statusError{"invalid token", 401}, Error: "invalid token"}, "escalate", "rules: http-status-auth"},
		{"an expired token the log shows retried", reflection.Failure{Error: "[sync] attempt 5/8 failed: 401 {error: 'invalid_token', error_description: 'The access token expired'}"}, "escalate", "rules: auth"},

		// Spent quotas and rate limits.
		{"a spent quota with a retry delay", reflection.Failure{Error: "You exceeded your current quota, please check your plan and billing details. Please retry in 36.6s."}, "escalate", "rules: quota"},
		{"a quota per minute", reflection.Failure{Error: "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-1.5-pro."}, "recoverable", "rules: rate-limit"},
		{"a quota per day under a rate-limit reason", reflection.Failure{Error: "Quota exceeded for quota metric 'Requests' and limit 'Requests per day per user' of service 'x.googleapis.com', rateLimitExceeded"}, "escalate", "rules: quota"},
		{"a quota whose limit is 0", reflection.Failure{Error: "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-pro, per minute. Please retry in 5s."}, "escalate", "rules: quota"},
		{"a daily rate limit with no wait", reflection.Failure{Error: "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day"}, "escalate", "rules: quota"},
		{"a daily rate limit with a wait", reflection.Failure{Error: "Rate limit reached for gpt-3.5-turbo on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s."}, "recoverable", "rules: rate-limit"},
		{"Kafka's throttling quota", reflection.Failure{Error: "ThrottlingQuotaExceededException: The throttling quota has been exceeded."}, "recoverable", "rules: rate-limit"},
		{"a 429 that is a spent quota", reflection.Failure{Err: &statusError{"insufficient_quota", 429}, Error: "insufficient_quota"}, "escalate", "rules: quota"},

		// What says too little, or is not what it looks like.
		{"vague words and try again later", reflection.Failure{Error: "Something went wrong. Please try again later."}, "skipped", ""},
		{"a service that says it is unavailable", reflection.Failure{Error: "The service is temporarily unavailable. Please try again later."}, "recoverable", "rules: overloaded"},
		{"an MCP server that never started", reflection.Failure{Error: "error: Failed to spawn: `mysql_mcp_server` Caused by: program not found MCP error -32000: Connection closed"}, "skipped", ""},
		{"an MCP connection that closed", reflection.Failure{Error: "MCP error -32000: Connection closed"}, "recoverable", "rules: connection-lost"},
		{"a request breaker", reflection.Failure{Error: "CircuitBreakingException: [request] Data too large, data for [<agg>] would be [4133190368/3.8gb], which is larger than the limit of [4080218931/3.7gb]"}, "skipped", ""},
		{"a parent breaker that needs a human", reflection.Failure{Error: `circuit_breaking_exception: [parent] Data too large, with { durability="PERMANENT" }`}, "skipped", ""},
		{"a transaction cancelled by a condition", reflection.Failure{Error: "TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, TransactionConflict]"}, "skipped", ""},
		{"an AMQP channel closed for a bad argument", reflection.Failure{Error: "Channel closed by server: 406 (PRECONDITION-FAILED) with message \"PRECONDITION_FAILED - inequivalent arg 'durable'\""}, "skipped", ""},
		{"a Java exception named for resource access", reflection.Failure{Error: "org.springframework.web.client.ResourceAccessException: I/O error on GET request: Connection reset"}, "recoverable", "rules: network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.f.Tool == "" {
				tt.f.Tool = "tool"
			}
			a, err := r.Analyze(context.Background(), tt.f)
			assert.Equal(t, tt.verdict, verdictOf(a, err), "answered by %q", a.Context)
			assert.Equal(t, tt.rule, a.Context)
		})
	}
}

// TestTransientOnce: the verdict is Transient on a call's first failure,
// with the retry hint the failure states, and Escalate with the guidance on
// every later attempt; both name the rule.
func TestTransientOnce(t *testing.T) {
	r := rules.New(rules.Rule{
		Name: "session",
		When: rules.Contains("session expired"),
		Then: rules.TransientOnce("the session expired", "sign in again"),
	})
	first, err := r.Analyze(context.Background(), reflection.Failure{Error: "session expired; retry after 2 seconds"})
	assert.NoError(t, err)
	assert.True(t, first.IsRecoverable)
	assert.Equal(t, "the session expired", first.RootCause)
	assert.Equal(t, 2*time.Second, first.RetryAfter)
	assert.Nil(t, first.Correction)
	assert.Equal(t, "rules: session", first.Context)

	for _, attempt := range []int{1, 4} {
		later, err := r.Analyze(context.Background(), reflection.Failure{Error: "session expired", Attempt: attempt})
		assert.NoError(t, err)
		assert.False(t, later.IsRecoverable)
		assert.Equal(t, reflection.SeverityHigh, later.Severity)
		if assert.NotNil(t, later.Correction) {
			assert.Equal(t, reflection.Escalate, later.Correction.Type)
			assert.Equal(t, "sign in again", later.Correction.Guidance)
		}
		assert.Equal(t, "rules: session", later.Context)
	}
}
