package recovery

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
)

// callState is the record of one Run: which agent made it, for which
// logical call, and what the harness saw of it. It travels in the Run's ctx,
// so that the tools, the Reflector, the strategy, the verifier and the
// Observer of a Driver shared by agents all write to the right record. One
// Run is one goroutine's, so a callState needs no lock.
type callState struct {
	p       *player // nil outside a run (unit tests)
	agent   int
	logical int // the logical call: the scenario's repeat this Run belongs to
	reissue int // 0 for the call as first made, then each re-issue

	start, end    time.Time
	dispatches    int
	verifications int
	ended         bool // the Observer's Ended hook ran
	outcome       reflection.Outcome
	reason        reflection.Reason

	// The latest failure, as the wrappers around the Reflector and the
	// strategy need it.
	fault *faultSpec    // the fault met, nil for a reject
	full  error         // its error with every layer, the Retry-After too
	hint  time.Duration // the rate-limit hint the machine waits for

	// The emulated retry budget (awsRetry) of this Run.
	budget budgetCall
}

type callKey struct{}

// withState returns ctx carrying st.
func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, callKey{}, st)
}

// stateFrom returns the record in ctx, or a throwaway one for logical call
// 0 when there is none.
func stateFrom(ctx context.Context) *callState {
	if st, ok := ctx.Value(callKey{}).(*callState); ok {
		return st
	}
	return &callState{}
}

// succeeded reports whether the Run ended in success.
func (st *callState) succeeded() bool { return st.outcome == reflection.OutcomeSucceeded }
