package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Bounds of the compiled-schema cache of one Reflector or input check.
const (
	schemaCacheSize     = 256     // distinct tool schemas kept compiled
	schemaCacheBytes    = 4 << 20 // their text, added up
	validatorsPerSchema = 4       // compiled instances of one schema, for validations at the same time
)

// toolSchemaURL is the made-up address a tool schema is compiled under.
// Relative $refs resolve against it, and like every other address it cannot be
// loaded.
const toolSchemaURL = "mem:///tool-input-schema.json"

// errNoLoading is returned for every $ref that would need a file or the
// network: compiling never leaves the process.
var errNoLoading = errors.New("llm: schemas are compiled offline; a $ref to another document is not loaded")

// newCompiler returns a compiler that loads nothing.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.LoadURL = func(string) (io.ReadCloser, error) { return nil, errNoLoading }
	return c
}

// compileSchema compiles one JSON Schema document, known by the made-up
// address url, with c. A panic in the compiler is recovered and returned as
// an error.
func compileSchema(c *jsonschema.Compiler, url string, doc []byte) (sch *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			sch, err = nil, fmt.Errorf("schema compiler panicked: %v", p)
		}
	}()
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// validator is one compiled instance of a tool schema, with the meter its
// checks are counted on. It validates one input at a time.
type validator struct {
	schema *jsonschema.Schema
	meter  *meter
	// keyPatternSize is the largest pattern of a patternProperties, and
	// loosePatternSize the largest pattern that could not be taken over:
	// the validator matches those itself, before they can be counted, so an
	// input whose strings are too long for them is refused up front.
	keyPatternSize   int
	loosePatternSize int
}

// compileValidator checks doc against the limits on a schema's shape, then
// compiles it. Compiling stops when ctx ends.
func compileValidator(ctx context.Context, doc []byte, lim *limits) (*validator, error) {
	if len(doc) > lim.schemaBytes {
		return nil, &limitError{"tool schema", "of " + fmt.Sprint(len(doc)) + " bytes exceeds the limit of " +
			fmt.Sprint(lim.schemaBytes), "WithMaxSchemaBytes"}
	}
	rules := lim.schemaRules()
	if _, err := scanJSON(doc, &rules); err != nil {
		return nil, err
	}
	if err := checkPatterns(doc, lim); err != nil {
		return nil, err
	}
	m := &meter{}
	cc := &checkCompiler{ctx: ctx, meter: m, budget: lim.budget}
	c := newCompiler()
	c.RegisterExtension(checkExtension, nil, cc)
	c.Formats["regex"] = m.isRegex
	sch, err := compileSchema(c, toolSchemaURL, doc)
	if cc.failed != nil {
		return nil, cc.failed
	}
	if err != nil {
		return nil, err
	}
	v := &validator{schema: sch, meter: m, keyPatternSize: cc.keyPatternSize}
	if v.loosePatternSize, err = takeOver(sch, cc.nodes); err != nil {
		return nil, err
	}
	return v, nil
}

// schemaCache keeps compiled tool schemas, keyed by their exact bytes. Each
// distinct schema is compiled once, even when many goroutines ask for it at
// the same time: the first compiles, the others wait for it. A schema that
// does not compile, or breaks a limit, is kept with its error. Since a
// validation counts its checks on the compiled instance, validations of the
// same schema at the same time each need their own: up to
// validatorsPerSchema are compiled, and further validations wait for one.
// When the cache is full an arbitrary entry makes room. It is safe for
// concurrent use.
type schemaCache struct {
	mu       sync.Mutex
	limit    int
	maxBytes int
	bytes    int
	lim      limits
	entries  map[string]*schemaEntry
}

// schemaEntry is one tool schema in the cache.
type schemaEntry struct {
	size  int
	ready chan struct{} // closed when the first compilation has finished
	err   error         // why the schema cannot be used; set before ready is closed
	again bool          // the first compilation was stopped by its caller's context
	idle  chan *validator
	mu    sync.Mutex
	made  int // instances compiled and not given up
}

func newSchemaCache(limit int, lim limits) *schemaCache {
	return &schemaCache{limit: limit, maxBytes: schemaCacheBytes, lim: lim, entries: make(map[string]*schemaEntry)}
}

// acquire returns an instance of the compiled form of doc, compiling it on
// first use, for one validation; give it back with release. It stops
// waiting or compiling when ctx ends, with an error that wraps ctx's.
func (c *schemaCache) acquire(ctx context.Context, doc []byte) (*schemaEntry, *validator, error) {
	for {
		c.mu.Lock()
		e, ok := c.entries[string(doc)]
		if !ok {
			c.makeRoom(len(doc))
			e = &schemaEntry{size: len(doc), ready: make(chan struct{}), idle: make(chan *validator, validatorsPerSchema)}
			c.entries[string(doc)] = e
			c.bytes += e.size
		}
		c.mu.Unlock()
		if !ok {
			return c.compileFirst(ctx, doc, e)
		}
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, nil, &stopError{ctx.Err()}
		}
		if e.again {
			continue // that caller gave up; this one compiles
		}
		if e.err != nil {
			return nil, nil, e.err
		}
		v, err := e.take(ctx, doc, &c.lim)
		return e, v, err
	}
}

// compileFirst compiles the first instance of a new entry and tells the
// goroutines waiting for it. A compilation stopped by ctx is not kept.
func (c *schemaCache) compileFirst(ctx context.Context, doc []byte, e *schemaEntry) (*schemaEntry, *validator, error) {
	v, err := compileValidator(ctx, doc, &c.lim)
	var stopped *stopError
	if errors.As(err, &stopped) {
		c.mu.Lock()
		if c.entries[string(doc)] == e {
			delete(c.entries, string(doc))
			c.bytes -= e.size
		}
		c.mu.Unlock()
		e.again = true
	}
	e.err = err
	if err == nil {
		e.made = 1
	}
	close(e.ready)
	if err != nil {
		return nil, nil, err
	}
	return e, v, nil
}

// take returns an idle instance, compiles another while there are fewer
// than validatorsPerSchema, or waits for one to be given back.
func (e *schemaEntry) take(ctx context.Context, doc []byte, lim *limits) (*validator, error) {
	select {
	case v := <-e.idle:
		return v, nil
	default:
	}
	e.mu.Lock()
	if e.made < validatorsPerSchema {
		e.made++
		e.mu.Unlock()
		v, err := compileValidator(ctx, doc, lim)
		if err != nil {
			e.mu.Lock()
			e.made--
			e.mu.Unlock()
		}
		return v, err
	}
	e.mu.Unlock()
	select {
	case v := <-e.idle:
		return v, nil
	case <-ctx.Done():
		return nil, &stopError{ctx.Err()}
	}
}

// release gives v back after a validation.
func (e *schemaEntry) release(v *validator) {
	v.meter.ctx = nil
	e.idle <- v // never blocks: at most validatorsPerSchema instances exist
}

// makeRoom evicts arbitrary entries until one of size more fits. c.mu is
// held.
func (c *schemaCache) makeRoom(size int) {
	for k, e := range c.entries {
		if len(c.entries) < c.limit && c.bytes+size <= c.maxBytes {
			return
		}
		delete(c.entries, k)
		c.bytes -= e.size
	}
}

// len returns the number of cached schemas.
func (c *schemaCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
