package scrub_test

import (
	"strings"
	"testing"

	"github.com/loopctl-go/reflection/internal/scrub"
)

func TestText(t *testing.T) {
	tests := []struct {
		name   string
		redact func(string) string
		in     string
		want   string
	}{
		{"no redactor keeps the text", nil, "token=abc", "token=abc"},
		{"the redactor's result", func(s string) string { return strings.ReplaceAll(s, "abc", "***") }, "token=abc", "token=***"},
		{"a panic withholds the text", func(string) string { panic("broken") }, "token=abc", scrub.Withheld},
		{"a panic with nil withholds it too", func(string) string { panic(nil) }, "token=abc", scrub.Withheld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scrub.Text(tt.redact, tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
