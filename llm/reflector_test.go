package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const readFileSchema = `{
  "type": "object",
  "properties": {"path": {"type": "string", "minLength": 1}},
  "required": ["path"],
  "additionalProperties": false
}`

// readFailure is a failed read_file call with a known schema.
func readFailure() reflection.Failure {
	return reflection.Failure{
		Error:       "open doc/notes.md: no such file or directory",
		Tool:        "read_file",
		Input:       json.RawMessage(`{ "path": "doc/notes.md" }`),
		Schema:      &reflection.ToolSchema{Name: "read_file", InputSchema: json.RawMessage(readFileSchema)},
		Task:        "summarise the notes",
		Attempt:     0,
		MaxAttempts: 6,
	}
}

func requireInternal(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, reflection.ErrInternal)
	require.True(t, strings.HasPrefix(err.Error(), "llm: "), "error %q lacks the llm: prefix", err)
}

func TestAnalyzeSendsOneStrictRequest(t *testing.T) {
	srv, client := answering(t, answer(false, "medium", nil))
	f := readFailure()

	_, err := llm.New(client).Analyze(context.Background(), f)
	require.NoError(t, err)
	require.Equal(t, 1, srv.requests())

	req := srv.lastRequest()
	assert.Equal(t, openai.GPT4oMini, req["model"])
	assert.NotContains(t, req, "temperature")
	assert.NotContains(t, req, "max_completion_tokens")
	assert.Equal(t, []any{
		map[string]any{"role": "system", "content": llm.DefaultSystemPrompt},
		map[string]any{"role": "user", "content": llm.UserMessage(f)},
	}, req["messages"])

	format, ok := req["response_format"].(map[string]any)
	require.True(t, ok, "response_format missing: %v", req)
	assert.Equal(t, "json_schema", format["type"])
	js, ok := format["json_schema"].(map[string]any)
	require.True(t, ok, "json_schema missing: %v", format)
	assert.Equal(t, llm.SchemaName, js["name"])
	assert.Equal(t, true, js["strict"])
	sent, err := json.Marshal(js["schema"])
	require.NoError(t, err)
	assert.JSONEq(t, string(llm.ResponseSchema()), string(sent))
}

func TestAnalyzeRequestOptions(t *testing.T) {
	srv, client := answering(t, answer(false, "low", nil))
	r := llm.New(client,
		llm.WithModel("llama3.2"),
		llm.WithSystemPrompt("You are terse."),
		llm.WithTemperature(0.25),
		llm.WithMaxTokens(300),
		nil, // a nil option is ignored
	)
	_, err := r.Analyze(context.Background(), readFailure())
	require.NoError(t, err)

	req := srv.lastRequest()
	assert.Equal(t, "llama3.2", req["model"])
	assert.InDelta(t, 0.25, req["temperature"], 1e-6)
	assert.Equal(t, float64(300), req["max_completion_tokens"])
	msgs := req["messages"].([]any)
	assert.Equal(t, "You are terse.", msgs[0].(map[string]any)["content"])
}

func TestOptionsWithInvalidArgumentsKeepDefaults(t *testing.T) {
	srv, client := answering(t, answer(false, "low", nil))
	r := llm.New(client,
		llm.WithModel(""),
		llm.WithSystemPrompt(""),
		llm.WithTemperature(-1),
		llm.WithMaxTokens(-5),
		llm.WithRequestTimeout(-time.Second),
		llm.WithMaxErrorBytes(0),
		llm.WithMaxInputBytes(-1),
		llm.WithRedactor(nil),
		llm.WithResponseFormat(llm.ResponseFormat(42)),
	)
	_, err := r.Analyze(context.Background(), readFailure())
	require.NoError(t, err)

	req := srv.lastRequest()
	assert.Equal(t, openai.GPT4oMini, req["model"])
	assert.NotContains(t, req, "temperature")
	assert.NotContains(t, req, "max_completion_tokens")
	assert.Equal(t, llm.DefaultSystemPrompt, req["messages"].([]any)[0].(map[string]any)["content"])
	assert.Equal(t, "json_schema", req["response_format"].(map[string]any)["type"])
}

