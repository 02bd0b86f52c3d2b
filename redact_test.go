package reflection_test

import (
	"strconv"
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

// realFormats are secrets in the formats their issuers document, each in
// the surroundings a failure text puts it: an SDK's error, a header dump, a
// config line, a connection string, a JSON body quoted by an error.
var realFormats = []struct {
	format, in, want string
}{
	{"OpenAI project key",
		"openai: 401 Incorrect API key provided: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6h. You can find your API key at https://platform.openai.com/account/api-keys.",
		"openai: 401 Incorrect API key provided: [REDACTED]. You can find your API key at https://platform.openai.com/account/api-keys."},
	{"Anthropic key", `anthropic: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKl-AA"}}`,
		`anthropic: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key [REDACTED]"}}`},
	{"Stripe secret key", "stripe.error.AuthenticationError: Invalid API Key provided: sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
		"stripe.error.AuthenticationError: Invalid API Key provided: [REDACTED]"},
	{"Stripe restricted key", "request with rk_test_51H8xYzAbCdEfGhIjKlMn was denied", "request with [REDACTED] was denied"},
	{"Stripe webhook secret", "verify signature with whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw failed", "verify signature with [REDACTED] failed"},
	{"Google API key", "GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSyA1234567890abcdefghijklmnopqrstuv: 403",
		"GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key=[REDACTED]: 403"},
	{"Google OAuth access token", "using ya29.a0AfH6SMBx3Kq9L2mN4pR7sT1uV8wX0yZ5aB6cD9eF: request had invalid authentication credentials",
		"using [REDACTED]: request had invalid authentication credentials"},
	{"Google OAuth refresh token", "refresh with 1//0gXyZ9aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789AbCd failed: invalid_grant",
		"refresh with [REDACTED] failed: invalid_grant"},
	{"Google OAuth client secret", "oauth2: client 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 rejected", "oauth2: client [REDACTED] rejected"},
	{"AWS access key id", "AccessDenied: User arn:aws:iam::123456789012:user/bob with access key AKIAIOSFODNN7EXAMPLE is not authorized",
		"AccessDenied: User arn:aws:iam::123456789012:user/bob with access key [REDACTED] is not authorized"},
	{"AWS temporary access key id", "ExpiredToken: ASIAY34FZKBOKMUTVV7A has expired", "ExpiredToken: [REDACTED] has expired"},
	{"AWS secret access key in a config file", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu-west-1",
		"[default]\naws_access_key_id = [REDACTED]\naws_secret_access_key = [REDACTED]\nregion = eu-west-1"},
	{"GitHub token in a remote URL", "fatal: Authentication failed for 'https://ghp_0123456789abcdefghijklmnopqrstuvwxyz@github.com/o/r.git/'",
		"fatal: Authentication failed for 'https://[REDACTED]@github.com/o/r.git/'"},
	{"GitHub fine-grained token", "gh: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123 lacks scope repo",
		"gh: [REDACTED] lacks scope repo"},
	{"GitLab personal token", "401 Unauthorized for glpat-xYz12AbC34dEf56GhI78 on /api/v4/projects", "401 Unauthorized for [REDACTED] on /api/v4/projects"},
	{"Slack bot token", "slack: invalid_auth (token xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx)", "slack: invalid_auth (token [REDACTED])"},
	{"Slack webhook URL", "POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX: 404 no_service",
		"POST https://hooks.slack.com/services/[REDACTED]: 404 no_service"},
	{"Discord webhook URL", "POST https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrStUvWxYz01: 401",
		"POST https://discord.com/api/webhooks/123456789012345678/[REDACTED]: 401"},
	{"Hugging Face token", "huggingface_hub: 401 for hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "huggingface_hub: 401 for [REDACTED]"},
	{"Groq key", "groq: invalid key gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp", "groq: invalid key [REDACTED]"},
	{"JSON Web Token", "token expired: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"token expired: [REDACTED]"},
	{"Bearer credential", "curl -H 'Authorization: Bearer 9f8e7d6c5b4a3210' https://api.example.com", "curl -H 'Authorization: Bearer [REDACTED]' https://api.example.com"},
	{"Basic credential of letters only", "proxy sent Basic dXNlcjpsZXRtZWlu and got 407", "proxy sent Basic [REDACTED] and got 407"},
	{"Token scheme", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b\r\nAccept: */*", "Authorization: Token [REDACTED]\r\nAccept: */*"},
	{"password in a database URL", "dial postgres://app:s3cr3t@db:5432/x failed", "dial postgres://app:[REDACTED]@db:5432/x failed"},
	{"password in a Redis URL with no user", "redis://:p4ssw0rd@cache:6379/0: NOAUTH Authentication required.", "redis://:[REDACTED]@cache:6379/0: NOAUTH Authentication required."},
	{"password in a Go MySQL DSN", "[mysql] open bob:hunter2@tcp(db:3306)/shop?parseTime=true: connection refused",
		"[mysql] open bob:[REDACTED]@tcp(db:3306)/shop?parseTime=true: connection refused"},
	{"JSON password field", `invalid request {"user":"bob","password":"hunter2"}`, `invalid request {"user":"bob","password":"[REDACTED]"}`},
	{"JSON escaped inside a string", `json: cannot unmarshal string "{\"user\":\"bob\",\"password\":\"hunter2\"}" into Go value`,
		`json: cannot unmarshal string "{\"user\":\"bob\",\"password\":\"[REDACTED]\"}" into Go value`},
	{"Python dict in a traceback", "KeyError: 'host' in {'username': 'bob', 'password': 'hunter2'}", "KeyError: 'host' in {'username': 'bob', 'password': '[REDACTED]'}"},
	{"numeric api_key in JSON", `{"api_key": 8812345678, "q": "go"}`, `{"api_key": "[REDACTED]", "q": "go"}`},
	{"key=value in a message", "connect failed: password=hunter2 user=bob", "connect failed: password=[REDACTED] user=bob"},
	{"key=value after a colon", "login failed: invalid credentials: api_key=abc123def", "login failed: invalid credentials: api_key=[REDACTED]"},
	{"api_key in a query string", "GET /v1/search?api_key=abc123&q=go: 401", "GET /v1/search?api_key=[REDACTED]&q=go: 401"},
	{"prefixed password variable", "env: DATABASE_PASSWORD=Tr0ub4dor3x DATABASE_USER=app", "env: DATABASE_PASSWORD=[REDACTED] DATABASE_USER=app"},
	{"prefixed token variable", "export TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef", "export TWILIO_AUTH_TOKEN=[REDACTED]"},
	{"PGPASSWORD", "PGPASSWORD=s3cr3t psql -h db -U app", "PGPASSWORD=[REDACTED] psql -h db -U app"},
	{"Azure storage AccountKey", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
		"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"},
	{"Azure SAS signature", "GET https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=AbCdEf%2Bgh%2FIjKl0123456789abcdefghijklmno%3D: 403",
		"GET https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=[REDACTED]: 403"},
	{"Azure AD client secret", "AADSTS7000215: Invalid client secret provided: abc8Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456_",
		"AADSTS7000215: Invalid client secret provided: [REDACTED]"},
	{"ODBC connection string", "Server=db;Database=shop;Uid=sa;Pwd=Passw0rd!;Encrypt=yes", "Server=db;Database=shop;Uid=sa;Pwd=[REDACTED];Encrypt=yes"},
	{"Cookie header", "GET /account HTTP/1.1\r\nCookie: session=8f14e45fceea167a5a36dedd4bea2543; theme=dark\r\nHost: example.com",
		"GET /account HTTP/1.1\r\nCookie: [REDACTED]\r\nHost: example.com"},
	{"Set-Cookie header", "HTTP/1.1 302 Found\nSet-Cookie: sid=s%3AAbCdEf0123; Path=/; HttpOnly\nLocation: /", "HTTP/1.1 302 Found\nSet-Cookie: [REDACTED]\nLocation: /"},
	{"SendGrid key", "sendgrid: 401 for key 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", "sendgrid: 401 for key [REDACTED]"},
	{"npm token", "npm ERR! 401 Unauthorized - GET https://registry.npmjs.org/x - token npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 revoked",
		"npm ERR! 401 Unauthorized - GET https://registry.npmjs.org/x - token [REDACTED] revoked"},
	{"PyPI token", "HTTPError: 403 Invalid or non-existent authentication information (pypi-AgEIcHlwaS5vcmcCJGE0ZjY3ZjQ4LTU1YzUtNDMwYy05ZTg2LTM4ZmQzZDhiMTkxNgACKlszLCJmM2Y)",
		"HTTPError: 403 Invalid or non-existent authentication information ([REDACTED])"},
	{"Shopify access token", "shopify: [API] Invalid API key or access token (unrecognized login or wrong password) shpat_0123456789abcdef0123456789abcdef",
		"shopify: [API] Invalid API key or access token (unrecognized login or wrong password) [REDACTED]"},
	{"HashiCorp Vault token", "vault: Code: 403. Errors: * permission denied for hvs.CAESIJlU2xN3bVx0TyA5AbCdEfGhIjKlMnOpQrStUvWxYz0123",
		"vault: Code: 403. Errors: * permission denied for [REDACTED]"},
	{"DigitalOcean token", "doctl: Unable to authenticate you with dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"doctl: Unable to authenticate you with [REDACTED]"},
	{"Databricks token", "databricks: 403 Invalid access token dapi0123456789abcdef0123456789abcdef", "databricks: 403 Invalid access token [REDACTED]"},
	{"Docker Hub token", "docker login -u bob --password-stdin < dckr_pat_AbCdEfGhIjKlMnOpQrStUvWxYz0: unauthorized", "docker login -u bob --password-stdin < [REDACTED]: unauthorized"},
	{"Postman key", "postman: AUTHENTICATION_ERROR for PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01", "postman: AUTHENTICATION_ERROR for [REDACTED]"},
	{"Mailchimp key", "mailchimp: API Key Invalid 0123456789abcdef0123456789abcdef-us21", "mailchimp: API Key Invalid [REDACTED]"},
	{"Telegram bot token", "GET https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw4/getMe: 401 Unauthorized",
		"GET https://api.telegram.org/bot[REDACTED]/getMe: 401 Unauthorized"},
	{"Docker registry password flag", "exec: \"mysqldump --user root --password hunter2 shop\": exit status 2", "exec: \"mysqldump --user root --password [REDACTED] shop\": exit status 2"},
	{"XML element", "soap:Fault <Credentials><Username>bob</Username><Password>hunter2</Password></Credentials>",
		"soap:Fault <Credentials><Username>bob</Username><Password>[REDACTED]</Password></Credentials>"},
	{"YAML secret", "error converting YAML: line 4: password: aHVudGVyMg== is not valid", "error converting YAML: line 4: password: [REDACTED] is not valid"},
	{"PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "[REDACTED]"},
	{"PEM private key in a service account JSON", `{"type":"service_account","private_key_id":"abc","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----\n"}`,
		`{"type":"service_account","private_key_id":"abc","private_key":"[REDACTED]"}`},
	{"PEM private key cut short", "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ…[truncated 2048 bytes]",
		"key: [REDACTED]…[truncated 2048 bytes]"},
}

// TestRedactSecretsRealFormats: every format of the table is hidden, and
// nothing else changes.
func TestRedactSecretsRealFormats(t *testing.T) {
	assert.GreaterOrEqual(t, len(realFormats), 40)
	for _, tt := range realFormats {
		t.Run(tt.format, func(t *testing.T) {
			assert.Equal(t, tt.want, reflection.RedactSecrets(tt.in))
		})
	}
}

// plainTexts look like secrets to a careless eye, and are not.
var plainTexts = []string{
	"",
	"open /etc/report.txt: permission denied",
	"Basic authentication is required",
	"Bearer token required",
	`{"max_tokens": 100, "path": "/tmp/x"}`,
	`{"usage":{"prompt_tokens":512,"completion_tokens":64,"total_tokens":576},"max_tokens":1024}`,
	"token count: 512",
	"token_count=512 token_type=bearer expires_in=3600",
	"This model's maximum context length is 8192 tokens.",
	"risk assessment failed: 503 Service Unavailable",
	"dial tcp 10.0.0.1:443: connect: connection refused",
	"the token expired",
	"password is incorrect for user bob",
	"invalid password or username",
	"Authorization failed for user bob",
	"invalid credentials: user bob is locked",
	"request 9f1c2d3e-4b5a-6789-abcd-ef0123456789 failed",
	"commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 is not a descendant",
	"image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 not found",
	"--- PASS: TestRedact (0.00s)",
	"PWD=/home/bob SHELL=/bin/bash",
	"https://example.com:8443/path?q=go&page=2",
	"mail to bob@example.com bounced; scp bob@host:/tmp/x . failed",
	"session expired at 10:02:03",
	"password_length: 12, secret_name: db-creds, auth_type: basic",
	`pq: duplicate key value violates unique constraint "users_pkey"`,
	"Content-Type: application/json",
	"WWW-Authenticate: Basic realm=\"api\"",
	`{"password": null, "token": ""}`,
	"disk-usage-report-2026 and task-runner-7 done",
	"unexpected token } in JSON at position 12",
	"key: users.email must be unique",
	strings.Repeat("a", 100),
}

// TestRedactSecretsKeepsPlainText: ordinary failure texts come through
// unchanged, so redaction does not hide what a log reader needs.
func TestRedactSecretsKeepsPlainText(t *testing.T) {
	for _, s := range plainTexts {
		assert.Equal(t, s, reflection.RedactSecrets(s))
	}
}

// TestRedactSecretsIdempotent: a redacted text redacts to itself.
func TestRedactSecretsIdempotent(t *testing.T) {
	for _, tt := range realFormats {
		once := reflection.RedactSecrets(tt.in)
		assert.Equal(t, once, reflection.RedactSecrets(once), tt.format)
	}
}

// FuzzRedactSecrets: whatever the text, redaction ends, is idempotent, and
// hides each secret of the table wherever the table's sample is put.
func FuzzRedactSecrets(f *testing.F) {
	for i, tt := range realFormats {
		f.Add(tt.in, i)
	}
	for _, s := range plainTexts {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		once := reflection.RedactSecrets(s)
		if twice := reflection.RedactSecrets(once); twice != once {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", s, once, twice)
		}
		tt := realFormats[uint(i)%uint(len(realFormats))]
		around := s + " " + tt.in + "\n" + s
		got := reflection.RedactSecrets(around)
		for _, secret := range hiddenParts(tt.in, tt.want) {
			if strings.Contains(got, secret) && !strings.Contains(s, secret) {
				t.Fatalf("%s: %q not hidden in %q:\n%q", tt.format, secret, around, got)
			}
		}
	})
}

// redactedMark is what RedactSecrets puts in place of a secret.
const redactedMark = "[REDACTED]"

// hiddenParts returns the texts of in that want shows as "[REDACTED]" (a bare
// JSON value shows as a quoted "[REDACTED]").
func hiddenParts(in, want string) []string {
	if parts, ok := splitHidden(in, want); ok {
		return parts
	}
	parts, _ := splitHidden(in, strings.ReplaceAll(want, `"`+redactedMark+`"`, redactedMark))
	return parts
}

func splitHidden(in, want string) ([]string, bool) {
	kept := strings.Split(want, redactedMark)
	rest, ok := strings.CutPrefix(in, kept[0])
	if !ok {
		return nil, false
	}
	var hidden []string
	for _, k := range kept[1:] {
		at := len(rest)
		if k != "" {
			if at = strings.Index(rest, k); at < 0 {
				return nil, false
			}
		}
		hidden = append(hidden, rest[:at])
		rest = rest[at+len(k):]
	}
	return hidden, true
}

// redactBenchText is 16 KiB of log lines; withSecrets puts a few secrets in.
func redactBenchText(withSecrets bool) string {
	lines := []string{
		`2026-12-01T10:00:00Z tool=search status=503 msg="Service Unavailable" retry_after=3 request_id=9f1c2d3e-4b5a-6789-abcd-ef0123456789`,
		`{"model":"gpt-4o","usage":{"prompt_tokens":512,"completion_tokens":64,"total_tokens":576},"path":"/v1/chat/completions"}`,
		`open /var/lib/app/data/report-2026.csv: permission denied (commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39)`,
		`dial tcp 10.0.12.7:5432: connect: connection refused; token count: 512; the session expired at 10:02`,
	}
	secrets := []string{
		`Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc_DEF-ghi`,
		`DATABASE_PASSWORD=hunter2 OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z`,
		`"{\"password\":\"s3cr3t\",\"user\":\"bob\"}" postgres://app:s3cr3t@db:5432/x`,
	}
	var b strings.Builder
	for i := 0; b.Len() < 16<<10; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
		if withSecrets && i%8 == 7 {
			b.WriteString(secrets[(i/8)%len(secrets)])
			b.WriteByte('\n')
		}
	}
	return b.String()[:16<<10]
}

// BenchmarkRedactSecrets: 16 KiB of log text, without and with secrets.
func BenchmarkRedactSecrets(b *testing.B) {
	for _, tc := range []struct {
		name    string
		secrets bool
	}{{"text=plain-16KiB", false}, {"text=secrets-16KiB", true}} {
		s := redactBenchText(tc.secrets)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				sinkRedacted = reflection.RedactSecrets(s)
			}
		})
	}
}

var sinkRedacted string

// BenchmarkRedactSecretsWorstCase: texts made of what makes a scanner look
// back or ahead, at 16 and 256 KiB; time per byte stays flat (linear).
func BenchmarkRedactSecretsWorstCase(b *testing.B) {
	units := map[string]string{
		"fields":        "token=",
		"unclosed":      `pwd:"/ "password":"`,
		"authorization": "Authorization: Bearer [REDACTED] ",
		"escapes":       `\\\"password\\\":`,
		"urls":          "://a:b",
		"keys":          "-----BEGIN PRIVATE KEY-----",
		"literals":      "Q~-us:AA.atlasv1.@tcp(",
		"tokens":        "sk-ghp_eyJAKIA",
	}
	for _, name := range []string{"fields", "unclosed", "authorization", "escapes", "urls", "keys", "literals", "tokens"} {
		for _, size := range []int{16 << 10, 256 << 10} {
			s := strings.Repeat(units[name], size/len(units[name])+1)[:size]
			b.Run("text="+name+"/size="+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					sinkRedacted = reflection.RedactSecrets(s)
				}
			})
		}
	}
}
