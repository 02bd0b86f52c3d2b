package recovery

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
)

// runResult is what one run (every call of one scenario, under one
// configuration and seed) did.
type runResult struct {
	calls      int           // calls made: the scenario's repeat
	right      int           // calls that ended as the scenario says is right
	dispatches int           // attempts that reached the tools, refused ones included
	analyses   int           // Reflector calls
	duplicates int           // duplicate effects
	waited     time.Duration // virtual time from the first call to the end of the last
}

// isRight applies the scenario's rule: at least 90 % of its calls ended
// right (all of them when there is one call).
func (r runResult) isRight() bool { return r.right*10 >= r.calls*9 }

// play runs every call of sc, one after the other with no time between them,
// on one Driver. It must run in a synctest bubble: the Driver's waits then
// take no real time, and time.Since measures the virtual time they took.
// Tools answer at once, so that time is the time spent waiting.
func play(c config, sc *scenario, seed uint64) runResult {
	d, analyses := c.driver(sc, seed, newSharedState())
	w := newWorld(sc)
	ctx := context.Background()
	start := time.Now()
	var res runResult
	for i := range sc.calls {
		w.beginCall()
		call := reflection.ToolCall{ID: callID(sc, i), Name: sc.Call.Name, Input: sc.Call.Input}
		out, err := d.Run(ctx, call, w.dispatch)
		if endsRight(sc.Right, err == nil && !out.IsError, w.dispatches) {
			res.right++
		}
		res.calls++
		res.dispatches += w.dispatches
		res.duplicates += w.duplicates()
	}
	res.analyses = int(analyses.n.Load())
	res.waited = time.Since(start)
	return res
}

// endsRight reports whether a call ended as right says: in success, or
// without success and with at most one dispatch (a call a breaker refused
// before any dispatch counts).
func endsRight(right string, succeeded bool, dispatches int) bool {
	if right == rightSucceed {
		return succeeded
	}
	return !succeeded && dispatches <= 1
}
