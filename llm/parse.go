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

// responseSchemas holds ResponseSchema compiled once per process, and its
// lenient variant, which also admits a modified_input written as an object.
var responseSchemas = sync.OnceValues(func() ([2]*jsonschema.Schema, error) {
	strict, err := compileSchema(newCompiler(), "mem:///"+SchemaName+".json", responseSchema)
	if err != nil {
		return [2]*jsonschema.Schema{}, err
	}
	lenient, err := compileSchema(newCompiler(), "mem:///"+SchemaName+"-lenient.json", lenientResponseSchema)
	return [2]*jsonschema.Schema{strict, lenient}, err
})

// problem is what makes an answer unusable, or why it could not be judged.
type problem struct {
	what   string // a short statement, the start of the error
	detail string // the validator's or the decoder's words; may be empty
	cause  error  // kept reachable with errors.As; may be nil
	// fix is what a repair request asks of the model; "" when asking again
	// cannot help (the tool schema is broken, the context ended).
	fix string
}

// parseAnswer turns the model's text into an analysis. It finds the JSON
// object (the whole text, a fenced block, or an object inside prose), checks
// it against ResponseSchema (or its lenient variant) and decodes it.
func parseAnswer(text []byte, lenient bool) (reflection.FailureAnalysis, *problem) {
	if len(text) > maxAnswerBytes {
		return reflection.FailureAnalysis{}, &problem{
			what: fmt.Sprintf("answer is %d bytes, more than %d", len(text), maxAnswerBytes),
			fix:  "it is far too long.",
		}
	}
	obj := findObject(text)
	if obj == nil {
		return reflection.FailureAnalysis{}, &problem{
			what: "answer holds no JSON object",
			fix:  "it holds no JSON object.",
		}
	}
	schemas, err := responseSchemas()
	if err != nil {
		return reflection.FailureAnalysis{}, &problem{what: "response schema does not compile", cause: err}
	}
	sch := schemas[0]
	if lenient {
		sch = schemas[1]
	}
	tree, err := decodeJSON(obj)
	if err == nil {
		err = validateValue(sch, tree, 0)
	}
	if err != nil {
		return reflection.FailureAnalysis{}, &problem{
			what:   "answer does not match the " + SchemaName + " schema",
			detail: describe(err, "", false),
			cause:  err,
			fix:    "it does not match the " + SchemaName + " schema:\n" + describe(err, "", true),
		}
	}
	a, err := fromTree(tree.(map[string]any), obj)
	if err != nil {
		return reflection.FailureAnalysis{}, &problem{
			what:   "modified_input does not hold a JSON object",
			detail: err.Error(),
			cause:  err,
			fix:    "at /correction/modified_input, the corrected input must be a complete JSON object, written as a string.",
		}
	}
	return a, nil
}

// fromTree builds the analysis from the decoded answer, already checked
// against the response schema. obj is the answer's text, read again only for
// a modified_input written as an object.
func fromTree(m map[string]any, obj []byte) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{
		IsRecoverable: m["is_recoverable"] == true,
		RootCause:     str(m["root_cause"]),
		Context:       str(m["context"]),
	}
	if err := a.Severity.UnmarshalText([]byte(str(m["severity"]))); err != nil {
		return reflection.FailureAnalysis{}, err
	}
	c, ok := m["correction"].(map[string]any)
	if !ok {
		return a, nil
	}
	a.Correction = &reflection.Correction{
		Description:     str(c["description"]),
		AlternativeTool: str(c["alternative_tool"]),
		Guidance:        str(c["guidance"]),
	}
	if err := a.Correction.Type.UnmarshalText([]byte(str(c["correction_type"]))); err != nil {
		return reflection.FailureAnalysis{}, err
	}
	switch in := c["modified_input"].(type) {
	case string:
		fixed, err := objectFromString(in)
		if err != nil {
			return reflection.FailureAnalysis{}, err
		}
		a.Correction.ModifiedInput = fixed
	case map[string]any: // the lenient schema's object form
		var raw struct {
			Correction struct {
				ModifiedInput json.RawMessage `json:"modified_input"`
			} `json:"correction"`
		}
		if err := json.Unmarshal(obj, &raw); err != nil {
			return reflection.FailureAnalysis{}, err
		}
		var out bytes.Buffer
		if err := json.Compact(&out, raw.Correction.ModifiedInput); err != nil {
			return reflection.FailureAnalysis{}, err
		}
		a.Correction.ModifiedInput = out.Bytes()
	}
	return a, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// findObject returns the JSON object in text: the whole text when it is one,
// else the first fenced block that is one, else the first object that starts
// at a '{' in the prose (and runs to its matching '}'). It returns nil when
// there is none. Trying the starts in prose reads at most about three times
// the text, however many starts fail.
func findObject(text []byte) []byte {
	text = bytes.TrimSpace(text)
	if isObject(text) {
		return text
	}
	if body := fenced(text); body != nil {
		return body
	}
	obj, _ := findInProse(text)
	return obj
}

// findInProse returns the first JSON object that starts at one of the first
// maxObjectStarts '{' of text, and how many starts it tried. It stops early
// once the failed tries have read twice as many bytes as text holds: an
// object that never closes makes a try read to the end, and so does every
// start inside it.
func findInProse(text []byte) (obj []byte, tries int) {
	rest, budget := text, 2*len(text)
	for tries < maxObjectStarts && budget > 0 {
		i := bytes.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		rest = rest[i:]
		tries++
		var raw json.RawMessage
		err := json.NewDecoder(bytes.NewReader(rest)).Decode(&raw)
		if err == nil {
			return raw, tries
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			budget -= int(syn.Offset)
		} else {
			budget -= len(rest) // read to the end
		}
		rest = rest[1:]
	}
	return nil, tries
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
	out.Grow(len(b))
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
