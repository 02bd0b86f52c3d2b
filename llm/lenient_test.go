package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// objectFix is an answer whose modified_input is written as a JSON object,
// as small models in JSON mode often do, not as a string holding one.
func objectFix(input string) string {
	return answer(true, "low", corr("input_fix", json.RawMessage(input), nil, nil))
}

func TestLenientFormatsAcceptAnObjectInput(t *testing.T) {
	for _, format := range []llm.ResponseFormat{llm.ResponseFormatJSONObject, llm.ResponseFormatNone} {
		t.Run(map[llm.ResponseFormat]string{llm.ResponseFormatJSONObject: "json_object", llm.ResponseFormatNone: "none"}[format], func(t *testing.T) {
			t.Run("accepted, compacted, key order kept", func(t *testing.T) {
				f := readFailure()
				f.Schema.InputSchema = json.RawMessage(`{"type":"object","required":["path"]}`)
				_, client := answering(t, objectFix(`{ "path" : "docs/notes.md", "depth": 2, "a": [1, 2] }`))
				got, err := llm.New(client, llm.WithResponseFormat(format)).Analyze(context.Background(), f)
				require.NoError(t, err)
				require.NotNil(t, got.Correction)
				assert.Equal(t, reflection.InputFix, got.Correction.Type)
				assert.Equal(t, `{"path":"docs/notes.md","depth":2,"a":[1,2]}`, string(got.Correction.ModifiedInput))
			})
			t.Run("checked against the tool's schema like any InputFix", func(t *testing.T) {
				srv, client := replies(t, objectFix(`{"file":"docs/notes.md"}`), objectFix(`{"path":"docs/notes.md"}`))
				got, err := llm.New(client, llm.WithResponseFormat(format)).Analyze(context.Background(), readFailure())
				require.NoError(t, err)
				assert.Equal(t, `{"path":"docs/notes.md"}`, string(got.Correction.ModifiedInput))
				assert.Equal(t, 2, srv.requests(), "the first object failed the schema and was repaired")
				assert.Contains(t, srv.messagesAt(1)[3][1], "does not match the input schema of tool")
			})
			t.Run("a string holding an object still works", func(t *testing.T) {
				_, client := answering(t, goodFix)
				got, err := llm.New(client, llm.WithResponseFormat(format)).Analyze(context.Background(), readFailure())
				require.NoError(t, err)
				assert.Equal(t, `{"path":"docs/notes.md"}`, string(got.Correction.ModifiedInput))
			})
			t.Run("an array is still unusable", func(t *testing.T) {
				_, client := answering(t, objectFix(`["docs/notes.md"]`))
				_, err := llm.New(client, llm.WithResponseFormat(format)).Analyze(context.Background(), readFailure())
				requireInternal(t, err)
				assert.Contains(t, err.Error(), "at /correction")
			})
		})
	}
}

func TestStrictFormatRefusesAnObjectInput(t *testing.T) {
	srv, client := answering(t, objectFix(`{"path":"docs/notes.md"}`))
	_, err := llm.New(client).Analyze(context.Background(), readFailure())
	requireInternal(t, err)
	assert.Contains(t, err.Error(), "does not match the failure_analysis schema")
	assert.Equal(t, 2, srv.requests())
}
