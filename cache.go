package reflection

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// defaultCacheSize is the number of answers NewCache keeps when given a size
// of 0 or less.
const defaultCacheSize = 1024

// cacheBytes bounds the bytes of the answers a cache keeps (see NewCache),
// and maxCachedAnswer the bytes of one answer it keeps.
const (
	cacheBytes      = 64 << 20
	maxCachedAnswer = cacheBytes / 64
)

// NewCache returns a Reflector that remembers r's answers, so the same
// failure seen again costs no second analysis (and, for a model, no second
// request). Errors are never kept.
//
// An answer is remembered by the failure's tool, input and text, and also
// by what else it may depend on: the task, the tool's schema (a changed
// schema is a new failure, so an InputFix is checked again), and the
// identity of Failure.Err (the types of the first 32 errors of its tree and
// the value of those that are a number, a string or a bool, such as a
// syscall.Errno; the common sentinels it matches, such as
// context.DeadlineExceeded or fs.ErrPermission; its HTTP status and its
// rate-limit hint), so an answer given for a timeout is never served to a
// permission failure of the same text. The attempt numbers are not part of
// it. The cache keeps a 32-byte digest of all this
// (SHA-256), never the failure itself.
//
// At most size answers are kept (size ≤ 0 means 1,024), and at
// most 64 MiB of them, counting every text an answer holds; past either
// bound the least recently used answer goes first. An answer of more than
// 1 MiB is handed out but not kept. Each answer is kept for ttl from when
// it was stored (ttl ≤ 0: no expiry).
//
// Concurrent identical misses make one call to r and share its result, an
// error included (which is then not kept), with one exception: when the
// call failed because the ctx of the caller that made it ended, a waiting
// caller whose own ctx is alive makes the call again itself instead of
// receiving that error. A caller whose ctx ends while it waits returns ctx's
// error. A panic in r becomes an error matching ErrPanicked for every caller
// that shared the call. A failure whose Err panics when read is analysed
// without the cache.
//
// The cache starts no goroutine: an expired entry goes when it is next
// touched or evicted. Each answer is handed out as a copy of its own, so a
// hit allocates nothing for an answer without a correction, and the
// correction's copy (two allocations with a ModifiedInput, one without)
// otherwise. It is safe for concurrent use.
func NewCache(r Reflector, size int, ttl time.Duration) Reflector {
	return newCache(r, size, ttl, cacheBytes)
}

func newCache(r Reflector, size int, ttl time.Duration, maxBytes int) *cache {
	if size <= 0 {
		size = defaultCacheSize
	}
	return &cache{
		r:        r,
		size:     size,
		maxBytes: maxBytes,
		ttl:      max(ttl, 0),
		entries:  make(map[cacheKey]*list.Element),
		order:    list.New(),
		inFlight: make(map[cacheKey]*sharedCall),
	}
}

// cache is the Reflector of NewCache.
type cache struct {
	r        Reflector
	size     int
	maxBytes int
	ttl      time.Duration

	mu       sync.Mutex
	entries  map[cacheKey]*list.Element // of *cacheEntry, most recently used at the front
	order    *list.List
	bytes    int // of the entries, by answerBytes
	inFlight map[cacheKey]*sharedCall
}

type cacheEntry struct {
	key    cacheKey
	a      FailureAnalysis
	bytes  int
	stored time.Time
}

// sharedCall is one call of r that identical misses wait on.
type sharedCall struct {
	done chan struct{}
	a    FailureAnalysis
	err  error
	// abandoned: the call failed once the ctx of the caller that made it
	// had ended; a waiter whose ctx is alive makes the call again.
	abandoned bool
}

// Analyze answers from the cache, or asks the wrapped Reflector once.
func (c *cache) Analyze(ctx context.Context, f Failure) (FailureAnalysis, error) {
	if c.r == nil {
		return FailureAnalysis{}, fmt.Errorf("reflection: cache has no reflector: %w", ErrInternal)
	}
	key, ok := keyOf(&f)
	if !ok {
		call := sharedCall{}
		c.call(ctx, &f, &call)
		return call.a, call.err
	}
	for {
		c.mu.Lock()
		if a, ok := c.lookup(key); ok {
			c.mu.Unlock()
			return cloneAnalysis(a), nil
		}
		call, waiting := c.inFlight[key]
		if !waiting {
			call = &sharedCall{done: make(chan struct{})}
			c.inFlight[key] = call
			c.mu.Unlock()
			return c.lead(ctx, key, &f, call)
		}
		c.mu.Unlock()
		select {
		case <-call.done:
			if call.abandoned {
				if err := ctx.Err(); err != nil {
					return FailureAnalysis{}, err // this caller went away too
				}
				continue // its caller went away: ask in its place
			}
			return cloneAnalysis(call.a), call.err
		case <-ctx.Done():
			return FailureAnalysis{}, ctx.Err()
		}
	}
}

// lead makes the shared call, keeps its answer and wakes the waiters.
func (c *cache) lead(ctx context.Context, key cacheKey, f *Failure, call *sharedCall) (FailureAnalysis, error) {
	defer c.settle(key, call)
	c.call(ctx, f, call)
	call.abandoned = call.err != nil && ctx.Err() != nil
	return cloneAnalysis(call.a), call.err
}

// call asks r about f into call, turning a panic into an error.
func (c *cache) call(ctx context.Context, f *Failure, call *sharedCall) {
	defer catchCachedReflector(call)
	call.a, call.err = c.r.Analyze(ctx, *f)
}

func catchCachedReflector(call *sharedCall) {
	if v := recover(); v != nil {
		call.a, call.err = FailureAnalysis{}, &PanicError{Where: "reflector", Value: v}
	}
}

// settle ends a shared call: it keeps its answer, unless it is an error, and
// wakes those who wait on it.
func (c *cache) settle(key cacheKey, call *sharedCall) {
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
func (c *cache) lookup(key cacheKey) (FailureAnalysis, bool) {
	el, ok := c.entries[key]
	if !ok {
		return FailureAnalysis{}, false
	}
	e := el.Value.(*cacheEntry)
	if c.ttl > 0 && time.Since(e.stored) >= c.ttl {
		c.remove(el)
		return FailureAnalysis{}, false
	}
	c.order.MoveToFront(el)
	return e.a, true
}

// store keeps a under key, evicting the least recently used answers while
// the cache holds too many or too many bytes. An answer too large to keep
// is not kept. The key is not in the cache: only a miss makes a call, and
// only one call per key runs at a time. c.mu is held.
func (c *cache) store(key cacheKey, a FailureAnalysis) {
	n := answerBytes(&a)
	if n > min(maxCachedAnswer, c.maxBytes) {
		return
	}
	for c.order.Len() > 0 && (c.order.Len() >= c.size || c.bytes+n > c.maxBytes) {
		c.remove(c.order.Back())
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, a: cloneAnalysis(a), bytes: n, stored: time.Now()})
	c.bytes += n
}

// remove drops an entry. c.mu is held.
func (c *cache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	c.bytes -= e.bytes
}

// entryOverhead is what an entry costs besides its texts: the entry, its
// list element, its map slot and a correction's own struct, rounded up.
const entryOverhead = 512

// answerBytes is what keeping a costs, by the count of store.
func answerBytes(a *FailureAnalysis) int {
	n := entryOverhead + len(a.RootCause) + len(a.Context)
	if c := a.Correction; c != nil {
		n += len(c.Type) + len(c.Description) + len(c.ModifiedInput) + len(c.AlternativeTool) + len(c.Guidance)
	}
	return n
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
