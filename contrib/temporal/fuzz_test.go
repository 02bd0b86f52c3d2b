package reflectiontemporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// FuzzAnalysisCrossesTemporal checks that whatever a Reflector answers (a
// model's output, often) reaches the workflow as it was: texts equal, a
// corrected input equal as JSON when it is JSON and byte for byte when it
// is not, odd severities and correction types kept.
func FuzzAnalysisCrossesTemporal(f *testing.F) {
	f.Add(true, "rate limited", 1, "input_fix", []byte(`{"limit": 10}`), "guidance", int64(time.Second), true)
	f.Add(false, "", 9, "bogus", []byte(`{"a":`), "", int64(-5), true)
	f.Add(true, "x", -1, "", []byte(nil), "g", int64(0), false)
	f.Add(true, "<html>", 2, "tool_change", []byte(`"<b>"`), "&", int64(1<<62), true)
	f.Fuzz(func(t *testing.T, recoverable bool, cause string, severity int, ctype string, input []byte,
		guidance string, after int64, corrected bool) {
		a := reflection.FailureAnalysis{
			IsRecoverable: recoverable,
			RootCause:     strings.ToValidUTF8(cause, "?"),
			Severity:      reflection.Severity(severity),
			Context:       strings.ToValidUTF8(guidance, "?"),
			RetryAfter:    time.Duration(after),
		}
		if corrected {
			a.Correction = &reflection.Correction{
				Type:          reflection.CorrectionType(strings.ToValidUTF8(ctype, "?")),
				ModifiedInput: input,
				Guidance:      strings.ToValidUTF8(guidance, "?"),
			}
		}
		back, _ := roundTrip(t, rt.Analysis{FailureAnalysis: a})
		got := back.FailureAnalysis
		if a.Correction != nil {
			require.NotNil(t, got.Correction)
			sameInput(t, a.Correction.ModifiedInput, got.Correction.ModifiedInput)
			a.Correction.ModifiedInput, got.Correction.ModifiedInput = nil, nil
		}
		assert.Equal(t, a, got)
	})
}

// FuzzCallCrossesTemporal checks that a call's input, JSON or not, reaches
// the tool as it was.
func FuzzCallCrossesTemporal(f *testing.F) {
	f.Add([]byte(`{"path": "a.txt"}`))
	f.Add([]byte(`{"q": "unterminated`))
	f.Add([]byte("\xff\xfe"))
	f.Add([]byte(`  [1, 2]  `))
	f.Fuzz(func(t *testing.T, input []byte) {
		call := reflection.ToolCall{ID: "c", Name: "t", Input: input}
		back, _ := roundTrip(t, rt.NewCall(call))
		got := back.Rebuild()
		sameInput(t, call.Input, got.Input)
	})
}

// sameInput asserts that got is want after a trip through JSON: equal JSON
// values when want is valid JSON (the encoder may compact and escape it),
// the same bytes otherwise, and nothing for nothing.
func sameInput(t *testing.T, want, got json.RawMessage) {
	t.Helper()
	switch {
	case len(want) == 0:
		assert.Empty(t, got)
	case json.Valid(want):
		assert.Equal(t, decodeValue(t, want), decodeValue(t, got))
	default:
		assert.Equal(t, string(want), string(got))
	}
}

func decodeValue(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// FuzzApprovedInput sends an approval with any JSON input (what a human or
// a client typed) to a call that asks: the Update's validator accepts it
// exactly when Driver.Run's machine would apply it, so an accepted input is
// what the retry runs with, and history never records an approval whose
// input is dropped.
func FuzzApprovedInput(f *testing.F) {
	f.Add([]byte(`{"path":"b.txt"}`))
	f.Add([]byte(`{"path":"b.txt","path":"c.txt"}`))
	f.Add([]byte(`{"path":"b.txt","Path":"c.txt"}`))
	f.Add([]byte(`["b.txt"]`))
	f.Add([]byte(`{"path":`))
	f.Add([]byte(" {\"a\":{\"b\":[1,2,{\"c\":null}]}} "))
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) == 0 || !json.Valid(input) {
			// No input is an approval that retries the call unchanged; an
			// input that is not JSON cannot be encoded as the Update's
			// argument, so it never leaves the client.
			return
		}
		ans := reflection.Answer{Approve: true, Input: input}
		outcomes := []reflectiontest.Outcome{reflectiontest.Error(os.ErrPermission), reflectiontest.Succeed("contents")}

		// Driver.Run, asking an Asker that gives the same answer.
		tool := reflectiontest.NewTool(outcomes...)
		d := reflection.NewDriver(reflection.WithReflector(reflectiontest.NewReflector(permissionDenied)), reflection.WithAsker(asker([]reflection.Answer{ans})))
		want, err := d.RunWithReport(context.Background(), readCall, tool.Dispatch)
		require.NoError(t, err)
		require.NotEmpty(t, want.Attempts[0].Corrections)
		applies := want.Attempts[0].Corrections[0].Applied

		// Run, with the answer sent as the Update while the call asks.
		tool = reflectiontest.NewTool(outcomes...)
		h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(permissionDenied))
		var sent *update
		h.at(time.Minute, func() { sent = h.answer(readCall.ID, ans) })
		got := h.run(nil, readCall, rt.WithAsk(time.Hour))
		require.NotNil(t, sent)
		require.NoError(t, got.err)

		if !applies {
			assert.ErrorIs(t, sent.rejected, reflection.ErrAnswerInput, "the validator accepted an input the machine drops")
			assert.False(t, sent.accepted)
			assert.Len(t, tool.Calls(), 1, "the question timed out")
			return
		}
		require.NoError(t, sent.err(), "the validator rejected an input the machine applies")
		require.Len(t, tool.Calls(), 2)
		// The payload converter may compact the input: it is the same JSON.
		sameInput(t, input, tool.Calls()[1].Input)
		assert.Equal(t, want.Outcome, got.rep.Outcome)
		assert.Equal(t, want.Reason, got.rep.Reason)
		assert.True(t, got.rep.Attempts[0].Corrections[0].Applied)
	})
}
