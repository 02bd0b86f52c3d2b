package reflection

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"io/fs"
	"reflect"
	"sync"
)

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
