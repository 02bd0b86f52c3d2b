package recovery

import (
	"math/rand/v2"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// jitterFraction is the jitter of every configuration's backoff. Jitter is
// one of the two things that vary between seeds (noise is the other), so it
// is drawn from each run's own seeded source.
const jitterFraction = 0.5

// pendingNote is what a configuration says while the root package lacks the
// options it needs.
const pendingNote = "pending: safety options not in the root package yet"

// analyst says which Reflector a configuration asks.
type analyst int

const (
	analystNone   analyst = iota // NoopReflector: the Driver's default
	analystBlind                 // every failure recoverable
	analystRules                 // the stock rule table
	analystOracle                // the scenario's own answer
	analystNoisy                 // the scenario's answer, wrong three times in ten
)

// config is one configuration of the benchmark.
type config struct {
	name    string
	analyst analyst
	retries int  // the backoff's retries; 0 keeps the Driver's default strategy
	safe    bool // add safeOptions
}

// configs are the configurations, in the order they are reported: the three
// baselines, the rules without and with the guards, the oracle and the noisy
// oracle with the guards, and the two oracles without them, for comparison.
// Every configuration but the baselines uses the rules' strategy (three
// retries), so that the oracles differ from rules in the Reflector only.
var configs = []config{
	{name: "no_retry"},
	{name: "blind_retry_3", analyst: analystBlind, retries: 3},
	{name: "blind_retry_5", analyst: analystBlind, retries: 5},
	{name: "rules", analyst: analystRules, retries: 3},
	{name: "rules_safe", analyst: analystRules, retries: 3, safe: true},
	{name: "oracle_safe", analyst: analystOracle, retries: 3, safe: true},
	{name: "noisy_oracle_safe", analyst: analystNoisy, retries: 3, safe: true},
	{name: "oracle", analyst: analystOracle, retries: 3},
	{name: "noisy_oracle", analyst: analystNoisy, retries: 3},
}

// pending reports whether c needs options the root package does not have yet.
func (c config) pending() bool { return c.safe && !safetyReady }

// stockRules is the stock rule table; a rules.Reflector is immutable and safe
// to share.
var stockRules = rules.New(rules.Defaults()...)

// driver returns the Driver of one run of sc under c with the given seed,
// and the counter of its Reflector's analyses. A run is every call (each
// repeat) of one scenario under one configuration and seed: it gets a Driver
// of its own, so its breaker, budget and random sources are its own, and
// its calls share them as the calls of one agent would.
func (c config) driver(sc *scenario, seed uint64, shared *sharedState) (*reflection.Driver, *counting) {
	var r reflection.Reflector = reflection.NoopReflector{}
	switch c.analyst {
	case analystBlind:
		r = blind
	case analystRules:
		r = stockRules
	case analystOracle:
		r = &oracle{sc: sc}
	case analystNoisy:
		r = &oracle{sc: sc, noise: rand.New(source(c.name, seed, sc, "noise"))}
	}
	// Every Reflector is wrapped to count its analyses, the NoopReflector of
	// no_retry too: that Driver behaves as NewDriver() does, which asks the
	// same NoopReflector about every failure.
	cnt := &counting{r: r}
	opts := []reflection.Option{reflection.WithReflector(cnt)}
	if c.retries > 0 {
		b := reflection.NewExponentialBackoff(c.retries).
			WithJitter(jitterFraction).
			WithRandSource(source(c.name, seed, sc, "jitter"))
		opts = append(opts, reflection.WithStrategy(b))
	}
	if c.safe {
		opts = append(opts, safeOptions(sc, shared)...)
	}
	return reflection.NewDriver(opts...), cnt
}
