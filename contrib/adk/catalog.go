package reflectionadk

import (
	"reflect"
	"sync"

	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/tool"
)

// maxCatalog caps the tool names a catalog holds: a server whose toolsets
// make new names without end cannot grow it without bound.
const maxCatalog = 4096

// catalog is the schema lookup of a plugin or a set of wrappers: the
// declaration of every tool it has seen, by name, the latest tool of a name
// winning. A tool's schema is built when the tool is first seen, so a lookup
// marshals nothing. Safe for concurrent use.
type catalog struct {
	mu     sync.RWMutex
	byName map[string]catalogEntry
}

// catalogEntry is a tool and its schema.
type catalogEntry struct {
	tool   tool.Tool
	schema reflection.ToolSchema
}

func newCatalog() *catalog { return &catalog{byName: make(map[string]catalogEntry)} }

// learn records t's declaration, unless t is the tool already recorded
// under its name.
func (c *catalog) learn(t tool.Tool) {
	if t == nil {
		return
	}
	name := t.Name()
	c.mu.RLock()
	e, ok := c.byName[name]
	c.mu.RUnlock()
	if ok && same(e.tool, t) {
		return
	}
	s, ok := Schema(t)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known := c.byName[name]; !known && len(c.byName) >= maxCatalog {
		clear(c.byName)
	}
	c.byName[name] = catalogEntry{tool: t, schema: s}
}

// lookup is the reflection.SchemaLookup of the catalog.
func (c *catalog) lookup(name string) (reflection.ToolSchema, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.byName[name]
	return e.schema, ok
}

// same reports whether a and b are one tool; a tool of a type that cannot
// be compared is never the same, so its declaration is read again.
func same(a, b tool.Tool) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}
