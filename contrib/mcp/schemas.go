package reflectionmcp

import (
	"context"

	"github.com/loopctl-go/reflection"
)

// Schema returns the schema of the named tool as the server last listed it,
// and false for a tool it does not list (or before Load succeeds). The
// schema's InputSchema is shared by every caller and must not be modified.
func (t *Tools) Schema(name string) (reflection.ToolSchema, bool) {
	l := t.list.Load()
	if l == nil {
		return reflection.ToolSchema{}, false
	}
	i, ok := l.byName[name]
	if !ok {
		return reflection.ToolSchema{}, false
	}
	return l.ordered[i], true
}

// Schemas returns the server's tool list as a reflection.SchemaLookup, for
// reflection.WithSchemas: the Reflector sees each tool's input schema, and
// the Driver drops a ToolChange to a tool the server does not list. The
// lookup is t.Schema, so it follows every later listing.
func (t *Tools) Schemas() reflection.SchemaLookup { return t.Schema }

// Catalog returns every tool of the last listing, in the server's order
// (nil before the first Load succeeds): the tools a Reflector may propose a
// ToolChange to. It has the signature llm.WithToolCatalog takes; ctx is not
// used. The slice is the caller's; the InputSchemas in it are shared and
// must not be modified.
func (t *Tools) Catalog(context.Context) []reflection.ToolSchema {
	l := t.list.Load()
	if l == nil {
		return nil
	}
	return append([]reflection.ToolSchema(nil), l.ordered...)
}
