package reflectionmcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxResultBytes is the most bytes of a result's text that
// ResultText returns, and Dispatch unless WithMaxResultBytes says otherwise:
// 256 KiB, about 64,000 tokens, more than a model's turn can use. A
// server's result is untrusted input; the cap keeps one huge result from
// costing its size again in every step of recovery that reads it (the
// Reflector, the log, a report).
const DefaultMaxResultBytes = 256 << 10

// maxPlaceholderField caps each string a server gives a placeholder (a MIME
// type, a URI), so one long field cannot fill the result's text.
const maxPlaceholderField = 256

// ResultText returns the text a model reads for res, the same for a success
// and a failure:
//
//   - the text items of res.Content, in order, one per line, as the server
//     wrote them;
//   - res.StructuredContent as compact JSON, first, but only when no text
//     item exists: a typed tool of the SDK returns its output both ways, and
//     the model needs it once;
//   - for every other item (an image, audio, a resource link or an embedded
//     resource) a one-line placeholder in square brackets naming its kind
//     and MIME type, with the size of inline data or the resource's URI.
//
// The server's strings in a placeholder are made inert: line breaks and
// tabs become spaces, and any other control or format character (ESC, BEL,
// the C1 controls that start terminal sequences, U+2028, bidirectional
// overrides) becomes U+FFFD; each is cut to 256 bytes.
//
// The text is at most DefaultMaxResultBytes long, then a marker such as
// "…[truncated 1048576 bytes]" saying how much was dropped; the cut falls on
// a UTF-8 boundary. Only what is kept is copied, but structured content is
// marshalled whole before it is cut. A nil res gives "".
func ResultText(res *mcp.CallToolResult) string {
	return resultText(res, DefaultMaxResultBytes)
}

// resultText is ResultText with a cap of limit bytes before the marker.
func resultText(res *mcp.CallToolResult, limit int) string {
	if res == nil {
		return ""
	}
	lines := make([]string, 0, len(res.Content)+1)
	if res.StructuredContent != nil && !hasText(res.Content) {
		lines = append(lines, structuredText(res.StructuredContent))
	}
	for _, c := range res.Content {
		lines = append(lines, itemText(c))
	}
	return joinCut(lines, limit)
}

// joinCut joins lines with line breaks, keeping at most limit bytes and
// then a marker that counts the bytes dropped. It copies nothing for one
// line that fits, and never more than limit bytes.
func joinCut(lines []string, limit int) string {
	total := max(len(lines)-1, 0)
	for _, l := range lines {
		total += len(l)
	}
	switch {
	case total <= limit && len(lines) == 1:
		return lines[0]
	case total <= limit:
		return strings.Join(lines, "\n")
	}
	var b strings.Builder
	b.Grow(limit + len(truncatedMarker) + 20)
	for i, l := range lines {
		if i > 0 {
			if b.Len() >= limit {
				break
			}
			b.WriteByte('\n')
		}
		if room := limit - b.Len(); len(l) > room {
			cut := room // back to the start of the rune it splits, if valid
			for back := 1; back < utf8.UTFMax && cut > 0 && !utf8.RuneStart(l[cut]); back++ {
				cut--
			}
			b.WriteString(l[:cut])
			break
		}
		b.WriteString(l)
	}
	kept := b.Len()
	b.WriteString(truncatedMarker)
	b.WriteString(strconv.Itoa(total - kept))
	b.WriteString(" bytes]")
	return b.String()
}

// truncatedMarker begins the marker that ends a cut text; it reads as the
// root module's and the llm package's.
const truncatedMarker = "…[truncated "

func hasText(items []mcp.Content) bool {
	for _, c := range items {
		if _, ok := c.(*mcp.TextContent); ok {
			return true
		}
	}
	return false
}

// structuredText is v as compact JSON; a value that will not marshal (which
// the SDK's own decoding never yields) is named instead.
func structuredText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("[structured content that is not JSON: %v]", err)
	}
	return string(b)
}

// itemText is the line one content item stands for.
func itemText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", mimeType(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", mimeType(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		return fmt.Sprintf("[resource link: %s, %s]", mimeType(c.MIMEType), inert(c.URI))
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource: unknown MIME type]"
		}
		return fmt.Sprintf("[embedded resource: %s, %s]", mimeType(c.Resource.MIMEType), inert(c.Resource.URI))
	case nil:
		return "[empty content item]"
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

func mimeType(t string) string {
	if t == "" {
		return "unknown MIME type"
	}
	return inert(t)
}
