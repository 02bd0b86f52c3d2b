package reflection_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// sampleReport is a report that uses every field, with inputs that are
// not JSON, not compact, or hold characters the encoder escapes.
func sampleReport(input json.RawMessage, sev reflection.Severity) reflection.Report {
	at := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	fix := reflection.Correction{Type: reflection.InputFix, Description: "fix <it> & go", ModifiedInput: input}
	return reflection.Report{
		Result:  reflection.ToolResult{ID: "c1", Content: "done", IsError: true},
		Outcome: reflection.OutcomeAskedUser,
		Error:   "",
		Attempts: []reflection.Attempt{
			{
				Call:   reflection.ToolCall{ID: "c1", Name: "t", Input: input},
				Result: reflection.ToolResult{ID: "x", Content: "boom", IsError: true},
				Start:  at, End: at.Add(time.Second),
				Failed: true, Failure: "boom", DispatchError: "boom",
				Analysis: &reflection.FailureAnalysis{IsRecoverable: true, RootCause: "r", Severity: sev,
					Correction: &fix, Context: "c", RetryAfter: 3 * time.Second},
				Action:      reflection.Retry{Delay: time.Second},
				Wait:        &reflection.Wait{Delay: 3 * time.Second, Hint: 3 * time.Second},
				Corrections: []reflection.CorrectionRecord{{Correction: fix, Applied: false, Why: "modified_input is not a JSON object"}},
			},
			{
				Call:           reflection.ToolCall{ID: "c1", Name: "t"},
				Failed:         true,
				Failure:        "again",
				ReflectorError: "llm: broke",
				Action:         reflection.AskUser{Prompt: "ok?"},
				Ask:            &reflection.Ask{Prompt: "ok?", Answer: &reflection.Answer{Approve: true, Input: input, Reply: "sure"}},
			},
			{Call: reflection.ToolCall{ID: "c1", Name: "t"}, Failed: true, Action: reflection.Skip{Reason: "s"},
				Ask: &reflection.Ask{Prompt: "p", Error: "asker broke"}},
			{Call: reflection.ToolCall{ID: "c1", Name: "t"}, Failed: true, Action: reflection.Fail{Reason: "f"}},
		},
	}
}

// TestReportJSONRoundTrip: a report survives encoding/json exactly, and so
// does one that was pretty-printed in between.
func TestReportJSONRoundTrip(t *testing.T) {
	inputs := map[string]json.RawMessage{
		"compact object":      json.RawMessage(`{"path":"a","n":[1,2]}`),
		"indented object":     json.RawMessage("{\n  \"path\": \"a\"\n}"),
		"characters escaped":  json.RawMessage(`{"html":"<b>&</b>"}`),
		"not JSON":            json.RawMessage(`not json {`),
		"a JSON string":       json.RawMessage(`"just text"`),
		"null":                json.RawMessage(`null`),
		"absent":              nil,
		"line separator":      json.RawMessage("{\"s\":\"a\u2028b\"}"),
		"escaped unicode key": json.RawMessage(`{"\u00e9":1}`),
	}
	for name, input := range inputs {
		t.Run(name, func(t *testing.T) {
			rep := sampleReport(input, reflection.SeverityHigh)
			for _, encode := range []func(any) ([]byte, error){
				json.Marshal,
				func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "\t") },
			} {
				b, err := encode(rep)
				require.NoError(t, err)
				var back reflection.Report
				require.NoError(t, json.Unmarshal(b, &back), "%s", b)
				assert.Equal(t, rep, back)
			}
		})
	}
}

