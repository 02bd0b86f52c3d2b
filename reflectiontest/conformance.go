package reflectiontest

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
)

// The flags of the suite: every scenario is drawn from (seed, index)
// alone, so a failure names the two numbers that reproduce it.
var (
	seedFlag = flag.Uint64("reflectiontest.seed", DefaultSeed, "seed of the conformance suite's scenarios")
	nFlag    = flag.Int("reflectiontest.n", 0, "number of conformance scenarios (0: the test's own count; -short: a fifth)")
	onlyFlag = flag.Int("reflectiontest.only", -1, "run only this conformance scenario index")
)

// DefaultSeed is the seed of the suite's scenarios unless
// -reflectiontest.seed says otherwise.
const DefaultSeed = 0x5eed_2025

// DefaultScenarios is how many scenarios the suite runs unless the
// Scenarios option or -reflectiontest.n says otherwise.
const DefaultScenarios = 5000

// RunFunc runs one scenario on the runtime under test and returns what its
// call returned. The runtime performs the call s.Call with the settings of
// s.Driver(): it dispatches through s.Dispatch, asks s.Reflector() about
// failures, and s.Asker() (when not nil) when a human is to be asked. ctx
// is the caller's: it carries the task and may be cancelled, or reach its
// deadline, while the call runs. A runtime whose tool and Reflector run
// elsewhere (a workflow's activities) registers them there.
type RunFunc func(ctx context.Context, t *testing.T, s *Scenario) Ran

// Ran is what a runtime's call returned.
type Ran struct {
	Result reflection.ToolResult
	Err    error
	// Report is the runtime's Report of the call; nil when it keeps none.
	Report *reflection.Report
	// Elapsed is the time the call spent in its waits between attempts,
	// on the runtime's own clock: the sum of the Report's waits that were
	// taken will do. The suite reads it only with WithoutBubble; inside a
	// bubble it reads the fake clock itself, which also counts the time
	// the tools take.
	Elapsed time.Duration
}

// ConformanceOption tells Conformance what the runtime under test cannot
// do, or does beyond the machine's rules.
type ConformanceOption func(*suite)

// suite is what the options set.
type suite struct {
	n          int
	noBubble   bool
	noCancel   bool
	cancelAt   []string // CancelAt's steps; nil: every step
	noDeadline bool
	noObserver bool
	wire       bool
	shared     bool
}

// Scenarios sets how many scenarios the suite runs (DefaultScenarios
// without it); -reflectiontest.n overrides it, and -short runs a fifth.
func Scenarios(n int) ConformanceOption { return func(c *suite) { c.n = n } }

// WithoutBubble says the runtime cannot run inside a testing/synctest
// bubble (a workflow test environment, with a clock of its own). Its
// scenarios' tools take no time, none starts with its deadline passed, ctx
// carries no deadline (Scenario.Deadline has it), Ran.Elapsed gives the
// time the waits took, and a goroutine left behind is for the runtime's
// own test to catch (goleak).
func WithoutBubble() ConformanceOption { return func(c *suite) { c.noBubble = true } }

// WithoutCancel says the runtime cannot cancel a call at an exact point:
// no scenario cancels the ctx.
func WithoutCancel() ConformanceOption { return func(c *suite) { c.noCancel = true } }

// The steps at which a scenario cancels its call, as CancelAt names them.
const (
	CancelInDispatch  = "dispatch"  // while the tool runs
	CancelInReflector = "reflector" // while the Reflector analyses a failure
	CancelInStrategy  = "strategy"  // while the strategy decides
	CancelInAsker     = "asker"     // while a human is asked
)

// cancelSteps maps CancelAt's names to the scenarios' cancel points.
var cancelSteps = map[string]cancelPoint{
	CancelInDispatch:  cancelInDispatch,
	CancelInReflector: cancelInReflector,
	CancelInStrategy:  cancelInStrategy,
	CancelInAsker:     cancelInAsker,
}

// CancelAt says the runtime cancels a call its own way (a workflow engine
// cancels the workflow) and can make that cancel land exactly where the
// ctx's does under Driver.Run only at the named steps: CancelInDispatch,
// CancelInReflector, CancelInStrategy, CancelInAsker. The scenarios then
// cancel only at those steps, and without a cause (a cancel of the
// runtime's own carries none). The cancel still comes as the ctx given to
// the RunFunc ending, during the step (the scripted tool, Reflector,
// strategy or human cancels it); the runtime must turn it into its own
// cancel before the call goes on past that step: after the tool returns,
// after the Reflector's answer is in, after the strategy decides, or
// instead of the human's answer. A name the suite does not know fails the
// test. Without CancelAt (or WithoutCancel) the scenarios cancel at every
// step.
func CancelAt(steps ...string) ConformanceOption {
	return func(c *suite) { c.cancelAt = append([]string{}, steps...) }
}

