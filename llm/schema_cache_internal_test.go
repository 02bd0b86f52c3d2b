package llm

import (
	"encoding/json"

	"context"
	"errors"
	"github.com/loopctl-go/reflection"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaCacheCompilesOnceAndStaysBounded(t *testing.T) {
	c := newSchemaCache(4, defaultLimits())
	ctx := context.Background()
	doc := []byte(`{"type":"object"}`)
	e, first, err := c.acquire(ctx, doc)
	require.NoError(t, err)
	e.release(first)
	e, again, err := c.acquire(ctx, doc)
	require.NoError(t, err)
	e.release(again)
	assert.Same(t, first, again, "the same schema was compiled twice")

	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			e, v, err := c.acquire(ctx, []byte(`{"minProperties":`+strconv.Itoa(i)+`}`))
			if assert.NoError(t, err) {
				e.release(v)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, c.len(), 4)
}

func TestSchemaCacheStaysWithinItsBytes(t *testing.T) {
	c := newSchemaCache(100, defaultLimits())
	c.maxBytes = 1000
	for i := range 20 {
		doc := []byte(`{"description":"` + strings.Repeat("x", 200) + strconv.Itoa(i) + `"}`)
		e, v, err := c.acquire(context.Background(), doc)
		require.NoError(t, err)
		e.release(v)
		c.mu.Lock()
		assert.LessOrEqual(t, c.bytes, 1000)
		c.mu.Unlock()
	}
	assert.Equal(t, 4, c.len(), "four schemas of about 220 bytes fit in 1000")
}

func TestSchemaCacheKeepsCompileErrors(t *testing.T) {
	c := newSchemaCache(4, defaultLimits())
	_, _, err1 := c.acquire(context.Background(), []byte(`{"type": 12}`))
	_, _, err2 := c.acquire(context.Background(), []byte(`{"type": 12}`))
	if err1 == nil || err1 != err2 {
		t.Fatalf("got %v and %v, want one cached error", err1, err2)
	}
}

func TestSchemaCacheKeepsLimitErrors(t *testing.T) {
	lim := defaultLimits()
	lim.schemaDepth = 3
	c := newSchemaCache(4, lim)
	doc := []byte(`{"properties":{"a":{"properties":{"b":{}}}}}`)
	_, _, err := c.acquire(context.Background(), doc)
	require.ErrorIs(t, err, ErrLimitExceeded)
	assert.Contains(t, err.Error(), "nesting depth 4 exceeds the limit of 3")
	assert.Contains(t, err.Error(), "WithMaxSchemaDepth")
	assert.Equal(t, 1, c.len())
}

// TestSchemaCacheConcurrentValidations validates against one new schema from
// many goroutines at once: the first use compiles once, and no more than
// validatorsPerSchema instances are ever made.
func TestSchemaCacheConcurrentValidations(t *testing.T) {
	c := newSchemaCache(4, defaultLimits())
	doc := []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	var mu sync.Mutex
	seen := make(map[*validator]bool)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			schemaErr, err := c.checkAgainst(context.Background(), doc, []byte(`{"path":"a"}`))
			assert.NoError(t, schemaErr)
			assert.NoError(t, err)
		})
		wg.Go(func() {
			e, v, err := c.acquire(context.Background(), doc)
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			seen[v] = true
			mu.Unlock()
			e.release(v)
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, len(seen), validatorsPerSchema)
	e := c.entries[string(doc)]
	assert.LessOrEqual(t, e.made, validatorsPerSchema)
	assert.Equal(t, e.made, len(e.idle), "every instance was given back")
}

func TestSchemaCacheWaitsForAnInstance(t *testing.T) {
	c := newSchemaCache(4, defaultLimits())
	doc := []byte(`{"type":"object"}`)
	e, held, err := c.acquire(context.Background(), doc)
	require.NoError(t, err)
	for range validatorsPerSchema - 1 {
		_, v, err := c.acquire(context.Background(), doc)
		require.NoError(t, err)
		defer e.release(v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = c.acquire(ctx, doc)
	var stopped *stopError
	require.ErrorAs(t, err, &stopped, "all instances are busy and ctx has ended")
	assert.ErrorIs(t, err, context.Canceled)

	e.release(held)
	_, v, err := c.acquire(context.Background(), doc)
	require.NoError(t, err)
	assert.Same(t, held, v)
	e.release(v)
}

func TestSchemaCacheDoesNotKeepAStoppedCompilation(t *testing.T) {
	c := newSchemaCache(4, defaultLimits())
	doc := []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := c.acquire(ctx, doc)
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, c.len(), "a stopped compilation is not cached")

	e, v, err := c.acquire(context.Background(), doc)
	require.NoError(t, err, "the next caller compiles it")
	e.release(v)
	assert.Equal(t, 1, c.len())
}

func TestValidateRecoversFromPanics(t *testing.T) {
	err := validateValue(nil, map[string]any{}, 1)
	require.Error(t, err, "validating with a nil schema should fail, not panic")
	assert.Contains(t, err.Error(), "validator panicked")
	assert.False(t, errors.Is(err, ErrLimitExceeded))
}

// TestPatternsOutOfReachAreBoundedUpFront: a pattern the walk cannot reach
// stays with the validator, and its size then bounds the strings of an
// input before validation.
func TestPatternsOutOfReachAreBoundedUpFront(t *testing.T) {
	reached := &checkNode{hasPattern: true, patternSize: 50}
	hidden := &checkNode{hasPattern: true, patternSize: 300}
	plain := &checkNode{}
	unreached, err := takeOver(nil, []*checkNode{reached, hidden, plain})
	require.NoError(t, err)
	assert.Equal(t, 300, unreached)

	v := &validator{loosePatternSize: 3003, meter: &meter{}}
	lim := defaultLimits()
	err = v.validate(context.Background(), []byte(`{"s":"`+strings.Repeat("a", lim.budget*patternUnit/3003+1)+`"}`), &lim)
	require.ErrorIs(t, err, ErrLimitExceeded)
	assert.Contains(t, err.Error(), "too long to match against a pattern of 3003 instructions")
}

func TestInputCheckOfAReflectorUsesItsCache(t *testing.T) {
	r := New(nil)
	doc := `{"type":"object","required":["path"]}`
	check := r.InputCheck(func(string) (reflection.ToolSchema, bool) {
		return reflection.ToolSchema{InputSchema: json.RawMessage(doc)}, true
	})
	require.NoError(t, check("t", json.RawMessage(`{"path":"a"}`)))
	assert.Equal(t, 1, r.schemas.len())
	p := r.checkInputFix(context.Background(), reflection.Failure{Tool: "t", Schema: &reflection.ToolSchema{InputSchema: json.RawMessage(doc)}},
		reflection.FailureAnalysis{Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"b"}`)}})
	assert.Nil(t, p)
	assert.Equal(t, 1, r.schemas.len(), "the same compiled schema serves both")
}
