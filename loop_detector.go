package reflection

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// Defaults of NewLoopDetector: loopctl's.
const (
	defaultWarnAt = 3
	defaultStopAt = 10
)

// loopRecords is how many dispatches a LoopDetector remembers.
const loopRecords = 1000

// LoopDetector notices an agent run that calls the same tool with the same
// input and gets the same result again and again (loopctl's loop detector).
// Use one per agent run (a session), put in the ctx of its calls with
// ContextWithLoopDetector, and give the Driver WithLoopDetection. It is safe
// for concurrent use.
//
// Every dispatch of a Run under a detector, the original call and each
// retry, success or failure, is recorded as (tool, input as a JSON value,
// result: its text and whether it failed). Before each dispatch the detector
// is asked: when the same tool and input have already returned one same
// result stopAt times in the session, nothing is dispatched and Run ends
// with a hard *LoopDetectedError (OutcomeStopped, ReasonLoopDetected), its
// result saying the dispatch was refused. The question and the record are
// one: a dispatch of the same tool and input that is still running counts
// as a repeat, so calls that run at once are refused as if they had run one
// after the other, and no more than stopAt of them run. A different result for the same
// tool and input is progress: only identical results count, one after the
// other or not. With WithRecoveryNotes, the result of a dispatch that brings
// the count to warnAt or more tells the model so. A detector remembers its
// last 1,000 dispatches, each as a fixed-size digest, and no more.
type LoopDetector struct {
	warnAt, stopAt int

	mu      sync.Mutex
	ring    [loopRecords]loopRecord
	next    int // where the next record goes
	full    bool
	results map[digest]int // how often each (tool, input, result) is in the ring
	calls   map[digest][]digest
	running map[digest]int // dispatches of each (tool, input) under way
}

// digest identifies a call, or a call and its result.
type digest [sha256.Size]byte

// loopRecord is one dispatch in the ring.
type loopRecord struct{ call, result digest }

// NewLoopDetector returns a detector that adds a note once a call has
// returned the same result warnAt times, and refuses the next dispatch once
// it has stopAt times. 0 or less means loopctl's defaults: 3 and 10.
func NewLoopDetector(warnAt, stopAt int) *LoopDetector {
	if warnAt <= 0 {
		warnAt = defaultWarnAt
	}
	if stopAt <= 0 {
		stopAt = defaultStopAt
	}
	return &LoopDetector{warnAt: warnAt, stopAt: stopAt, results: map[digest]int{}, calls: map[digest][]digest{},
		running: map[digest]int{}}
}

type loopDetectorKey struct{}

// ContextWithLoopDetector makes the Runs under ctx record into, and consult,
// d (with WithLoopDetection).
func ContextWithLoopDetector(ctx context.Context, d *LoopDetector) context.Context {
	return context.WithValue(ctx, loopDetectorKey{}, d)
}

// loopDetectorFrom returns the detector in ctx, or nil.
func loopDetectorFrom(ctx context.Context) *LoopDetector {
	d, _ := ctx.Value(loopDetectorKey{}).(*LoopDetector)
	return d
}

// WithLoopDetection makes the Driver use the LoopDetector in each Run's ctx
// (ContextWithLoopDetector); a Run whose ctx has none is not watched.
func WithLoopDetection() Option {
	return func(d *Driver) { d.detection = true }
}

// reserve asks whether call may be dispatched now and, when it may, holds
// its place until record or release: it returns the digest of call and how
// often call has returned its most frequent result in the session, counting
// the dispatches of call still under way.
func (d *LoopDetector) reserve(call ToolCall) (key digest, n int, ok bool) {
	key = callDigest(call)
	d.mu.Lock()
	defer d.mu.Unlock()
	most := 0
	for _, r := range d.calls[key] {
		most = max(most, d.results[r])
	}
	n = most + d.running[key]
	if n >= d.stopAt {
		return key, n, false
	}
	d.running[key]++
	return key, n, true
}

// release gives back the place reserve held for a dispatch that did not
// run.
func (d *LoopDetector) release(key digest) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unrun(key)
}

// unrun drops one dispatch of key from those under way. d.mu is held.
func (d *LoopDetector) unrun(key digest) {
	if n := d.running[key]; n > 1 {
		d.running[key] = n - 1
	} else {
		delete(d.running, key)
	}
}

// record notes a dispatch of the call whose digest is key, and returns how
// often its result has now come back for it in the session.
func (d *LoopDetector) record(key digest, o *outcome) int {
	rec := loopRecord{call: key, result: resultDigest(key, o)}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unrun(key)
	if d.full {
		d.forget(d.ring[d.next])
	}
	d.ring[d.next] = rec
	d.next = (d.next + 1) % loopRecords
	d.full = d.full || d.next == 0
	n := d.results[rec.result] + 1
	d.results[rec.result] = n
	if n == 1 {
		d.calls[rec.call] = append(d.calls[rec.call], rec.result)
	}
	return n
}

// forget drops a record that leaves the ring. d.mu is held.
func (d *LoopDetector) forget(old loopRecord) {
	n := d.results[old.result] - 1
	if n > 0 {
		d.results[old.result] = n
		return
	}
	delete(d.results, old.result)
	rs := d.calls[old.call]
	for i, r := range rs {
		if r == old.result {
			rs = append(rs[:i], rs[i+1:]...)
			break
		}
	}
	if len(rs) == 0 {
		delete(d.calls, old.call)
	} else {
		d.calls[old.call] = rs
	}
}

// resultDigest identifies a call's result: its text and whether it failed.
func resultDigest(call digest, o *outcome) digest {
	h := sha256.New()
	h.Write(call[:])
	text, failed := o.res.Content, o.failed()
	if o.err != nil {
		text = errorText(o.err)
	}
	writeField(h, []byte(text))
	if failed {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	var d digest
	h.Sum(d[:0])
	return d
}

// writeField writes b with its length first, so no two lists of fields
// write the same bytes.
func writeField(h interface{ Write([]byte) (int, error) }, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}
