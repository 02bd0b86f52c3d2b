package reflectionmcp

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzResultText gives ResultText a server's strings and a cap: the text
// never exceeds the cap but for its marker, keeps a prefix of the whole text
// cut on a rune boundary, says exactly how much it dropped, and the
// placeholders never carry a control or format character.
func FuzzResultText(f *testing.F) {
	f.Add("hello", "file:///a\x1b]8;;x\x07", "text/plain\u2028", 16)
	f.Add(strings.Repeat("é", 40), "https://example.com/\u202Eexe", "image/png", 7)
	f.Add("", "\xff\xfe", "\u0085", 0)
	f.Add("\x94\x94\x94\x94\x94", "0", "", 2) // continuation bytes only: the cut does not walk back past a rune
	f.Fuzz(func(t *testing.T, text, uri, mime string, limit int) {
		limit = max(limit%4096, 0)
		res := &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: text},
			&mcp.ResourceLink{URI: uri, MIMEType: mime},
			&mcp.ImageContent{MIMEType: mime, Data: []byte(text)},
		}}
		whole := resultText(res, 1<<30)
		placeholders := strings.Split(whole[len(text)+1:], "\n")
		if len(placeholders) != 2 {
			t.Fatalf("placeholders %q are not two lines", placeholders)
		}
		for _, p := range placeholders {
			for _, r := range p {
				if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
					t.Fatalf("rune %U in the placeholder %q", r, p)
				}
			}
			if !utf8.ValidString(p) {
				t.Fatalf("placeholder %q is not UTF-8", p)
			}
		}

		got := resultText(res, limit)
		if len(whole) <= limit {
			if got != whole {
				t.Fatalf("a text that fits changed: %q, want %q", got, whole)
			}
			return
		}
		i := strings.LastIndex(got, truncatedMarker)
		if i < 0 {
			t.Fatalf("no marker in %q", got)
		}
		kept := got[:i]
		if len(kept) > limit || len(kept) <= limit-utf8.UTFMax {
			t.Fatalf("kept %d bytes for a cap of %d", len(kept), limit)
		}
		if !strings.HasPrefix(whole, kept) {
			t.Fatalf("kept %q is not a prefix of %q", kept, whole)
		}
		if cut := len(kept); utf8.ValidString(whole) && !utf8.RuneStart(whole[cut]) {
			t.Fatalf("cut inside a rune at %d", cut)
		}
		if want := truncatedMarker + strconv.Itoa(len(whole)-len(kept)) + " bytes]"; got[i:] != want {
			t.Fatalf("marker %q, want %q", got[i:], want)
		}
	})
}
