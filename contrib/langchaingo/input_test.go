package langchaingo_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection/contrib/langchaingo"
)

func TestTextInput(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain", "2 + 3", `{"input":"2 + 3"}`},
		{"empty", "", `{"input":""}`},
		{"quotes and lines", "say \"hi\"\nthen go", `{"input":"say \"hi\"\nthen go"}`},
		{"HTML characters stay readable", "a < b && c > d", `{"input":"a < b && c > d"}`},
		{"not UTF-8 is replaced", "\xff", `{"input":"\ufffd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := langchaingo.TextInput(tt.text)
			assert.Equal(t, tt.want, string(got))
			assert.True(t, json.Valid(got))
		})
	}
}

func TestInputText(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string
		wantErr string // "" means no error
	}{
		{"round trip", `{"input":"2 + 3"}`, "2 + 3", ""},
		{"spaces around", " {\"input\" : \"x\"}\n", "x", ""},
		{"empty text", `{"input":""}`, "", ""},
		{"escapes", `{"input":"a\u003cb\n"}`, "a<b\n", ""},
		{"no input key", `{}`, "", `no "input" string`},
		{"null input", `{"input":null}`, "", `no "input" string`},
		{"input not a string", `{"input":42}`, "", "cannot unmarshal number"},
		{"another key", `{"input":"x","mode":"fast"}`, "", `unknown field "mode"`},
		{"not an object", `"2 + 3"`, "", "cannot unmarshal string"},
		{"not JSON", `{"input":`, "", "unexpected EOF"},
		{"empty", ``, "", "EOF"},
		{"data after the object", `{"input":"x"} {"input":"y"}`, "", "data after the object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := langchaingo.InputText(json.RawMessage(tt.input))
			if tt.wantErr != "" {
				require.ErrorIs(t, err, langchaingo.ErrInputShape)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzTextInputRoundTrip checks that any text survives the trip through
// {"input": text} that a wrapped tool's call makes.
func FuzzTextInputRoundTrip(f *testing.F) {
	for _, seed := range []string{"", "2 + 3", "a < b", "\"\\\n\t", "\u2028", "{\"input\":\"x\"}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := langchaingo.InputText(langchaingo.TextInput(text))
		require.NoError(t, err)
		want := string([]rune(text)) // each invalid UTF-8 byte becomes U+FFFD, as in encoding/json
		assert.Equal(t, want, got)
	})
}

func TestInputSchemaIsTheCallers(t *testing.T) {
	s := langchaingo.InputSchema()
	s[0] = 'X'
	assert.Equal(t, byte('{'), langchaingo.InputSchema()[0])
	assert.True(t, json.Valid(langchaingo.InputSchema()))
}