// WithoutDeadline says the runtime has no deadline for a call: no scenario
// has one.
func WithoutDeadline() ConformanceOption { return func(c *suite) { c.noDeadline = true } }

// WithoutObserver says the runtime calls neither the Driver's Observer nor
// its logger: the suite gives the Driver none, and checks none.
func WithoutObserver() ConformanceOption { return func(c *suite) { c.noObserver = true } }

// OverJSON says the runtime carries calls, failures, analyses and answers
// as JSON between processes (a workflow engine): the suite draws only
// analyses, effects and human inputs that JSON carries unchanged, and
// compares inputs as JSON values rather than bytes.
func OverJSON() ConformanceOption { return func(c *suite) { c.wire = true } }

// WithSharedState says the runtime consults what calls share, as
// Driver.Run does: the suite adds scenarios with a Health, a RetryBudget
// and a LoopDetector (inside a bubble only: they read the clock).
func WithSharedState() ConformanceOption { return func(c *suite) { c.shared = true } }

// Conformance checks that a runtime of the recovery loop follows its
// rules. It draws scenarios (a call, the Driver's settings, and a script of
// what the tool, the Reflector, the strategy and a human do on each
// attempt, with cancels and deadlines), has run perform each one, inside a
// synctest bubble unless WithoutBubble says it cannot, and compares what
// came back with a model of the rules: every dispatched call, every
// question to the Reflector, the strategy and a human, the fake time spent,
// the result, the error, the Outcome and the Reason, and the Report and the
// Observer when the runtime has them. What a runtime cannot do, it declares
// with an option; the suite leaves those scenarios or checks out and says
// so in the test log. The first failing scenario stops the test, with the
// flags that reproduce it.
func Conformance(t *testing.T, run RunFunc, opts ...ConformanceOption) {
	t.Helper()
	cfg := suite{n: DefaultScenarios}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	n := cfg.n
	if *nFlag > 0 {
		n = *nFlag
	}
	if testing.Short() {
		n = max(n/5, 1)
	}
	start, end := 0, n
	if *onlyFlag >= 0 {
		start, end = *onlyFlag, *onlyFlag+1
	}
	seed := *seedFlag
	cancels, err := cfg.cancelPoints()
	if err != nil {
		t.Fatal(err)
	}
	for _, note := range cfg.leftOut() {
		t.Log("conformance: " + note)
	}
	var ta tally
	for i := start; i < end; i++ {
		s := generate(seed, i)
		s.limit(&cfg)
		s.limitCancels(cancels)
		want := s.model()
		ta.add(s, &want)
		name := t.Name()
		one := func(t *testing.T) {
			// A failure in a bubble ends the whole test: the scenario
			// says how to reproduce it before it goes.
			defer func() {
				if t.Failed() {
					t.Logf("conformance: scenario %d of seed %d failed; reproduce it, in the package's directory, with\n\tgo test -run '^%s$' -reflectiontest.seed=%d -reflectiontest.only=%d -v\n%v",
						i, seed, name, seed, i, s)
				}
			}()
			cfg.runOne(t, run, s, &want)
		}
		if cfg.noBubble {
			one(t)
		} else {
			synctest.Test(t, one)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	ta.log(t, seed)
}

// leftOut says what the suite leaves out for the runtime's limits.
func (c *suite) leftOut() []string {
	var notes []string
	if c.noBubble {
		notes = append(notes, "not in a synctest bubble: tools take no time, no deadline has passed at the start, and goroutine leaks are left to the runtime's own test")
	}
	if c.noCancel {
		notes = append(notes, "no scenario cancels the call (the runtime cannot cancel at an exact point)")
	} else if c.cancelAt != nil {
		notes = append(notes, fmt.Sprintf("scenarios cancel the call only at %v, and without a cause (the runtime cancels its own way)", c.cancelAt))
	}
	if c.noDeadline {
		notes = append(notes, "no scenario has a deadline")
	}
	if c.noObserver {
		notes = append(notes, "no Observer or logger is given or checked")
	}
	if c.wire {
		notes = append(notes, "analyses, effects and human inputs are ones JSON carries unchanged; inputs compare as JSON values")
	}
	if !c.shared || c.noBubble {
		notes = append(notes, "no Health, RetryBudget or LoopDetector: what calls share is not consulted")
	}
	return notes
}

// cancelPoints returns the cancel points CancelAt allows; nil allows
// every point.
func (c *suite) cancelPoints() (map[cancelPoint]bool, error) {
	if c.cancelAt == nil {
		return nil, nil
	}
	points := map[cancelPoint]bool{}
	for _, name := range c.cancelAt {
		p, ok := cancelSteps[name]
		if !ok {
			return nil, fmt.Errorf("reflectiontest: CancelAt(%q): no such step (the steps are %q, %q, %q and %q)",
				name, CancelInDispatch, CancelInReflector, CancelInStrategy, CancelInAsker)
		}
		points[p] = true
	}
	return points, nil
}

// limitCancels takes out of s the cancels at points the runtime cannot
// cancel at, and the cause of the cancel, when the runtime cancels its own
// way (allowed is not nil).
func (s *Scenario) limitCancels(allowed map[cancelPoint]bool) {
	if allowed == nil {
		return
	}
	s.withCause = false
	for i := range s.steps {
		if st := &s.steps[i]; st.cancel != cancelNone && !allowed[st.cancel] {
			st.cancel = cancelNone
		}
	}
}

// runOne runs s once on the runtime and checks it against want.
func (c *suite) runOne(t *testing.T, run RunFunc, s *Scenario, want *expect) {
	ctx, release := s.prepare(t, c)
	defer release()
	start := time.Now()
	ran, ok := callRuntime(ctx, t, run, s)
	elapsed := time.Since(start)
	if c.noBubble {
		elapsed = ran.Elapsed
	}
	o := s.snapshot()
	o.ran, o.elapsed, o.ctxErr = ran, elapsed, ctx.Err()
	if s.tokens != nil {
		o.tokens = s.tokens.Tokens()
	}
	if ok {
		s.verify(t, want, &o)
	}
}

// callRuntime runs s on the runtime; a panic is a failure of the runtime.
func callRuntime(ctx context.Context, t *testing.T, run RunFunc, s *Scenario) (ran Ran, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			t.Errorf("the runtime panicked: %v", v)
			ok = false
		}
	}()
	return run(ctx, t, s), true
}

