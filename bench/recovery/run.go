package recovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// runResult is what one run (every call of one scenario, under one
// configuration and seed) did. "Calls" are Runs: re-issues count.
type runResult struct {
	logical    int           // logical calls: the scenario's repeat
	right      int           // logical calls that ended right
	calls      int           // Runs, re-issues included
	dispatches int           // attempts that reached the tools
	analyses   int           // Reflector calls
	duplicates int           // duplicate effects, over every logical call
	waited     time.Duration // virtual time spent inside Runs (tools answer at once: waiting)

	asked           int // Runs that ended in AskUser
	verifications   int // verifier calls
	breakerRefusals int // Runs ended by an open breaker
	budgetRefusals  int // Runs ended by the retry budget

	// Of a scenario whose outage recovers (recovers_after_s).
	recovering      bool
	lag             time.Duration // from the recovery to the end of the first success after it
	inTime          bool          // lag is within the breaker's open time plus two call gaps
	healthyRefusals int           // Runs refused by a breaker or budget at or after the recovery
}

// isRight applies the scenario's rule: at least 90 % of its logical calls
// ended right (all of them when there is one).
func (r runResult) isRight() bool { return r.right*10 >= r.logical*9 }

// player runs one scenario under one configuration and seed: its agents,
// each making its share of the calls on the one Driver they share, in
// virtual time.
//
// Every agent does its work at instants of its own: agent i of N acts only
// at virtual instants whose nanoseconds since the run's start are i modulo
// N (a call due at t starts at the first such instant at or after t, and
// every wait between retries is stretched by less than N nanoseconds to end
// on one). Two agents never act at the same instant, so they never race for
// the breaker, the budget, the faults or the jitter's random source, and a
// run is the same whatever the goroutine scheduler does. Agents due at the
// same virtual instant thus start in index order.
type player struct {
	c      config
	sc     *scenario
	w      *world
	d      *reflection.Driver
	obs    *observed
	t0     time.Time
	budget *budgetModel // the emulated retry budget, nil when the root's is used

	mu      sync.Mutex
	records [][]*callState // per logical call: its Runs in order
	err     error          // a broken invariant of the harness
}

// play runs every call of sc under c with the given seed. It must run in a
// synctest bubble: the Driver's waits and the gaps between calls then take
// no real time, and the clock reads virtual time.
func play(c config, sc *scenario, seed uint64) (runResult, error) {
	p := &player{c: c, sc: sc, t0: time.Now(), records: make([][]*callState, sc.calls)}
	p.w = newWorld(sc, p.t0)
	p.d, p.obs = c.driver(sc, seed, p)
	var wg sync.WaitGroup
	for i := range sc.agents {
		wg.Go(func() { p.agent(i) })
	}
	wg.Wait()
	if p.err != nil {
		return runResult{}, p.err
	}
	return p.result(), nil
}

// reissues is how many times the model issues a logical call again after
// it ends without success.
func (p *player) reissues() int {
	if p.c.adk {
		return adkReissues
	}
	return p.sc.Reissue
}

// agent makes agent i's calls: i, i+N, i+2N, … of the scenario's logical
// calls, each followed by its re-issues while it ends without success. The
// agent's k-th Run starts at k·gap, or when its previous Run ended if that
// is later.
func (p *player) agent(i int) {
	ctx := context.Background()
	if p.c.detection {
		// A loop detector is one agent's session.
		ctx = reflection.ContextWithLoopDetector(ctx, reflection.NewLoopDetector(0, 0))
	}
	k, last := 0, p.t0
	for lc := i; lc < p.sc.calls; lc += p.sc.agents {
		for r := 0; ; r++ {
			at := p.t0.Add(time.Duration(k) * p.sc.gap)
			if at.Before(last) {
				at = last
			}
			at = p.stagger(at, i)
			time.Sleep(time.Until(at))
			k++
			st := p.runOnce(ctx, i, lc, r)
			last = st.end
			if st.succeeded() || r >= p.reissues() {
				break
			}
		}
	}
}

// stagger returns the first instant at or after t that belongs to agent i
// (see player).
func (p *player) stagger(t time.Time, i int) time.Time {
	n := time.Duration(p.sc.agents)
	if n == 1 {
		return t
	}
	off := t.Sub(p.t0) % n
	return t.Add((time.Duration(i) - off + n) % n)
}

