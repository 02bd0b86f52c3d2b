package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultText returns the text a model reads for res, the same for a success
// and a failure:
//
//   - the text items of res.Content, in order, one per line;
//   - res.StructuredContent as compact JSON, first, but only when no text
//     item exists: a typed tool of the SDK returns its output both ways, and
//     the model needs it once;
//   - for every other item (an image, audio, a resource link or an embedded
//     resource) a one-line placeholder in square brackets naming its kind
//     and MIME type, with the size of inline data or the resource's URI.
//
// A nil res gives "".
func ResultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var lines []string
	if res.StructuredContent != nil && !hasText(res.Content) {
		lines = append(lines, structuredText(res.StructuredContent))
	}
	for _, c := range res.Content {
		lines = append(lines, itemText(c))
	}
	return strings.Join(lines, "\n")
}

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
		return fmt.Sprintf("[resource link: %s, %s]", mimeType(c.MIMEType), oneLine(c.URI))
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource: unknown MIME type]"
		}
		return fmt.Sprintf("[embedded resource: %s, %s]", mimeType(c.Resource.MIMEType), oneLine(c.Resource.URI))
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
	return oneLine(t)
}

// oneLine keeps a server's string from breaking a placeholder over lines.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
