package reflectionlangchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
	"github.com/loopctl-go/reflection/reflectiontest"
)

func TestCheckInput(t *testing.T) {
	tests := []struct {
		name  string
		input string
		ok    bool
	}{
		{"the root's envelope", string(reflection.TextInput("2 + 3")), true},
		{"empty text", `{"input":""}`, true},
		{"another key", `{"text":"2 + 3"}`, false},
		{"a key beside input", `{"input":"x","mode":"fast"}`, false},
		{"input twice", `{"input":"x","input":"y"}`, false},
		{"not an object", `"2 + 3"`, false},
		{"not JSON", `{"input":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reflectionlangchaingo.CheckInput("adder", json.RawMessage(tt.input))
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, reflection.ErrNotTextInput)
		})
	}
}

func TestInputSchemaIsTheCallers(t *testing.T) {
	s := reflectionlangchaingo.InputSchema()
	s[0] = 'X'
	assert.Equal(t, byte('{'), reflectionlangchaingo.InputSchema()[0])
	assert.True(t, json.Valid(reflectionlangchaingo.InputSchema()))
}

// echo is a tool that fails its first call and succeeds after, recording
// the text of each.
type echo struct {
	mu    sync.Mutex
	texts []string
}

func (*echo) Name() string        { return "echo" }
func (*echo) Description() string { return "Echoes." }
func (e *echo) Call(_ context.Context, text string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.texts = append(e.texts, text)
	if len(e.texts) == 1 {
		return "", errors.New("echo: the first call fails")
	}
	return "ok", nil
}

// FuzzWrappedToolText: whatever text the agent gives, the wrapped tool runs
// with exactly that text; whatever text a Reflector's InputFix carries (as
// reflection.TextInput writes it), the retry runs with that text (invalid
// UTF-8 replaced, as encoding/json writes it), and no call is an error.
// Parsing the envelope itself is the root's.
func FuzzWrappedToolText(f *testing.F) {
	for _, seed := range [][2]string{
		{"two plus three", "2 + 3"}, {"", ""}, {"a < b", "a &lt; b"}, {"\"\\\n\t", "\u2028"},
		{`{"input":"x"}`, "x"}, {"\xff", "\xfe"}, {"same", "same"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, agentText, fixText string) {
		r := reflectiontest.NewReflector(inputFix(reflection.TextInput(fixText))).RepeatLast()
		tool := &echo{}
		out, err := reflectionlangchaingo.WrapTool(backoff(r), tool).Call(context.Background(), agentText)
		require.NoError(t, err)
		ran := tool.texts
		require.NotEmpty(t, ran)
		assert.Equal(t, agentText, ran[0], "the agent's text, as given")
		want := string([]rune(fixText)) // each invalid UTF-8 byte becomes U+FFFD, as in encoding/json
		if string(reflection.TextInput(fixText)) == string(reflection.TextInput(agentText)) {
			want = agentText // the InputFix changes nothing: the text stays the agent's
		}
		for _, text := range ran[1:] {
			assert.Equal(t, want, text, "the InputFix's text")
		}
		if len(ran) > 1 {
			assert.Equal(t, "ok", out)
		}
	})
}
