package reflection

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"reflect"
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

// What NewCache's key tells apart: everything in a Failure an answer can
// depend on, except the attempt numbers. Two failures share a key only when
// they have the same tool, input, failure text, task and schema, and an
// error of the same identity (see writeErrIdentity). The key is a SHA-256
// digest of all that, so it takes 32 bytes whatever the failure's size.

// cacheKey is the digest of a failure.
type cacheKey [sha256.Size]byte

// maxIdentityErrors bounds how many errors of Failure.Err's tree the key
// reads the types of.
const maxIdentityErrors = 32

// identitySentinels are the common errors a key records a match with, as
// errors.Is would find it (a syscall.Errno matches fs.ErrPermission, for
// one). A Reflector that tells failures apart by other errors still sees
// them told apart by type along the chain, or by text.
var identitySentinels = [...]error{
	context.Canceled, context.DeadlineExceeded,
	fs.ErrPermission, fs.ErrNotExist, fs.ErrExist, fs.ErrClosed, fs.ErrInvalid,
	io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, errors.ErrUnsupported,
	ErrPanicked, ErrInternal, ErrSkipped,
}

// keyHasher computes a key without allocating: it is reused through a
// pool, and gathers small writes in its own buffer (which also carries
// strings to the hash, whose Write takes bytes).
type keyHasher struct {
	h   hash.Hash
	buf [512]byte
	n   int // bytes of buf not yet written to h
	sum cacheKey
}

var keyHashers = sync.Pool{New: func() any { return &keyHasher{h: sha256.New()} }}

// keyOf returns the key of f. ok is false when reading Failure.Err panicked
// part way: such a failure is analysed without the cache.
func keyOf(f *Failure) (key cacheKey, ok bool) {
	k := keyHashers.Get().(*keyHasher)
	defer keyHashers.Put(k)
	k.h.Reset()
	k.n = 0
	k.str(f.Tool)
	k.bytes(f.Input)
	k.str(f.Error)
	k.str(f.Task)
	if s := f.Schema; s != nil {
		k.num(1)
		k.str(s.Name)
		k.str(s.Description)
		k.bytes(s.InputSchema)
	} else {
		k.num(0)
	}
	if !k.errIdentity(f) {
		return key, false
	}
	k.flush()
	k.h.Sum(k.sum[:0])
	return k.sum, true
}

// str writes s, prefixed by its length so that no two sequences of texts
// write the same bytes.
func (k *keyHasher) str(s string) {
	k.num(uint64(len(s)))
	for len(s) > 0 {
		if k.n == len(k.buf) {
			k.flush()
		}
		c := copy(k.buf[k.n:], s)
		k.n += c
		s = s[c:]
	}
}

// bytes writes b, prefixed by its length.
func (k *keyHasher) bytes(b []byte) {
	k.num(uint64(len(b)))
	if len(b) <= len(k.buf)-k.n {
		k.n += copy(k.buf[k.n:], b)
		return
	}
	k.flush()
	k.h.Write(b)
}

// num writes n as 8 bytes.
func (k *keyHasher) num(n uint64) {
	if len(k.buf)-k.n < 8 {
		k.flush()
	}
	binary.LittleEndian.PutUint64(k.buf[k.n:], n)
	k.n += 8
}

// flush writes the buffer to the hash.
func (k *keyHasher) flush() {
	k.h.Write(k.buf[:k.n])
	k.n = 0
}

// errIdentity writes what tells Failure.Err apart from another error of the
// same text: the dynamic type of each error of its tree (and the value of
// one that is a number, a string or a bool, as a syscall.Errno is), the
// common sentinels it matches, its HTTP status and its rate-limit hint, and
// its text when Failure.Error is empty. It reports false when a method of
// the tree panicked.
func (k *keyHasher) errIdentity(f *Failure) (ok bool) {
	err := f.Err
	if err == nil {
		k.num(0)
		return true
	}
	k.num(1)
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	budget := maxIdentityErrors
	k.errTypes(err, &budget)
	var matched uint64
	for i, target := range identitySentinels {
		if chainIs(err, target) {
			matched |= 1 << i
		}
	}
	k.num(matched)
	k.num(uint64(StatusCode(err)))
	k.num(uint64(retryAfterHint(err)))
	if f.Error == "" {
		k.str(errorText(err))
	}
	return true
}

// errTypes writes the types (and simple values) of err's tree depth first,
// as errors.Is visits it, until *budget errors have been written.
func (k *keyHasher) errTypes(err error, budget *int) {
	for ; err != nil && *budget > 0; *budget-- {
		v := reflect.ValueOf(err)
		k.num(uint64(reflect.ValueOf(v.Type()).Pointer())) // one type, one address, for the process's life
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			k.num(uint64(v.Int()))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			k.num(v.Uint())
		case reflect.String:
			k.str(v.String())
		case reflect.Bool:
			if v.Bool() {
				k.num(1)
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			k.num(uint64(len(errs)))
			for _, e := range errs {
				if *budget <= 0 {
					break
				}
				*budget-- // a nil error counts too
				k.errTypes(e, budget)
			}
			return
		default:
			k.num(0) // the end of a chain
			return
		}
	}
}

// InputCheck returns the wrapped Reflector's input check, or nil.
func (c *cache) InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error {
	return reflectorCheck(c.r, lookup)
}