// runOnce makes Run r of logical call lc from agent i and records it.
func (p *player) runOnce(ctx context.Context, i, lc, r int) *callState {
	st := &callState{p: p, agent: i, logical: lc, reissue: r, start: time.Now()}
	ctx, cancel := context.WithCancelCause(withState(ctx, st))
	defer cancel(nil)
	st.budget.cancel = cancel
	call := reflection.ToolCall{ID: callID(p.sc, lc, r), Name: p.sc.Call.Name, Input: p.sc.Call.Input}
	res, err := p.d.Run(ctx, call, p.w.dispatch)
	st.end = time.Now()
	if !st.ended {
		p.fail(fmt.Errorf("scenario %s: a Run ended without the Observer's Ended hook", p.sc.ID))
	}
	if err == nil && !res.IsError {
		st.outcome = reflection.OutcomeSucceeded
	} else if st.outcome == reflection.OutcomeSucceeded {
		p.fail(fmt.Errorf("scenario %s: the Observer saw a success that Run did not return", p.sc.ID))
	}
	if p.budget != nil {
		p.budget.settle(st)
	}
	p.mu.Lock()
	p.records[lc] = append(p.records[lc], st)
	p.mu.Unlock()
	return st
}

// fail records a broken invariant; play returns the first.
func (p *player) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
}

// result adds up the records.
func (p *player) result() runResult {
	sc := p.sc
	res := runResult{logical: sc.calls, recovering: sc.heal > 0, analyses: int(p.obs.n.Load())}
	healed := p.t0.Add(sc.heal)
	var firstSuccess, lastEnd time.Time
	for lc, runs := range p.records {
		dups := p.w.duplicates(lc)
		res.duplicates += dups
		if p.judge(runs) && (sc.Reissue == 0 || dups == 0) {
			res.right++
		}
		for _, st := range runs {
			res.calls++
			res.dispatches += st.dispatches
			res.verifications += st.verifications
			res.waited += st.end.Sub(st.start)
			refused := false
			switch {
			case st.outcome == reflection.OutcomeAskedUser:
				res.asked++
			case st.reason == reflection.ReasonCircuitOpen:
				res.breakerRefusals++
				refused = true
			case st.reason == reflection.ReasonBudgetExhausted || st.budget.refused:
				res.budgetRefusals++
				refused = true
			}
			if !res.recovering {
				continue
			}
			if refused && !st.end.Before(healed) {
				res.healthyRefusals++
			}
			if st.succeeded() && !st.end.Before(healed) && (firstSuccess.IsZero() || st.end.Before(firstSuccess)) {
				firstSuccess = st.end
			}
			if st.end.After(lastEnd) {
				lastEnd = st.end
			}
		}
	}
	if res.recovering {
		if firstSuccess.IsZero() {
			firstSuccess = lastEnd
		}
		res.lag = max(firstSuccess.Sub(healed), 0)
		res.inTime = res.lag <= p.recoveryAllowance()
	}
	return res
}

// recoveryAllowance is how soon after its outage ends the first success
// should come: the breaker's open time plus two of the scenario's call gaps.
func (p *player) recoveryAllowance() time.Duration {
	return p.c.openFor() + 2*p.sc.gap
}

// judge reports whether a logical call, made by runs (the call and its
// re-issues, in order), ended right. What is judged is the call as first
// made; under adk_reflect_retry, whose re-issues are its recovery, the call
// and its re-issues together (succeeded when the last succeeded, with the
// dispatches of all of them). In a scenario whose outage recovers, a call
// made at or after the recovery is right when it succeeds; one made before
// is right when it ends as the scenario says, or succeeds.
func (p *player) judge(runs []*callState) bool {
	judged := runs[:1]
	if p.c.adk {
		judged = runs
	}
	succeeded := judged[len(judged)-1].succeeded()
	dispatches := 0
	for _, st := range judged {
		dispatches += st.dispatches
	}
	if p.sc.heal > 0 {
		if !runs[0].start.Before(p.t0.Add(p.sc.heal)) {
			return succeeded
		}
		if succeeded {
			return true
		}
	}
	return endsRight(p.sc.Right, succeeded, dispatches)
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

// errBudgetRefused is the cause of a Run's ctx when the emulated retry
// budget refused its retry.
var errBudgetRefused = errors.New("recovery: the emulated retry budget refused the retry")
