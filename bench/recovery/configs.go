package recovery

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// jitterFraction is the jitter of every configuration's backoff. Jitter is
// one of the two things that vary between seeds (noise is the other), so it
// is drawn from each run's own seeded source.
const jitterFraction = 0.5

// adkReissues is how many times adk_reflect_retry's model issues a failed
// call again: ADK's ReflectAndRetryToolPlugin's default max_retries, counted
// per tool and per invocation (one logical call here).
const adkReissues = 3

// analyst says which Reflector a configuration asks.
type analyst int

const (
	analystNone   analyst = iota // NoopReflector: the Driver's default
	analystStatus                // go-retryablehttp's default policy
	analystBlind                 // every failure recoverable
	analystRules                 // the stock rule table
	analystOracle                // the scenario's own answer
	analystNoisy                 // the scenario's answer, wrong three times in ten
	analystOwn                   // the runner's Reflector (Options.Reflector: a model, or the user's own)
)

// config is one configuration of the benchmark.
type config struct {
	name      string
	analyst   analyst
	retries   int          // the backoff's retries; 0 keeps the Driver's default strategy
	safe      bool         // add safeOptions
	adk       bool         // failures go back to the model, which issues the call again (adkReissues)
	detection bool         // each agent's Runs share a LoopDetector
	budget    *budgetModel // a retry budget the harness keeps instead of the root's (safe only)
	own       reflection.Reflector
	noBreaker bool // leave the breaker out of safeOptions: a test of the budget alone

	// The breaker's settings (safe only); 0 means the recommended ones.
	breakerThreshold int
	breakerOpenFor   time.Duration
}

// The breaker the README recommends: two failing calls open a tool's
// breaker for ten seconds. The library's defaults (NewHealth(0, 0): three
// calls, sixty seconds) refuse a service that has recovered for up to a
// minute: on this benchmark's recovering outages they are right 40 % of
// the time, against 93 % with ten seconds, at no cost on another class
// (BENCHMARKS.md, the breaker study).
const (
	recommendedBreakerThreshold = 2
	recommendedBreakerOpenFor   = 10 * time.Second
)

// breaker is c's breaker settings: its own, or the recommended ones.
func (c config) breaker() (threshold int, openFor time.Duration) {
	threshold, openFor = c.breakerThreshold, c.breakerOpenFor
	if threshold <= 0 {
		threshold = recommendedBreakerThreshold
	}
	if openFor <= 0 {
		openFor = recommendedBreakerOpenFor
	}
	return threshold, openFor
}

// openFor is how long c's breaker stays open.
func (c config) openFor() time.Duration {
	_, openFor := c.breaker()
	return openFor
}

// configs are the standard configurations, in the order they are
// reported: the baselines, the rules without and with the guards, blind
// retry with the guards, the oracle and the noisy oracle with the guards,
// the two oracles without them, and the recommended set-up under AWS's 2026
// retry costs. Every configuration that retries but status_retry_3 uses the
// rules' strategy (three retries), so that they differ in the Reflector
// only.
var configs = []config{
	{name: "no_retry"},
	{name: "status_retry_3", analyst: analystStatus, retries: 3},
	{name: "blind_retry_3", analyst: analystBlind, retries: 3},
	{name: "blind_retry_5", analyst: analystBlind, retries: 5},
	{name: "rules", analyst: analystRules, retries: 3},
	{name: "adk_reflect_retry", adk: true},
	{name: "rules_safe", analyst: analystRules, retries: 3, safe: true},
	{name: "blind_safe", analyst: analystBlind, retries: 3, safe: true},
	{name: "oracle_safe", analyst: analystOracle, retries: 3, safe: true},
	{name: "noisy_oracle_safe", analyst: analystNoisy, retries: 3, safe: true},
	{name: "oracle", analyst: analystOracle, retries: 3},
	{name: "noisy_oracle", analyst: analystNoisy, retries: 3},
	{name: "rules_safe_aws2026", analyst: analystRules, retries: 3, safe: true, budget: &aws2026},
}

// ownConfigs are the configurations of a Reflector the runner is given:
// alone with the rules' strategy, and in the recommended set-up.
func ownConfigs(r reflection.Reflector, name string) []config {
	return []config{
		{name: name, analyst: analystOwn, retries: 3, own: r},
		{name: name + "_safe", analyst: analystOwn, retries: 3, safe: true, own: r},
	}
}

// stockRules is the stock rule table; a rules.Reflector is immutable and safe
// to share.
var stockRules = rules.New(rules.Defaults()...)

// driver returns the Driver of one run of sc under c with the given seed,
// and the wrapper that counts its Reflector's analyses. A run is every call
// of one scenario (each repeat and re-issue, from every agent) under one
// configuration and seed: it gets a Driver of its own, so its breaker,
// budget, effect memory and random sources are its own, and its agents
// share them as a host's agents share one Driver.
func (c config) driver(sc *scenario, seed uint64, p *player) (*reflection.Driver, *observed) {
	var r reflection.Reflector = reflection.NoopReflector{}
	switch c.analyst {
	case analystStatus:
		r = byStatus
	case analystBlind:
		r = blind
	case analystRules:
		r = stockRules
	case analystOracle:
		r = &oracle{sc: sc}
	case analystNoisy:
		r = &oracle{sc: sc, noise: rand.New(source(c.name, seed, sc, "noise"))}
	case analystOwn:
		r = c.own
	}
	if c.budget != nil {
		p.budget = c.budget.newBudget()
		p.w.hideHints = p.budget.awsDelays
	}
	// Every Reflector is wrapped to count its analyses, the NoopReflector of
	// no_retry too: that Driver behaves as NewDriver() does, which asks the
	// same NoopReflector about every failure.
	obs := &observed{r: r, hideHints: p.w.hideHints}
	opts := []reflection.Option{reflection.WithReflector(obs), reflection.WithObserver(p.observer())}
	if c.retries > 0 {
		b := reflection.NewExponentialBackoff(c.retries).
			WithJitter(jitterFraction).
			WithRandSource(source(c.name, seed, sc, "jitter"))
		s := &paced{inner: b}
		if p.budget != nil && p.budget.awsDelays {
			s.aws = &lockedSource{r: rand.New(source(c.name, seed, sc, "aws"))}
		}
		opts = append(opts, reflection.WithStrategy(s))
	}
	if c.safe {
		opts = append(opts, safeOptions(sc, p.w, c)...)
	}
	return reflection.NewDriver(opts...), obs
}

// observer is the Observer every run's Driver has: it records how each Run
// ended, keeps the emulated budget, and checks that every wait ends on an
// instant of its agent's (see player).
func (p *player) observer() reflection.Observer {
	return reflection.Observer{
		Ended: func(ctx context.Context, e reflection.CallEnd) {
			st := stateFrom(ctx)
			st.ended, st.outcome, st.reason = true, e.Outcome, e.Reason
		},
		Waiting: func(ctx context.Context, _ int, delay time.Duration) {
			st := stateFrom(ctx)
			if n := time.Duration(p.sc.agents); n > 1 && time.Now().Add(delay).Sub(p.t0)%n != time.Duration(st.agent) {
				p.fail(fmt.Errorf("scenario %s: agent %d waits %v, to an instant not its own", p.sc.ID, st.agent, delay))
			}
			if p.budget != nil {
				p.budget.charge(st)
			}
		},
		DispatchStart: func(ctx context.Context, _ int, _ reflection.ToolCall) {
			if p.budget != nil {
				dispatched(stateFrom(ctx))
			}
		},
	}
}
