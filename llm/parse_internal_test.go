package llm

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync"
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
		a, err := parseAnswer(text)
		if err != nil {
			if !errors.Is(err, reflection.ErrInternal) {
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
	if _, err := parseAnswer(text); !errors.Is(err, reflection.ErrInternal) {
		t.Fatalf("got %v, want ErrInternal", err)
	}
}

func TestSchemaCacheCompilesOnceAndStaysBounded(t *testing.T) {
	c := newSchemaCache(4)
	doc := []byte(`{"type":"object"}`)
	first, err := c.get(doc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.get(doc)
	if first != again {
		t.Error("the same schema was compiled twice")
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() { _, _ = c.get([]byte(`{"minProperties":` + strconv.Itoa(i) + `}`)) })
	}
	wg.Wait()
	if got := c.len(); got > 4 {
		t.Errorf("cache holds %d schemas, want at most 4", got)
	}
}

func TestSchemaCacheKeepsCompileErrors(t *testing.T) {
	c := newSchemaCache(4)
	_, err1 := c.get([]byte(`{"type": 12}`))
	_, err2 := c.get([]byte(`{"type": 12}`))
	if err1 == nil || err1 != err2 {
		t.Fatalf("got %v and %v, want one cached error", err1, err2)
	}
}

func TestValidateRecoversFromPanics(t *testing.T) {
	if err := validateJSON(nil, []byte(`{}`)); err == nil {
		t.Fatal("validating with a nil schema should fail, not panic")
	}
}

// TestSchemaCacheCompilesOnceUnderConcurrency asks for one new schema from
// many goroutines at once: all of them must get the single compiled result.
func TestSchemaCacheCompilesOnceUnderConcurrency(t *testing.T) {
	c := newSchemaCache(4)
	doc := []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	got := make([]any, 32)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			sch, err := c.get(doc)
			if err != nil {
				t.Error(err)
			}
			got[i] = sch
		})
	}
	wg.Wait()
	for i, sch := range got {
		if sch != got[0] {
			t.Fatalf("goroutine %d got another compiled schema: compiled more than once", i)
		}
	}
}