func TestAnalyzeDecodesEachCorrectionType(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   reflection.FailureAnalysis
	}{
		{
			name:   "input fix",
			answer: answer(true, "medium", corr("input_fix", `{"path": "docs/notes.md"}`, nil, nil)),
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the path does not exist", Severity: reflection.SeverityMedium,
				Correction: &reflection.Correction{Type: reflection.InputFix, Description: "fix it", ModifiedInput: json.RawMessage(`{"path":"docs/notes.md"}`)}},
		},
		{
			name:   "tool change",
			answer: answer(true, "low", corr("tool_change", nil, "list_dir", nil)),
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the path does not exist", Severity: reflection.SeverityLow,
				Correction: &reflection.Correction{Type: reflection.ToolChange, Description: "fix it", AlternativeTool: "list_dir"}},
		},
		{
			name:   "prerequisite fix",
			answer: answer(true, "medium", corr("prerequisite_fix", nil, nil, "create the directory first")),
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the path does not exist", Severity: reflection.SeverityMedium,
				Correction: &reflection.Correction{Type: reflection.PrerequisiteFix, Description: "fix it", Guidance: "create the directory first"}},
		},
		{
			name:   "approach change",
			answer: answer(true, "high", corr("approach_change", nil, nil, "search for the file instead")),
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the path does not exist", Severity: reflection.SeverityHigh,
				Correction: &reflection.Correction{Type: reflection.ApproachChange, Description: "fix it", Guidance: "search for the file instead"}},
		},
		{
			name:   "escalate",
			answer: answer(false, "critical", corr("escalate", nil, nil, "ask the operator")),
			want: reflection.FailureAnalysis{IsRecoverable: false, RootCause: "the path does not exist", Severity: reflection.SeverityCritical,
				Correction: &reflection.Correction{Type: reflection.Escalate, Description: "fix it", Guidance: "ask the operator"}},
		},
		{
			name:   "null correction",
			answer: answer(false, "medium", nil),
			want:   reflection.FailureAnalysis{IsRecoverable: false, RootCause: "the path does not exist", Severity: reflection.SeverityMedium},
		},
		{
			name:   "input fix with a schema-conforming object and extra spaces",
			answer: answer(true, "low", corr("input_fix", "  {\n \"path\" : \"a\" }  ", nil, nil)),
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the path does not exist", Severity: reflection.SeverityLow,
				Correction: &reflection.Correction{Type: reflection.InputFix, Description: "fix it", ModifiedInput: json.RawMessage(`{"path":"a"}`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, tt.answer)
			got, err := llm.New(client).Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAnalyzeFindsJSONInProseAndFences(t *testing.T) {
	good := answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil))
	tests := []struct {
		name    string
		content string
	}{
		{"bare with whitespace", "\n\t" + good + "\n"},
		{"json fence", "```json\n" + good + "\n```"},
		{"plain fence", "Here it is:\n```\n" + good + "\n```\nGood luck."},
		{"fence after a non-JSON fence", "```text\nnot json\n```\n```json\n" + good + "\n```"},
		{"prose", "Sure! The analysis is " + good + " Let me know if you need more."},
		{"prose with braces before", "I think {this} matters. " + good},
		{"prose with braces after", good + " and then {more}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, tt.content)
			got, err := llm.New(client).Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			require.NotNil(t, got.Correction)
			assert.Equal(t, reflection.InputFix, got.Correction.Type)
			assert.JSONEq(t, `{"path":"docs/notes.md"}`, string(got.Correction.ModifiedInput))
		})
	}
}

