package textcut_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopctl-go/reflection/internal/textcut"
)

func TestCut(t *testing.T) {
	tests := []struct {
		name, s string
		limit   int
		want    string
	}{
		{"short enough", "abc", 3, "abc"},
		{"empty", "", 0, ""},
		{"one over", "abcd", 3, "abc…[truncated 1 bytes]"},
		{"not inside a rune", "aé", 2, "a…[truncated 2 bytes]"},
		{"a rune that fits", "aéb", 3, "aé…[truncated 1 bytes]"},
		{"inside a four-byte rune", "😀😀", 6, "😀…[truncated 4 bytes]"},
		{"zero", "abc", 0, "…[truncated 3 bytes]"},
		{"below zero", "abc", -5, "…[truncated 3 bytes]"},
		{"invalid UTF-8 is cut where it is", "a\xff\xfeb", 2, "a\xff…[truncated 2 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textcut.Cut(tt.s, tt.limit); got != tt.want {
				t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
			}
		})
	}
}

// TestCutKeepsValidTextValid: for every limit, the kept part of valid UTF-8
// is valid, as long as it can be, and a prefix of the text.
func TestCutKeepsValidTextValid(t *testing.T) {
	s := "añ€😀b" + strings.Repeat("é", 3)
	for limit := range len(s) + 2 {
		got := textcut.Cut(s, limit)
		kept, _, _ := strings.Cut(got, "…[truncated ")
		if !utf8.ValidString(kept) || !strings.HasPrefix(s, kept) || len(kept) > limit || limit-len(kept) >= utf8.UTFMax {
			t.Errorf("Cut(%q, %d) = %q", s, limit, got)
		}
	}
}
