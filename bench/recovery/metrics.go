package recovery

import (
	"math"
	"time"
)

// seeds is the number of seeds every configuration runs with by default;
// pass^k is reported for k = 1 … seeds.
const seeds = 5

// outageClass is the class over which amplification is measured.
const outageClass = "outage"

// result is what one configuration achieved and cost over every scenario and
// seed. The JSON keys are the benchmark's metric names.
type result struct {
	Config    string `json:"config"`
	Scenarios int    `json:"scenarios"`

	// Correct is the share of scenarios that are right, averaged over the
	// seeds; CorrectByClass is the same per class. CorrectCI and
	// CorrectByClassCI are their 95 % Wilson intervals, with the scenarios as
	// the trials (seeds repeat a scenario; they do not add independent ones).
	Correct          float64               `json:"correct"`
	CorrectCI        [2]float64            `json:"correct_ci"`
	CorrectByClass   map[string]float64    `json:"correct_by_class"`
	CorrectByClassCI map[string][2]float64 `json:"correct_by_class_ci"`

	// PassK[k-1] is τ-bench's pass^k: the mean over scenarios of
	// C(c,k)/C(seeds,k), c the number of seeds in which the scenario is right.
	// It is the chance that k runs drawn from the seeds are all right.
	PassK []float64 `json:"pass_k"`

	// DuplicateEffects counts the duplicate effects over every run (all
	// scenarios, all seeds).
	DuplicateEffects int `json:"duplicate_effects"`

	// Amplification is the dispatches per call over the outage class, every
	// repeat a call; 0 when the set has no outage.
	Amplification float64 `json:"amplification"`

	// Over every call (every Run, re-issues included) of every scenario and
	// seed.
	DispatchesPerCall      float64 `json:"dispatches_per_call"`
	ReflectorCallsPerCall  float64 `json:"reflector_calls_per_call"`
	WaitedSecondsPerCall   float64 `json:"waited_seconds_per_call"`
	AskedPerCall           float64 `json:"asked_per_call"`
	VerificationsPerCall   float64 `json:"verifications_per_call"`
	BreakerRefusalsPerCall float64 `json:"breaker_refusals_per_call"`
	BudgetRefusalsPerCall  float64 `json:"budget_refusals_per_call"`

	// Over the runs of the scenarios whose outage recovers: the mean virtual
	// seconds from the recovery to the end of the first success after it
	// (to the end of the run when none came), the Runs a breaker or budget
	// refused at or after the recovery per Run of those scenarios, and the
	// share of runs whose first success came within the breaker's open time
	// plus two of the scenario's call gaps.
	RecoveryLagSeconds     float64 `json:"recovery_lag_seconds"`
	HealthyRefusalsPerCall float64 `json:"healthy_refusals_per_call"`
	RecoveredInTime        float64 `json:"recovered_in_time"`
}

// summarize turns the runs of one configuration into its result. runs[s][i]
// is the run of scenario i with seed s+1. Every share is a ratio of integer
// counts, divided once and rounded to four places, so that the numbers are
// the same on every platform.
func summarize(name string, scs []*scenario, runs [][]runResult) result {
	n := len(runs)
	res := result{Config: name, Scenarios: len(scs), CorrectByClass: map[string]float64{},
		CorrectByClassCI: map[string][2]float64{}, PassK: make([]float64, n)}
	rightSeeds := make([]int, len(scs)) // per scenario: seeds in which it is right
	var c counts
	for _, seedRuns := range runs {
		for i, r := range seedRuns {
			if r.isRight() {
				rightSeeds[i]++
			}
			c.add(scs[i], r)
			res.DuplicateEffects += r.duplicates
		}
	}
	perClass := map[string][3]int{} // class: right runs, runs, scenarios
	totalRight := 0
	for i, sc := range scs {
		pc := perClass[sc.Class]
		pc[0] += rightSeeds[i]
		pc[1] += n
		pc[2]++
		perClass[sc.Class] = pc
		totalRight += rightSeeds[i]
	}
	res.Correct = ratio(totalRight, len(scs)*n)
	res.CorrectCI = wilson(res.Correct, len(scs))
	for class, pc := range perClass {
		res.CorrectByClass[class] = ratio(pc[0], pc[1])
		res.CorrectByClassCI[class] = wilson(res.CorrectByClass[class], pc[2])
	}
	for k := 1; k <= n; k++ {
		sum := 0
		for _, rs := range rightSeeds {
			sum += binomial(rs, k)
		}
		res.PassK[k-1] = ratio(sum, len(scs)*binomial(n, k))
	}
	res.Amplification = ratio(c.outageDispatches, c.outageCalls)
	res.DispatchesPerCall = ratio(c.dispatches, c.calls)
	res.ReflectorCallsPerCall = ratio(c.analyses, c.calls)
	res.WaitedSecondsPerCall = round4(c.waited.Seconds() / float64(max(c.calls, 1)))
	res.AskedPerCall = ratio(c.asked, c.calls)
	res.VerificationsPerCall = ratio(c.verifications, c.calls)
	res.BreakerRefusalsPerCall = ratio(c.breakerRefusals, c.calls)
	res.BudgetRefusalsPerCall = ratio(c.budgetRefusals, c.calls)
	res.RecoveryLagSeconds = round4(c.lag.Seconds() / float64(max(c.recoveringRuns, 1)))
	res.HealthyRefusalsPerCall = ratio(c.healthyRefusals, c.recoveringCalls)
	res.RecoveredInTime = ratio(c.inTime, c.recoveringRuns)
	return res
}

// counts are the sums summarize divides.
type counts struct {
	calls, dispatches, analyses, asked, verifications, breakerRefusals, budgetRefusals int
	outageCalls, outageDispatches                                                      int
	recoveringRuns, recoveringCalls, healthyRefusals, inTime                           int
	waited, lag                                                                        time.Duration
}

func (c *counts) add(sc *scenario, r runResult) {
	c.calls += r.calls
	c.dispatches += r.dispatches
	c.analyses += r.analyses
	c.asked += r.asked
	c.verifications += r.verifications
	c.breakerRefusals += r.breakerRefusals
	c.budgetRefusals += r.budgetRefusals
	c.waited += r.waited
	if sc.Class == outageClass {
		c.outageCalls += r.calls
		c.outageDispatches += r.dispatches
	}
	if r.recovering {
		c.recoveringRuns++
		c.recoveringCalls += r.calls
		c.healthyRefusals += r.healthyRefusals
		c.lag += r.lag
		if r.inTime {
			c.inTime++
		}
	}
}

// ratio returns n/d rounded to four places, and 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return round4(float64(n) / float64(d))
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// wilson returns the 95 % Wilson score interval of a share p observed over
// n trials, rounded to four places; [0, 0] when n is 0.
func wilson(p float64, n int) [2]float64 {
	if n == 0 {
		return [2]float64{}
	}
	const z = 1.959964 // the 97.5th percentile of the standard normal
	nf := float64(n)
	denom := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / denom
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / denom
	return [2]float64{round4(max(centre-half, 0)), round4(min(centre+half, 1))}
}

// binomial returns C(n, k), 0 when k > n.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
	}
	return c
}