func TestAnalyzeRejectsBadAnswers(t *testing.T) {
	withKey := func(key string, v any) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(answer(false, "low", nil)), &m)
		if v == nil {
			delete(m, key)
		} else {
			m[key] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	extraInCorrection := corr("guidance_only", nil, nil, nil)
	extraInCorrection["correction_type"] = "escalate"
	extraInCorrection["confidence"] = 0.9

	tests := []struct {
		name    string
		content string
	}{
		{"empty", ""},
		{"not JSON", "I could not analyse this failure."},
		{"JSON array", `[1,2,3]`},
		{"truncated JSON", answer(false, "low", nil)[:40]},
		{"wrong severity enum", answer(false, "severe", nil)},
		{"severity in upper case", answer(false, "High", nil)},
		{"wrong correction type enum", answer(true, "low", corr("retry", nil, nil, nil))},
		{"missing field", withKey("root_cause", nil)},
		{"extra field", withKey("confidence", 0.8)},
		{"wrong type", withKey("is_recoverable", "yes")},
		{"extra field in correction", answer(true, "low", extraInCorrection)},
		{"correction missing modified_input", answer(true, "low", map[string]any{
			"correction_type": "escalate", "description": "x", "alternative_tool": nil, "guidance": nil,
		})},
		{"modified_input not JSON", answer(true, "low", corr("input_fix", "path=docs/notes.md", nil, nil))},
		{"modified_input a JSON array", answer(true, "low", corr("input_fix", `["docs/notes.md"]`, nil, nil))},
		{"modified_input a JSON string", answer(true, "low", corr("input_fix", `"docs/notes.md"`, nil, nil))},
		{"modified_input empty", answer(true, "low", corr("input_fix", "", nil, nil))},
		{"modified_input two objects", answer(true, "low", corr("input_fix", `{"path":"a"} {"path":"b"}`, nil, nil))},
		{"modified_input an object, not a string", answer(true, "low", corr("input_fix", map[string]any{"path": "a"}, nil, nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, tt.content)
			got, err := llm.New(client).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			assert.Zero(t, got)
		})
	}
}

func TestAnalyzeAPIErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"server error", http.StatusInternalServerError, apiError("The server had an error", "server_error")},
		{"rate limited", http.StatusTooManyRequests, apiError("Rate limit reached for gpt-4o-mini", "requests")},
		{"bad request", http.StatusBadRequest, apiError("Invalid schema for response_format", "invalid_request_error")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := newChatServer(t, func(int) (int, string) { return tt.status, tt.body })
			_, err := llm.New(client).Analyze(context.Background(), readFailure())
			requireInternal(t, err)
			var apiErr *openai.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.HTTPStatusCode)
			assert.Equal(t, 1, srv.requests(), "the reflector must not retry by itself")
		})
	}
}

