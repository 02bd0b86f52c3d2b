package reflection_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopctl-go/reflection"
)

func TestRedactSecrets(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"OpenAI project key", "key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z rejected", "key [REDACTED] rejected"},
		{"Anthropic key", "x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "x-api-key: [REDACTED]"},
		{"legacy key inside a word", "tool exfiltrate_sk-live-0123456789abcdefghijklmnop", "tool exfiltrate[REDACTED]"},
		{"Stripe secret key", "stripe: sk_live_51H8xYzAbCdEfGhIj", "stripe: [REDACTED]"},
		{"Google API key", "url ?key=AIzaSyA1234567890abcdefghijklmnopqrstuv end", "url ?key=[REDACTED] end"},
		{"AWS access key id", "AKIAIOSFODNN7EXAMPLE is not authorized", "[REDACTED] is not authorized"},
		{"GitHub token", "token ghp_0123456789abcdefghijklmnopqrstuvwxyz used", "token [REDACTED] used"},
		{"GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED]"},
		{"Slack token", "xoxb-1234567890-abcdefghij", "[REDACTED]"},
		{"JWT", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc_DEF-ghi", "jwt [REDACTED]"},
		{"bearer header", "Authorization: Bearer abc.DEF-123_456", "Authorization: Bearer [REDACTED]"},
		{"basic credential", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
		{"password in a URL", "dial postgres://app:s3cr3t@db:5432/x failed", "dial postgres://app:[REDACTED]@db:5432/x failed"},
		{"JSON password field", `{"user":"bob","password":"hunter2"}`, `{"user":"bob","password":"[REDACTED]"}`},
		{"JSON secret-ish field names", `{"client_secret":"a","x-api-key":"b","refresh_token":"c\"d"}`,
			`{"client_secret":"[REDACTED]","x-api-key":"[REDACTED]","refresh_token":"[REDACTED]"}`},
		{"key=value", "connect failed: password=hunter2 user=bob", "connect failed: password=[REDACTED] user=bob"},
		{"query string", "GET /v1?api_key=abc123&q=go", "GET /v1?api_key=[REDACTED]&q=go"},
		{"PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reflection.RedactSecrets(tt.in))
		})
	}
}

// TestRedactSecretsKeepsPlainText: ordinary failure texts come through
// unchanged, so redaction does not hide what a log reader needs.
func TestRedactSecretsKeepsPlainText(t *testing.T) {
	for _, s := range []string{
		"",
		"open /etc/report.txt: permission denied",
		"Basic authentication is required",
		`{"max_tokens": 100, "path": "/tmp/x"}`,
		"risk assessment failed: 503 Service Unavailable",
		"dial tcp 10.0.0.1:443: connect: connection refused",
		"the token expired",
		strings.Repeat("a", 100),
	} {
		assert.Equal(t, s, reflection.RedactSecrets(s))
	}
}
