package llm

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
)

// BenchmarkCheckInputFix measures the schema check of an InputFix alone,
// with the tool schema already compiled (warm) and compiled on every call
// (cold, a fresh Reflector each time).
func BenchmarkCheckInputFix(b *testing.B) {
	ctx := context.Background()
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","minLength":1},` +
		`"offset":{"type":"integer","minimum":0}},"required":["path"],"additionalProperties":false}`)
	f := reflection.Failure{Tool: "read_file", Schema: &reflection.ToolSchema{Name: "read_file", InputSchema: schema}}
	a := reflection.FailureAnalysis{IsRecoverable: true, Correction: &reflection.Correction{
		Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"docs/notes.md","offset":0}`),
	}}
	b.Run("cache=warm", func(b *testing.B) {
		r := New(nil)
		if p := r.checkInputFix(ctx, f, a); p != nil {
			b.Fatal(p.what)
		}
		b.ReportAllocs()
		for b.Loop() {
			if p := r.checkInputFix(ctx, f, a); p != nil {
				b.Fatal(p.what)
			}
		}
	})
	b.Run("cache=cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p := New(nil).checkInputFix(ctx, f, a); p != nil {
				b.Fatal(p.what)
			}
		}
	})
}

// TestValidateRefusesTextAfterTheValue: encoding/json's decoder stops after
// the first value, and its More reads a stray } after it as the end of an
// enclosing object; the scan refuses any text after the value.
func TestValidateRefusesTextAfterTheValue(t *testing.T) {
	lim := defaultLimits()
	v, err := compileValidator(context.Background(), []byte(`{"type":"object"}`), &lim)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{`{} ]`, `{}}`, `{} {}`} {
		if err := v.validate(context.Background(), []byte(doc), &lim); err == nil {
			t.Errorf("%s validated", doc)
		}
	}
	if err := v.validate(context.Background(), []byte(" {} \n"), &lim); err != nil {
		t.Errorf("white space around the value: %v", err)
	}
}
