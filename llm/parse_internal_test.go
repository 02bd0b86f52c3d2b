package llm

import (
	"strings"

	"encoding/json"
	"errors"
	"github.com/stretchr/testify/assert"
	"testing"

	"github.com/loopctl-go/reflection"
)

// FuzzParseAnswer feeds the answer parser arbitrary model output: it must
// return an analysis or an error wrapping ErrInternal, never panic, and every
// analysis it returns must be well formed.
func FuzzParseAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"is_recoverable":true,"root_cause":"x","severity":"low","correction":null,"context":""}`,
		`{"is_recoverable":true,"root_cause":"x","severity":"high","correction":{"correction_type":"input_fix","description":"d","modified_input":"{\"path\":\"a\"}","alternative_tool":null,"guidance":null},"context":""}`,
		"```json\n{\"is_recoverable\":false,\"root_cause\":\"x\",\"severity\":\"medium\",\"correction\":null,\"context\":\"\"}\n```",
		`Sure: {"is_recoverable":false,"root_cause":"x","severity":"critical","correction":null,"context":"c"} bye`,
		`{"is_recoverable":true,"root_cause":"x","severity":"low","correction":{"correction_type":"input_fix","description":"d","modified_input":"[1]","alternative_tool":null,"guidance":null},"context":""}`,
		`{{{{{{`, "```", "", `[]`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		a, p := parseAnswer(text, len(text)%2 == 1)
		if p != nil {
			if p.what == "" {
				t.Fatal("a problem without a statement")
			}
			if err := New(nil).answerError(p, string(text), false); !errors.Is(err, reflection.ErrInternal) {
				t.Fatalf("error %v does not wrap ErrInternal", err)
			}
			return
		}
		if _, err := a.Severity.MarshalText(); err != nil {
			t.Fatalf("severity out of range: %v", a.Severity)
		}
		if c := a.Correction; c != nil {
			var typ reflection.CorrectionType
			if err := typ.UnmarshalText([]byte(c.Type)); err != nil {
				t.Fatalf("bad correction type %q", c.Type)
			}
			if c.ModifiedInput != nil {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(c.ModifiedInput, &obj); err != nil || obj == nil {
					t.Fatalf("modified input %q is not a JSON object", c.ModifiedInput)
				}
			}
		}
	})
}

func TestParseAnswerRejectsHugeAnswers(t *testing.T) {
	text := make([]byte, maxAnswerBytes+1)
	if _, p := parseAnswer(text, false); p == nil || p.fix == "" {
		t.Fatalf("got %+v, want a repairable problem", p)
	}
}

// TestObjectStartsInProseAreCapped: the 17th '{' is never tried, the 16th is.
func TestObjectStartsInProseAreCapped(t *testing.T) {
	obj := `{"is_recoverable":false}`
	found, tries := findInProse([]byte(strings.Repeat("{x ", maxObjectStarts-1) + obj))
	assert.Equal(t, obj, string(found))
	assert.Equal(t, maxObjectStarts, tries)

	found, tries = findInProse([]byte(strings.Repeat("{x ", maxObjectStarts) + obj))
	assert.Nil(t, found)
	assert.Equal(t, maxObjectStarts, tries)
}

// TestObjectStartsInProseReadTheTextAtMostThrice: starts whose objects never
// close each read to the end of the text; once the failed ones have read it
// twice over, no more is tried (20 such starts here).
func TestObjectStartsInProseReadTheTextAtMostThrice(t *testing.T) {
	text := strings.Repeat(`{"a":`, 20) + `"` + strings.Repeat("b", 100_000)
	found, tries := findInProse([]byte(text))
	assert.Nil(t, found)
	assert.Equal(t, 3, tries)

	obj := `{"is_recoverable":false}`
	found, tries = findInProse([]byte(`Here: {"analysis": ` + obj + ` (I forgot to close it)`))
	assert.Equal(t, obj, string(found), "an object inside one that never closes is found")
	assert.Equal(t, 2, tries)

	found, tries = findInProse([]byte(strings.Repeat("{", 240_000)))
	assert.Nil(t, found)
	assert.Equal(t, maxObjectStarts, tries, "starts that fail at once each cost little")
}
