package reflectiontemporal_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// roundTrip encodes v as the payload converter does (encoding/json) and
// decodes it into a new T.
func roundTrip[T any](t *testing.T, v T) (T, []byte) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var back T
	require.NoError(t, json.Unmarshal(b, &back))
	return back, b
}

func TestCallCrossesAsData(t *testing.T) {
	tests := []struct {
		name  string
		input json.RawMessage
		json  string
	}{
		{"an object", json.RawMessage(`{"path":"a.txt"}`), `{"id":"c1","name":"read","input":{"path":"a.txt"}}`},
		{"not JSON", json.RawMessage(`{"path": "a.tx`), `{"id":"c1","name":"read","input_bytes":"eyJwYXRoIjogImEudHg="}`},
		{"no input", nil, `{"id":"c1","name":"read"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := reflection.ToolCall{ID: "c1", Name: "read", Input: tc.input}
			back, b := roundTrip(t, rt.NewCall(call))
			assert.JSONEq(t, tc.json, string(b))
			assert.Equal(t, call, back.Rebuild())
		})
	}
}

func TestFailureCrossesAsData(t *testing.T) {
	f := reflection.Failure{
		Error: "open /srv/a: permission denied",
		Tool:  "read",
		Input: json.RawMessage(`{"path":`),
		Schema: &reflection.ToolSchema{Name: "read", Description: "reads a file",
			InputSchema: json.RawMessage(`{"type":"object"`)},
		Task:        "summarise",
		Attempt:     2,
		MaxAttempts: 6,
		Err:         &os.PathError{Op: "open", Path: "/srv/a", Err: os.ErrPermission},
	}
	back, b := roundTrip(t, rt.NewFailure(f))
	got := back.Rebuild()

	assert.JSONEq(t, `{"error":"open /srv/a: permission denied","tool":"read","input_bytes":"eyJwYXRoIjo=",
		"schema":{"name":"read","description":"reads a file","input_schema_bytes":"eyJ0eXBlIjoib2JqZWN0Ig=="},
		"task":"summarise","attempt":2,"max_attempts":6,
		"err":{"text":"open /srv/a: permission denied","is":["permission"]}}`, string(b))
	assert.ErrorIs(t, got.Err, os.ErrPermission)
	assert.EqualError(t, got.Err, f.Err.Error())
	got.Err, f.Err = nil, nil
	assert.Equal(t, f, got, "everything else crosses unchanged, invalid JSON included")

	// A failure that was a result with IsError has no error on either side.
	plain := reflection.Failure{Error: "no such file", Tool: "read", Attempt: 0, MaxAttempts: 6}
	back, _ = roundTrip(t, rt.NewFailure(plain))
	assert.Equal(t, plain, back.Rebuild())
}

func TestAnalysisCrossesAsFailureAnalysisJSON(t *testing.T) {
	a := reflection.FailureAnalysis{
		IsRecoverable: true, RootCause: "rate limited", Severity: reflection.SeverityMedium,
		Correction: &reflection.Correction{Type: reflection.InputFix, Description: "smaller page",
			ModifiedInput: json.RawMessage(`{"limit":10}`)},
		Context:    "429",
		RetryAfter: 3 * time.Second,
	}
	want, err := json.Marshal(a)
	require.NoError(t, err)
	back, b := roundTrip(t, rt.Analysis{FailureAnalysis: a})
	assert.JSONEq(t, string(want), string(b), "the wire form is FailureAnalysis' own JSON")
	assert.Contains(t, string(b), `"retry_after":3000000000`)
	assert.Equal(t, a, back.FailureAnalysis)

}

// TestAnalysisCrossesExactly checks the answers FailureAnalysis' own JSON
// cannot carry: they reach the workflow as the Reflector gave them.
func TestAnalysisCrossesExactly(t *testing.T) {
	base := func() reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "odd", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.InputFix, Description: "d", ModifiedInput: json.RawMessage(`{"a":1}`),
				AlternativeTool: "t", Guidance: "g"},
			Context: "c", RetryAfter: time.Second}
	}
	tests := []struct {
		name   string
		change func(a *reflection.FailureAnalysis)
	}{
		{"a modified input that is not JSON", func(a *reflection.FailureAnalysis) { a.Correction.ModifiedInput = json.RawMessage(`{"a":`) }},
		{"a severity out of range", func(a *reflection.FailureAnalysis) { a.Severity = 9 }},
		{"a negative severity", func(a *reflection.FailureAnalysis) { a.Severity = -1 }},
		{"an unknown correction type", func(a *reflection.FailureAnalysis) { a.Correction.Type = "retry_later" }},
		{"no correction type", func(a *reflection.FailureAnalysis) { a.Correction.Type = "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := base()
			tc.change(&a)
			back, b := roundTrip(t, rt.Analysis{FailureAnalysis: a})
			assert.Equal(t, a, back.FailureAnalysis)
			assert.Contains(t, string(b), `"exact":`)
			var plain reflection.FailureAnalysis
			assert.NoError(t, json.Unmarshal(b, &plain), "the neutralised form is still a FailureAnalysis")
		})
	}
}

func TestQuestionCrossesAsData(t *testing.T) {
	q := reflection.Question{
		Call: reflection.ToolCall{ID: "c1", Name: "delete_branch", Input: json.RawMessage(`{"branch":"main"}`)},
		Failure: reflection.Failure{Error: "403 forbidden", Tool: "delete_branch", Input: json.RawMessage(`{"branch":"main"}`),
			Attempt: 1, MaxAttempts: 6, Err: awsStyleError{status: 403}},
		Analysis: permissionDenied,
		Prompt:   "delete the protected branch?",

		Dispatches: 2, MayHaveActed: 1,
	}
	back, _ := roundTrip(t, rt.NewQuestion(q))
	got := back.Rebuild()

	var coded interface{ StatusCode() int }
	require.ErrorAs(t, got.Failure.Err, &coded)
	assert.Equal(t, 403, coded.StatusCode())
	assert.EqualError(t, got.Failure.Err, "api error: status 403")
	got.Failure.Err, q.Failure.Err = nil, nil
	assert.Equal(t, q, got)
}
