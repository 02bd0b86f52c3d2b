package recovery

import (
	"math"
	"time"
)

// seeds is the number of seeds every configuration runs with; pass^k is
// reported for k = 1 … seeds.
const seeds = 5

// outageClass is the class over which amplification is measured.
const outageClass = "outage"

// result is what one configuration achieved and cost over every scenario and
// seed. The JSON keys are the benchmark's metric names.
type result struct {
	Config    string `json:"config"`
	Scenarios int    `json:"scenarios"`

	// Correct is the share of scenarios that are right, averaged over the
	// seeds; CorrectByClass is the same per class.
	Correct        float64            `json:"correct"`
	CorrectByClass map[string]float64 `json:"correct_by_class"`

	// PassK[k-1] is τ-bench's pass^k: the mean over scenarios of
	// C(c,k)/C(seeds,k), c the number of seeds in which the scenario is right.
	// It is the chance that k runs drawn from the seeds are all right.
	PassK [seeds]float64 `json:"pass_k"`

	// DuplicateEffects counts the duplicate effects over every run (all
	// scenarios, all seeds).
	DuplicateEffects int `json:"duplicate_effects"`

	// Amplification is the dispatches per call over the outage class, every
	// repeat a call; 0 when the set has no outage.
	Amplification float64 `json:"amplification"`

	// Over every call of every scenario and seed.
	DispatchesPerCall     float64 `json:"dispatches_per_call"`
	ReflectorCallsPerCall float64 `json:"reflector_calls_per_call"`
	WaitedSecondsPerCall  float64 `json:"waited_seconds_per_call"`
}

// summarize turns the runs of one configuration into its result. runs[s][i]
// is the run of scenario i with seed s+1. Every share is a ratio of integer
// counts, divided once and rounded to four places, so that the numbers are
// the same on every platform.
func summarize(name string, scs []*scenario, runs [][]runResult) result {
	res := result{Config: name, Scenarios: len(scs), CorrectByClass: map[string]float64{}}
	rightSeeds := make([]int, len(scs)) // per scenario: seeds in which it is right
	var calls, dispatches, analyses, outageCalls, outageDispatches int
	var waited time.Duration
	for _, seedRuns := range runs {
		for i, r := range seedRuns {
			if r.isRight() {
				rightSeeds[i]++
			}
			calls += r.calls
			dispatches += r.dispatches
			analyses += r.analyses
			waited += r.waited
			res.DuplicateEffects += r.duplicates
			if scs[i].Class == outageClass {
				outageCalls += r.calls
				outageDispatches += r.dispatches
			}
		}
	}
	perClass := map[string][2]int{} // class: right runs, runs
	totalRight := 0
	for i, sc := range scs {
		c := perClass[sc.Class]
		c[0] += rightSeeds[i]
		c[1] += len(runs)
		perClass[sc.Class] = c
		totalRight += rightSeeds[i]
	}
	res.Correct = ratio(totalRight, len(scs)*len(runs))
	for class, c := range perClass {
		res.CorrectByClass[class] = ratio(c[0], c[1])
	}
	for k := 1; k <= seeds; k++ {
		sum := 0
		for _, c := range rightSeeds {
			sum += binomial(c, k)
		}
		res.PassK[k-1] = ratio(sum, len(scs)*binomial(seeds, k))
	}
	res.Amplification = ratio(outageDispatches, outageCalls)
	res.DispatchesPerCall = ratio(dispatches, calls)
	res.ReflectorCallsPerCall = ratio(analyses, calls)
	res.WaitedSecondsPerCall = round4(float64(waited) / float64(time.Second) / float64(max(calls, 1)))
	return res
}

// ratio returns n/d rounded to four places, and 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return round4(float64(n) / float64(d))
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

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