// TestReportJSONNeverFails: an out-of-range severity or outcome travels as
// its number and comes back.
func TestReportJSONNeverFails(t *testing.T) {
	rep := sampleReport(json.RawMessage(`{}`), reflection.Severity(42))
	rep.Outcome = reflection.Outcome(-3)
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"severity":42`)
	assert.Contains(t, string(b), `"outcome":-3`)
	var back reflection.Report
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, rep, back)

	_, err = json.Marshal(reflection.Report{})
	assert.NoError(t, err, "the zero Report encodes too")
}

// TestReportJSONKeys pins the wire names a log reader relies on.
func TestReportJSONKeys(t *testing.T) {
	b, err := json.Marshal(sampleReport(json.RawMessage(`{"a":1}`), reflection.SeverityLow))
	require.NoError(t, err)
	for _, key := range []string{`"result":{"id":"c1","content":"done","is_error":true}`, `"outcome":"asked_user"`,
		`"call":{"id":"c1","name":"t","input":{"a":1}}`, `"start":"2026-11-30T12:00:00.123456789Z"`,
		`"failed":true`, `"failure":"boom"`, `"dispatch_error":"boom"`, `"severity":"low"`, `"retry_after":3000000000`,
		`"action":{"kind":"retry","delay":1000000000}`, `"wait":{"delay":3000000000,"hint":3000000000}`,
		`"reflector_error":"llm: broke"`, `"ask":{"prompt":"ok?","answer":{"approve":true,"input":{"a":1},"reply":"sure"}}`,
		`"why":"modified_input is not a JSON object"`, `"action":{"kind":"ask_user","prompt":"ok?"}`,
		`"action":{"kind":"skip","reason":"s"}`, `"action":{"kind":"fail","reason":"f"}`} {
		assert.Contains(t, string(b), key)
	}
	b, err = json.Marshal(sampleReport(json.RawMessage(`oops`), reflection.SeverityLow))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"input_text":"oops"`)
	assert.Contains(t, string(b), `"modified_input_text":"oops"`)
}

