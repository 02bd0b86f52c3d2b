package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loopctl-go/reflection"
)

func TestFrameworkError(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want error
	}{
		{"no error", live, nil, nil},
		{"soft for the framework while ctx lives", live, boom, nil},
		{"hard once ctx has ended", done, boom, boom},
		{"no error, ctx ended", done, nil, nil},
		{"nil ctx", nil, boom, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := reflection.FrameworkError(tc.ctx, tc.err); got != tc.want {
				t.Errorf("FrameworkError = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTextInputRoundTrip(t *testing.T) {
	for _, text := range []string{"", "plain", `quote " and \ back`, "<b>&</b>", "line\nbreak", "ünïcode", "\u2028"} {
		in := reflection.TextInput(text)
		if !json.Valid(in) {
			t.Fatalf("TextInput(%q) = %s, not JSON", text, in)
		}
		got, err := reflection.InputText(in)
		if err != nil || got != text {
			t.Errorf("InputText(TextInput(%q)) = %q, %v", text, got, err)
		}
	}
	if got := string(reflection.TextInput("<a&b>")); got != `{"input":"<a&b>"}` {
		t.Errorf("TextInput escapes HTML: %s", got)
	}
}

func TestInputTextRefuses(t *testing.T) {
	for _, in := range []string{
		``, `null`, `"text"`, `[]`, `{}`,
		`{"input":1}`, `{"input":null}`, `{"input":["a"]}`,
		`{"INPUT":"x"}`, `{"Input":"x"}`,
		`{"input":"a","input":"b"}`, `{"input":"a","INPUT":"b"}`,
		`{"input":"a","other":1}`,
		`{"input":"a"} {}`, `{"input":"a"`,
	} {
		if got, err := reflection.InputText(json.RawMessage(in)); !errors.Is(err, reflection.ErrNotTextInput) {
			t.Errorf("InputText(%s) = %q, %v; want an error wrapping ErrNotTextInput", in, got, err)
		}
	}
	if got, err := reflection.InputText(json.RawMessage(" {\"input\" : \"x\"} ")); err != nil || got != "x" {
		t.Errorf("InputText with spaces = %q, %v", got, err)
	}
}

// FuzzTextInput: every text survives the envelope, and InputText refuses
// any other input without a panic, and never accepts one that is not a
// single JSON object with the one key "input" holding a string.
func FuzzTextInput(f *testing.F) {
	for _, s := range []string{"", "plain", `{"input":"x"}`, `{"INPUT":"x"}`, `{"input":"a","input":"b"}`, "\xff", "<&>", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		quoted, _ := json.Marshal(s)
		var want string // s as a JSON string carries it: invalid UTF-8 becomes U+FFFD
		_ = json.Unmarshal(quoted, &want)
		text, err := reflection.InputText(reflection.TextInput(s))
		if err != nil || text != want {
			t.Fatalf("InputText(TextInput(%q)) = %q, %v", s, text, err)
		}
		got, err := reflection.InputText(json.RawMessage(s))
		if err != nil {
			return
		}
		var fields map[string]any
		if json.Unmarshal([]byte(s), &fields) != nil || len(fields) != 1 {
			t.Fatalf("InputText accepted %q, which is not an object with one key", s)
		}
		if v, ok := fields["input"].(string); !ok || v != got {
			t.Fatalf("InputText(%q) = %q, but its \"input\" is %v", s, got, fields["input"])
		}
	})
}