// tally counts what the scenarios exercised.
type tally struct {
	scenarios, dispatches int
	endings               map[string]int
	seen                  map[string]int // the kinds of fault exercised, with -v
}

func (ta *tally) add(s *Scenario, w *expect) {
	if ta.endings == nil {
		ta.endings, ta.seen = map[string]int{}, map[string]int{}
	}
	ta.scenarios++
	ta.dispatches += len(w.dispatched)
	ending := w.outcome.String()
	if w.reason != "" {
		ending += "/" + string(w.reason)
	}
	ta.endings[ending]++
	for k := range w.dispatched {
		ta.seen["tool "+s.steps[k].does.String()]++
	}
	for k := range w.failures {
		ta.seen["reflector "+s.steps[k].refl.String()]++
	}
	for _, k := range w.strategy {
		switch st := &s.steps[k]; {
		case s.backoff != nil:
			ta.seen["strategy ExponentialBackoff"]++
		case st.panics:
			ta.seen["strategy panic"]++
		default:
			ta.seen[fmt.Sprintf("strategy %T", st.action)]++
		}
		if c := s.steps[k].analysis.Correction; c != nil {
			ta.seen["correction "+string(c.Type)]++
		}
	}
	for _, q := range w.questions {
		kind := "human asked (strategy): "
		if q.effect {
			kind = "human asked (effect guard): "
		}
		ta.seen[kind+s.steps[q.attempt].answer.String()]++
	}
	for _, ok := range w.corrected {
		ta.seen[fmt.Sprintf("correction applied=%v", ok)]++
	}
	if w.hard == hardCanceled || w.hard == hardDeadline {
		ta.seen["ctx ended: "+w.hard.String()]++
	}
	for name, on := range map[string]bool{
		"option WithEffects": s.effects != nil, "option WithLoopGuard": s.loopGuard, "option WithAsker": s.asker,
		"option WithHealth": s.health != nil, "option WithRetryBudget": s.budget > 0, "option WithLoopDetection": s.detector != nil,
	} {
		if on {
			ta.seen[name]++
		}
	}
}

func (ta *tally) log(t *testing.T, seed uint64) {
	t.Logf("conformance: seed %d: %d scenarios, %d dispatches", seed, ta.scenarios, ta.dispatches)
	t.Logf("conformance: endings (outcome/reason): %s", sortedCounts(ta.endings, ", "))
	if testing.Verbose() {
		t.Logf("conformance: exercised:\n%s", sortedCounts(ta.seen, "\n"))
	}
}

func sortedCounts(m map[string]int, sep string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += sep
		}
		out += fmt.Sprintf("%s %d", k, m[k])
	}
	return out
}