// TestReportJSONRejects: decoding says what is wrong with a report it
// cannot read.
func TestReportJSONRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown outcome":  `{"outcome":"won","attempts":[]}`,
		"unknown action":   `{"outcome":"failed","attempts":[{"call":{"id":"","name":""},"result":{},"failed":true,"action":{"kind":"pray"}}]}`,
		"unknown severity": `{"outcome":"failed","attempts":[{"call":{"id":"","name":""},"result":{},"failed":true,"analysis":{"severity":"dire"}}]}`,
		"outcome object":   `{"outcome":{},"attempts":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var r reflection.Report
			assert.Error(t, json.Unmarshal([]byte(doc), &r))
		})
	}
}

// TestOutcomeText pins the six words and the errors around them.
func TestOutcomeText(t *testing.T) {
	words := map[reflection.Outcome]string{
		reflection.OutcomeSucceeded: "succeeded", reflection.OutcomeSkipped: "skipped", reflection.OutcomeAskedUser: "asked_user",
		reflection.OutcomeFailed: "failed", reflection.OutcomeExhausted: "exhausted", reflection.OutcomeStopped: "stopped",
	}
	for o, word := range words {
		assert.Equal(t, word, o.String())
		b, err := o.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, word, string(b))
		var back reflection.Outcome
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, o, back)
	}
	assert.Equal(t, "outcome(0)", reflection.Outcome(0).String())
	_, err := reflection.Outcome(7).MarshalText()
	assert.Error(t, err)
	keep := reflection.OutcomeFailed
	assert.Error(t, keep.UnmarshalText([]byte("Succeeded")), "case-sensitive")
	assert.Equal(t, reflection.OutcomeFailed, keep, "left as it was")
}

// FuzzReportJSON: whatever the texts, inputs and times, a report encodes,
// and decodes back to an equal report when its inputs are JSON.
func FuzzReportJSON(f *testing.F) {
	f.Add("c1", `{"a":1}`, "boom", int64(time.Second), 2, int64(1764590400), int64(5), 0)
	f.Add("", `not json`, "", int64(-1), 9, int64(253402300800), int64(0), 3600)
	f.Add("\u2028", "{\"a\":\"<\u2028>\"}", "\xff", int64(0), -1, int64(-62167219201), int64(999999999), 3630)
	f.Fuzz(func(t *testing.T, id, input, text string, delay int64, sev int, sec, nsec int64, offset int) {
		rep := sampleReport(json.RawMessage(input), reflection.Severity(sev))
		rep.Result.ID, rep.Attempts[0].Failure, rep.Attempts[0].Action = id, text, reflection.Retry{Delay: time.Duration(delay)}
		at := time.Unix(sec, nsec).UTC()
		if offset != 0 {
			at = at.In(time.FixedZone("", offset))
		}
		rep.Attempts[1].Start = at
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("encoding failed: %v", err)
		}
		var back reflection.Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		got := back.Attempts[1].Start
		_, wantOffset := at.Zone()
		if _, gotOffset := got.Zone(); !got.Equal(at) || gotOffset != wantOffset {
			t.Fatalf("time %v came back as %v", at, got)
		}
		back.Attempts[1].Start = at // a zone made by time.FixedZone is equal only to itself
		if !json.Valid([]byte(input)) || !utf8.ValidString(id+input+text) {
			return // invalid UTF-8 comes back as U+FFFD: not byte for byte
		}
		if !reflect.DeepEqual(back, rep) {
			t.Fatalf("decoded report differs:\n got %+v\nwant %+v", back, rep)
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != string(b) {
			t.Fatalf("second encoding differs:\n%s\n%s", b, again)
		}
	})
}

// TestReportJSONAnyTime: a time RFC 3339 cannot hold (a year outside 0 to
// 9999, an offset of a day or more) encodes too, and comes back equal.
func TestReportJSONAnyTime(t *testing.T) {
	times := map[string]time.Time{
		"year 10000":           time.Date(10000, 1, 2, 3, 4, 5, 6, time.UTC),
		"year -1":              time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		"year 292277026":       time.Date(292277026, 1, 1, 0, 0, 0, 0, time.UTC),
		"year 9999, in range":  time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		"year 0, in range":     time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		"Unix epoch":           time.Unix(0, 0).UTC(),
		"offset of 25 hours":   time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 25*3600)),
		"offset with seconds":  time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600+30)),
		"year 10000, offset 1": time.Date(10000, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)),
	}
	for name, at := range times {
		t.Run(name, func(t *testing.T) {
			rep := sampleReport(json.RawMessage(`{"a":1}`), reflection.SeverityHigh)
			rep.Attempts[0].Start, rep.Attempts[0].End = at, at.Add(time.Second)
			b, err := json.Marshal(rep)
			require.NoError(t, err)
			var back reflection.Report
			require.NoError(t, json.Unmarshal(b, &back), "%s", b)
			for i, got := range []time.Time{back.Attempts[0].Start, back.Attempts[0].End} {
				want := []time.Time{at, at.Add(time.Second)}[i]
				assert.True(t, want.Equal(got), "got %v, want %v", got, want)
				_, wantOffset := want.Zone()
				_, gotOffset := got.Zone()
				assert.Equal(t, wantOffset, gotOffset)
			}
			if _, offset := at.Zone(); offset == 0 {
				assert.Equal(t, rep, back)
			}
		})
	}
}

// TestReportJSONPointerActions: an action given as a pointer to a variant
// encodes as the variant; a nil one as no action.
func TestReportJSONPointerActions(t *testing.T) {
	tests := []struct {
		action reflection.RecoveryAction
		want   reflection.RecoveryAction
	}{
		{&reflection.Retry{Delay: time.Second}, reflection.Retry{Delay: time.Second}},
		{&reflection.Skip{Reason: "s"}, reflection.Skip{Reason: "s"}},
		{&reflection.AskUser{Prompt: "p"}, reflection.AskUser{Prompt: "p"}},
		{&reflection.Fail{Reason: "f"}, reflection.Fail{Reason: "f"}},
		{(*reflection.Retry)(nil), nil},
	}
	for _, tt := range tests {
		rep := sampleReport(json.RawMessage(`{}`), reflection.SeverityLow)
		rep.Attempts[0].Action = tt.action
		b, err := json.Marshal(rep)
		require.NoError(t, err, "%#v", tt.action)
		var back reflection.Report
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tt.want, back.Attempts[0].Action)
	}
}
