package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// schemaCacheSize bounds how many distinct tool schemas one Reflector keeps
// compiled.
const schemaCacheSize = 256

// toolSchemaURL is the made-up address a tool schema is compiled under.
// Relative $refs resolve against it, and like every other address it cannot be
// loaded.
const toolSchemaURL = "mem:///tool-input-schema.json"

// errNoLoading is returned for every $ref that would need a file or the
// network: compiling never leaves the process.
var errNoLoading = errors.New("llm: schemas are compiled offline; a $ref to another document is not loaded")

// compileSchema compiles one JSON Schema document, known by the made-up
// address url, without loaders. A panic in the compiler is recovered and
// returned as an error.
func compileSchema(url string, doc []byte) (sch *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			sch, err = nil, fmt.Errorf("schema compiler panicked: %v", p)
		}
	}()
	c := jsonschema.NewCompiler()
	c.LoadURL = func(string) (io.ReadCloser, error) { return nil, errNoLoading }
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// schemaCache keeps compiled tool schemas, keyed by their exact bytes, so each
// distinct schema is compiled once, even when many goroutines ask for it at
// the same time: the first compiles, the others wait for its result. A schema
// that does not compile is kept too, with its error. When the cache is full an
// arbitrary entry makes room. It is safe for concurrent use.
type schemaCache struct {
	mu      sync.Mutex
	limit   int
	entries map[string]*compiled
}

// compiled is one cache entry; once guards the compilation.
type compiled struct {
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

func newSchemaCache(limit int) *schemaCache {
	return &schemaCache{limit: limit, entries: make(map[string]*compiled)}
}

// get returns the compiled form of doc, compiling it on first use.
func (c *schemaCache) get(doc []byte) (*jsonschema.Schema, error) {
	c.mu.Lock()
	e, ok := c.entries[string(doc)]
	if !ok {
		if len(c.entries) >= c.limit {
			for k := range c.entries {
				delete(c.entries, k)
				break
			}
		}
		e = &compiled{}
		c.entries[string(doc)] = e
	}
	c.mu.Unlock()
	// Compile outside the lock, so one slow schema does not hold up lookups
	// of the others.
	e.once.Do(func() { e.sch, e.err = compileSchema(toolSchemaURL, doc) })
	return e.sch, e.err
}

// len returns the number of cached schemas.
func (c *schemaCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