func TestAnalyzeRefusalAndEmptyChoices(t *testing.T) {
	t.Run("refusal", func(t *testing.T) {
		_, client := newChatServer(t, func(int) (int, string) { return http.StatusOK, refusal("I can't help with that.") })
		_, err := llm.New(client).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
		assert.Contains(t, err.Error(), "I can't help with that.")
	})
	t.Run("no choices", func(t *testing.T) {
		_, client := newChatServer(t, func(int) (int, string) {
			return http.StatusOK, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`
		})
		_, err := llm.New(client).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
	})
	t.Run("cut at the token limit", func(t *testing.T) {
		_, client := newChatServer(t, func(int) (int, string) {
			return http.StatusOK, message(map[string]any{"role": "assistant", "content": `{"is_recoverable": tr`}, "length")
		})
		_, err := llm.New(client).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
		assert.Contains(t, err.Error(), "token limit")
	})
}

func TestAnalyzeNilClient(t *testing.T) {
	_, err := llm.New(nil).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
}

func TestAnalyzeRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	_, client := newChatServer(t, func(int) (int, string) {
		<-release
		return http.StatusOK, completion(answer(false, "low", nil))
	})
	_, err := llm.New(client, llm.WithRequestTimeout(20*time.Millisecond)).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestAnalyzeHonoursCanceledContext(t *testing.T) {
	_, client := answering(t, answer(false, "low", nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := llm.New(client).Analyze(ctx, readFailure())
	requireInternal(t, err)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestAnalyzeValidatesInputFixAgainstToolSchema(t *testing.T) {
	nonConforming := answer(true, "low", corr("input_fix", `{"file": "docs/notes.md"}`, nil, nil))
	conforming := answer(true, "low", corr("input_fix", `{"path": "docs/notes.md"}`, nil, nil))
	withSchema := func(schema string) reflection.Failure {
		f := readFailure()
		f.Schema.InputSchema = json.RawMessage(schema)
		return f
	}
	noSchema := readFailure()
	noSchema.Schema = nil

	// A schema that would accept anything if the referenced file were read.
	dir := t.TempDir()
	refFile := filepath.Join(dir, "path.json")
	require.NoError(t, os.WriteFile(refFile, []byte(`{}`), 0o600))
	fileRef := `{"type":"object","properties":{"path":{"$ref":"file://` + filepath.ToSlash(refFile) + `"}}}`
	relRef := `{"type":"object","properties":{"path":{"$ref":"path.json"}}}`
	httpRef := `{"$ref":"https://example.com/schema.json"}`

	tests := []struct {
		name    string
		answer  string
		f       reflection.Failure
		opts    []llm.Option
		wantErr bool
	}{
		{name: "conforming", answer: conforming, f: readFailure()},
		{name: "non-conforming, validation on", answer: nonConforming, f: readFailure(), wantErr: true},
		{name: "non-conforming, validation off", answer: nonConforming, f: readFailure(), opts: []llm.Option{llm.WithSchemaValidation(false)}},
		{name: "non-conforming, no schema", answer: nonConforming, f: noSchema},
		{name: "non-conforming, empty input schema", answer: nonConforming, f: withSchema("")},
		{name: "broken schema: bad keyword type", answer: conforming, f: withSchema(`{"type": 12}`), wantErr: true},
		{name: "broken schema: not JSON", answer: conforming, f: withSchema(`{"type": `), wantErr: true},
		{name: "broken schema: bad pattern", answer: conforming, f: withSchema(`{"properties":{"path":{"pattern":"(["}}}`), wantErr: true},
		{name: "broken schema, validation off", answer: conforming, f: withSchema(`{"type": 12}`), opts: []llm.Option{llm.WithSchemaValidation(false)}},
		{name: "broken schema, no input fix", answer: answer(true, "low", corr("escalate", nil, nil, "ask")), f: withSchema(`{"type": 12}`)},
		{name: "broken schema, input fix without modified_input", answer: answer(true, "low", corr("input_fix", nil, nil, nil)), f: withSchema(`{"type": 12}`)},
		{name: "$ref to a local file", answer: conforming, f: withSchema(fileRef), wantErr: true},
		{name: "relative $ref", answer: conforming, f: withSchema(relRef), wantErr: true},
		{name: "$ref to a URL", answer: conforming, f: withSchema(httpRef), wantErr: true},
		{name: "local $ref inside the schema", answer: conforming,
			f: withSchema(`{"$defs":{"p":{"type":"string"}},"type":"object","properties":{"path":{"$ref":"#/$defs/p"}},"required":["path"]}`)},
		{name: "draft-07 schema", answer: conforming,
			f: withSchema(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["path"]}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := answering(t, tt.answer)
			got, err := llm.New(client, tt.opts...).Analyze(context.Background(), tt.f)
			if tt.wantErr {
				requireInternal(t, err)
				if strings.Contains(tt.name, "$ref") {
					assert.Contains(t, err.Error(), "not loaded")
				}
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got.Correction)
		})
	}
}

func TestAnalyzeResponseFormats(t *testing.T) {
	tests := []struct {
		name       string
		format     llm.ResponseFormat
		wantFormat any // the response_format sent, nil when absent
	}{
		{"json object", llm.ResponseFormatJSONObject, map[string]any{"type": "json_object"}},
		{"none", llm.ResponseFormatNone, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := answering(t, "```json\n"+answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil))+"\n```")
			r := llm.New(client, llm.WithResponseFormat(tt.format))
			got, err := r.Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			require.NotNil(t, got.Correction)

			req := srv.lastRequest()
			if tt.wantFormat == nil {
				assert.NotContains(t, req, "response_format")
			} else {
				assert.Equal(t, tt.wantFormat, req["response_format"])
			}
			system := req["messages"].([]any)[0].(map[string]any)["content"].(string)
			assert.True(t, strings.HasPrefix(system, llm.DefaultSystemPrompt))
			assert.Contains(t, system, string(llm.ResponseSchema()))
		})
	}
	t.Run("same validation", func(t *testing.T) {
		_, client := answering(t, answer(true, "severe", nil))
		_, err := llm.New(client, llm.WithResponseFormat(llm.ResponseFormatNone)).Analyze(context.Background(), readFailure())
		requireInternal(t, err)
	})
}

func TestAnalyzeTruncatesWhatIsSent(t *testing.T) {
	srv, client := answering(t, answer(false, "low", nil))
	f := readFailure()
	f.Error = strings.Repeat("e", 10_000)
	f.Input = json.RawMessage(`{"path": "` + strings.Repeat("p", 10_000) + `"}`)

	_, err := llm.New(client).Analyze(context.Background(), f)
	require.NoError(t, err)
	user := userContent(t, srv)
	assert.Contains(t, user, "\nError: "+strings.Repeat("e", llm.DefaultMaxErrorBytes)+"…[truncated 5904 bytes]\n")
	compactLen := len(`{"path":"`) + 10_000 + len(`"}`)
	assert.Contains(t, user, "…[truncated "+strconv.Itoa(compactLen-llm.DefaultMaxInputBytes)+" bytes]\nSchema: ")
	assert.Less(t, len(user), 9_000)

	_, err = llm.New(client, llm.WithMaxErrorBytes(10), llm.WithMaxInputBytes(12)).Analyze(context.Background(), f)
	require.NoError(t, err)
	user = userContent(t, srv)
	assert.Contains(t, user, "\nInput: {\"path\":\"ppp…[truncated ")
	assert.Contains(t, user, "\nError: eeeeeeeeee…[truncated 9990 bytes]\n")
}

func TestAnalyzeTruncatesOnRuneBoundary(t *testing.T) {
	srv, client := answering(t, answer(false, "low", nil))
	f := readFailure()
	f.Error = "ab" + strings.Repeat("é", 10) // é is two bytes
	_, err := llm.New(client, llm.WithMaxErrorBytes(5)).Analyze(context.Background(), f)
	require.NoError(t, err)
	assert.Contains(t, userContent(t, srv), "\nError: abé…[truncated 18 bytes]\n")
}

func TestAnalyzeRedactsWhatIsSent(t *testing.T) {
	srv, client := answering(t, answer(false, "low", nil))
	const secret = "sk-live-0123456789abcdef"
	f := readFailure()
	f.Error = "401 from upstream with token " + secret
	f.Input = json.RawMessage(`{"path": "docs/notes.md", "token": "` + secret + `"}`)
	f.Task = "deploy using " + secret
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }

	// The secret straddles the error limit: redaction runs first, so no part leaks.
	_, err := llm.New(client, llm.WithRedactor(redact), llm.WithMaxErrorBytes(35)).Analyze(context.Background(), f)
	require.NoError(t, err)

	srv.mu.Lock()
	body := string(srv.bodies[len(srv.bodies)-1])
	srv.mu.Unlock()
	assert.NotContains(t, body, "sk-live")
	user := userContent(t, srv)
	assert.Contains(t, user, `Input: {"path":"docs/notes.md","token":"[REDACTED]"}`)
	assert.Contains(t, user, "Error: 401 from upstream with token [REDAC…[truncated 4 bytes]\n")
	assert.Contains(t, user, "Task: deploy using [REDACTED]")
}

func TestReflectorIsSafeForConcurrentUse(t *testing.T) {
	srv, client := answering(t, answer(true, "low", corr("input_fix", `{"path":"docs/notes.md"}`, nil, nil)))
	r := llm.New(client)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			f := readFailure()
			if i%2 == 1 { // two distinct schemas race in the cache
				f.Schema.InputSchema = json.RawMessage(`{"type":"object","required":["path"]}`)
			}
			_, err := r.Analyze(context.Background(), f)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, 16, srv.requests())
}

func userContent(t *testing.T, srv *chatServer) string {
	t.Helper()
	return srv.lastRequest()["messages"].([]any)[1].(map[string]any)["content"].(string)
}
