package reflection

import (
	"container/list"
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// DefaultCacheSize is the number of answers NewCache keeps when given a size
// of 0 or less.
const DefaultCacheSize = 1024

// NewCache returns a Reflector that remembers r's answers, so the same
// failure seen again costs no second analysis (and, for a model, no second
// request). An answer is keyed by the failure's tool, input and text; errors
// are never kept. At most size answers are kept (the least recently used goes
// first; size ≤ 0 means DefaultCacheSize), each for ttl from when it was
// stored (ttl ≤ 0: no expiry).
//
// Concurrent identical misses make one call to r and share its result, an
// error included (which is then not kept); a caller whose ctx ends while it
// waits for another's call returns ctx's error. A panic in r becomes an error
// matching ErrPanicked for every caller that shared the call. The cache starts
// no goroutine: an expired entry goes when it is next touched or evicted.
// Each answer is handed out as a copy of its own. It is safe for concurrent
// use.
func NewCache(r Reflector, size int, ttl time.Duration) Reflector {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &cache{
		r:        r,
		size:     size,
		ttl:      max(ttl, 0),
		entries:  make(map[string]*list.Element),
		order:    list.New(),
		inFlight: make(map[string]*sharedCall),
	}
}

// cache is the Reflector of NewCache.
type cache struct {
	r    Reflector
	size int
	ttl  time.Duration

	mu       sync.Mutex
	entries  map[string]*list.Element // of *cacheEntry, most recently used at the front
	order    *list.List
	inFlight map[string]*sharedCall
}

type cacheEntry struct {
	key    string
	a      FailureAnalysis
	stored time.Time
}

// sharedCall is one call of r that identical misses wait on.
type sharedCall struct {
	done chan struct{}
	a    FailureAnalysis
	err  error
}

// appendKey appends the key of a failure to b: its tool, input and text,
// each prefixed by its length so no two failures share a key.
func appendKey(b []byte, f *Failure) []byte {
	b = strconv.AppendInt(b, int64(len(f.Tool)), 10)
	b = append(append(b, ':'), f.Tool...)
	b = strconv.AppendInt(b, int64(len(f.Input)), 10)
	b = append(append(b, ':'), f.Input...)
	b = strconv.AppendInt(b, int64(len(f.Error)), 10)
	return append(append(b, ':'), f.Error...)
}

// Analyze answers from the cache, or asks the wrapped Reflector once.
func (c *cache) Analyze(ctx context.Context, f Failure) (FailureAnalysis, error) {
	if c.r == nil {
		return FailureAnalysis{}, fmt.Errorf("reflection: cache has no reflector: %w", ErrInternal)
	}
	var buf [256]byte
	kb := appendKey(buf[:0], &f) // map lookups by string(kb) do not allocate
	c.mu.Lock()
	if a, ok := c.lookup(kb); ok {
		c.mu.Unlock()
		return cloneAnalysis(a), nil
	}
	if call, ok := c.inFlight[string(kb)]; ok {
		c.mu.Unlock()
		select {
		case <-call.done:
			return cloneAnalysis(call.a), call.err
		case <-ctx.Done():
			return FailureAnalysis{}, ctx.Err()
		}
	}
	key := string(kb)
	call := &sharedCall{done: make(chan struct{})}
	c.inFlight[key] = call
	c.mu.Unlock()

	defer c.settle(key, call)
	var out analysis
	analyze(ctx, c.r, &f, &out)
	call.a, call.err = out.a, out.err
	return cloneAnalysis(out.a), out.err
}

// settle ends a shared call: it keeps its answer, unless it is an error, and
// wakes those who wait on it.
func (c *cache) settle(key string, call *sharedCall) {
	c.mu.Lock()
	delete(c.inFlight, key)
	if call.err == nil {
		c.store(key, call.a)
	}
	c.mu.Unlock()
	close(call.done)
}

// lookup returns the live answer stored under key, dropping it when it has
// expired. c.mu is held.
func (c *cache) lookup(key []byte) (FailureAnalysis, bool) {
	el, ok := c.entries[string(key)]
	if !ok {
		return FailureAnalysis{}, false
	}
	e := el.Value.(*cacheEntry)
	if c.ttl > 0 && time.Since(e.stored) >= c.ttl {
		c.order.Remove(el)
		delete(c.entries, e.key)
		return FailureAnalysis{}, false
	}
	c.order.MoveToFront(el)
	return e.a, true
}

// store keeps a under key, evicting the least recently used answer when the
// cache is full. The key is not in the cache: only a miss makes a call, and
// only one call per key runs at a time. c.mu is held.
func (c *cache) store(key string, a FailureAnalysis) {
	for c.order.Len() >= c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, a: cloneAnalysis(a), stored: time.Now()})
}

// cloneAnalysis copies a's correction, so no two holders share it.
func cloneAnalysis(a FailureAnalysis) FailureAnalysis {
	if a.Correction != nil {
		c := *a.Correction
		c.ModifiedInput = append([]byte(nil), c.ModifiedInput...)
		if a.Correction.ModifiedInput == nil {
			c.ModifiedInput = nil
		}
		a.Correction = &c
	}
	return a
}
