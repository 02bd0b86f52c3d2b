package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loopctl-go/reflection"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxAnswerBytes bounds the model output that parseAnswer looks at.
const maxAnswerBytes = 1 << 20

// maxObjectStarts bounds how many '{' in prose parseAnswer tries as the start
// of the answer, so a hostile answer cannot make it quadratic.
const maxObjectStarts = 16

var (
	answerSchemaOnce sync.Once
	answerSchema     *jsonschema.Schema
	answerSchemaErr  error
)

// compiledResponseSchema compiles ResponseSchema once per process.
func compiledResponseSchema() (*jsonschema.Schema, error) {
	answerSchemaOnce.Do(func() {
		answerSchema, answerSchemaErr = compileSchema("mem:///"+SchemaName+".json", responseSchema)
	})
	return answerSchema, answerSchemaErr
}

// wireAnswer and wireCorrection are the answer's shape on the wire: the
// corrected input is a string holding a JSON object.
type wireAnswer struct {
	IsRecoverable bool                `json:"is_recoverable"`
	RootCause     string              `json:"root_cause"`
	Severity      reflection.Severity `json:"severity"`
	Correction    *wireCorrection     `json:"correction"`
	Context       string              `json:"context"`
}

type wireCorrection struct {
	Type            reflection.CorrectionType `json:"correction_type"`
	Description     string                    `json:"description"`
	ModifiedInput   *string                   `json:"modified_input"`
	AlternativeTool *string                   `json:"alternative_tool"`
	Guidance        *string                   `json:"guidance"`
}

// parseAnswer turns the model's text into an analysis. It finds the JSON
// object (the whole text, a fenced block, or an object inside prose), checks
// it against ResponseSchema and decodes it. Any failure wraps
// reflection.ErrInternal.
func parseAnswer(text []byte) (reflection.FailureAnalysis, error) {
	if len(text) > maxAnswerBytes {
		return reflection.FailureAnalysis{}, internal(fmt.Sprintf("answer is %d bytes, more than %d", len(text), maxAnswerBytes), nil)
	}
	obj := findObject(text)
	if obj == nil {
		return reflection.FailureAnalysis{}, internal("answer holds no JSON object", nil)
	}
	sch, err := compiledResponseSchema()
	if err != nil {
		return reflection.FailureAnalysis{}, internal("response schema does not compile", err)
	}
	if err := validateJSON(sch, obj); err != nil {
		return reflection.FailureAnalysis{}, internal("answer does not match the "+SchemaName+" schema", err)
	}
	var w wireAnswer
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return reflection.FailureAnalysis{}, internal("decode answer", err)
	}
	a := reflection.FailureAnalysis{
		IsRecoverable: w.IsRecoverable,
		RootCause:     w.RootCause,
		Severity:      w.Severity,
		Context:       w.Context,
	}
	if c := w.Correction; c != nil {
		a.Correction = &reflection.Correction{
			Type:            c.Type,
			Description:     c.Description,
			AlternativeTool: deref(c.AlternativeTool),
			Guidance:        deref(c.Guidance),
		}
		if c.ModifiedInput != nil {
			in, err := objectFromString(*c.ModifiedInput)
			if err != nil {
				return reflection.FailureAnalysis{}, internal("modified_input", err)
			}
			a.Correction.ModifiedInput = in
		}
	}
	return a, nil
}

// findObject returns the JSON object in text: the whole text when it is one,
// else the first fenced block that is one, else the first object that starts
// at a '{' in the prose (and runs to its matching '}'). It returns nil when
// there is none.
func findObject(text []byte) []byte {
	text = bytes.TrimSpace(text)
	if isObject(text) {
		return text
	}
	if body := fenced(text); body != nil {
		return body
	}
	rest, tries := text, 0
	for tries < maxObjectStarts {
		i := bytes.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		rest = rest[i:]
		var raw json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&raw); err == nil {
			return raw
		}
		rest = rest[1:]
		tries++
	}
	return nil
}

var fence = []byte("```")

// fenced returns the body of the first ``` block in text that is a JSON
// object, or nil. The language tag after the opening fence (json, JSON, …) is
// skipped.
func fenced(text []byte) []byte {
	for range maxObjectStarts {
		start := bytes.Index(text, fence)
		if start < 0 {
			return nil
		}
		text = text[start+len(fence):]
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 && !bytes.ContainsAny(text[:nl], "{}") {
			text = text[nl+1:] // drop the language tag line
		}
		end := bytes.Index(text, fence)
		if end < 0 {
			return nil
		}
		if body := bytes.TrimSpace(text[:end]); isObject(body) {
			return body
		}
		text = text[end+len(fence):]
	}
	return nil
}

// isObject reports whether b is exactly one JSON object.
func isObject(b []byte) bool {
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// errNotJSONObject is the cause when modified_input does not hold a JSON object.
var errNotJSONObject = errors.New("not a JSON object")

// objectFromString decodes the text of modified_input: it must hold one JSON
// object, which is returned compacted.
func objectFromString(s string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(s))
	if !isObject(b) {
		return nil, errNotJSONObject
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// validateJSON checks the JSON document doc against sch. A panic inside the
// validator is recovered and returned as an error.
func validateJSON(sch *jsonschema.Schema, doc []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("validator panicked: %v", p)
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return sch.Validate(v)
}
