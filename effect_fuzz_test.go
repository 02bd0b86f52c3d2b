package reflection_test

import (
	"bytes"
	"testing"

	"github.com/loopctl-go/reflection"
)

// FuzzEffectText feeds Effect.UnmarshalText any bytes (an effect can come
// from a host's configuration or a scenario file). It must never panic,
// must accept only the five words, and what it accepts must encode back to
// the same bytes.
func FuzzEffectText(f *testing.F) {
	for _, w := range sfEffectWords {
		f.Add([]byte(w.word))
	}
	for _, s := range []string{"", "Keyed", " read_only", "non-idempotent", "effect(9)", "\xff\xfe", "keyed\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const sentinel = reflection.Effect(77)
		e := sentinel
		err := e.UnmarshalText(b)
		if err != nil {
			if e != sentinel {
				t.Fatalf("UnmarshalText(%q) failed but changed the value to %v", b, e)
			}
			return
		}
		known := false
		for _, w := range sfEffectWords {
			if string(b) == w.word {
				known = true
			}
		}
		if !known {
			t.Fatalf("UnmarshalText(%q) accepted a word outside the five, giving %v", b, e)
		}
		out, err := e.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v) after UnmarshalText(%q): %v", e, b, err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("round trip of %q gave %q", b, out)
		}
		if e.String() != string(b) {
			t.Fatalf("String of %q is %q", b, e.String())
		}
	})
}
