package recovery

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBreakerSweep measures the recommended set-up with other breaker
// settings than the library's defaults (threshold 3, open 60 s), to show
// what each default costs on each class. It runs only when RECOVERY_SWEEP
// is set (it takes about a minute); its tables go into BENCHMARKS.md. It
// informs the documentation of the defaults: the library is not tuned to
// the benchmark.
//
//	RECOVERY_SWEEP=1 go test ./recovery -run TestBreakerSweep -count=1 -v
func TestBreakerSweep(t *testing.T) {
	if os.Getenv("RECOVERY_SWEEP") == "" {
		t.Skip("set RECOVERY_SWEEP=1 to run the breaker sweep")
	}
	scs, err := loadScenarios(scenarioPath())
	if err != nil {
		t.Fatal(err)
	}
	base := configNamed(t, "rules_safe")
	var cs []config
	for _, th := range []int{1, 2, 3, 5} {
		for _, open := range []time.Duration{10 * time.Second, 30 * time.Second, 60 * time.Second} {
			c := base
			c.name = fmt.Sprintf("rules_safe threshold %d open %v", th, open)
			c.breakerThreshold, c.breakerOpenFor = th, open
			cs = append(cs, c)
		}
	}
	res, err := runAll(t, scs, cs, 1)
	if err != nil {
		t.Fatal(err)
	}
	classes, count := classesOf(scs)
	var b strings.Builder
	b.WriteString("| breaker | correct | no-model classes |")
	for _, c := range classes {
		fmt.Fprintf(&b, " %s (%d) |", c, count[c])
	}
	b.WriteString(" outage amplification | healthy refusals/call | recovery lag s |\n|---|--:|--:|")
	b.WriteString(strings.Repeat("--:|", len(classes)+3) + "\n")
	for _, r := range res.file.Configs {
		free, _ := modelFree(r, classes, count)
		fmt.Fprintf(&b, "| %s | %s | %s |", strings.TrimPrefix(r.Config, "rules_safe "), percent(r.Correct), percent(free))
		for _, c := range classes {
			fmt.Fprintf(&b, " %s |", percent(r.CorrectByClass[c]))
		}
		fmt.Fprintf(&b, " %.2f | %.3f | %.1f |\n", r.Amplification, r.HealthyRefusalsPerCall, r.RecoveryLagSeconds)
	}
	t.Log("\n" + b.String())
}

// TestBudgetCosts measures the two retry-budget cost models, today's (the
// root's: 5 tokens a retry, 10 after a timeout, the backoff's delays) and
// AWS's of 2026 (14 after a transient failure, 5 after a throttle, its
// delays and its bounded x-amz-retry-after), with the breaker and without
// it: with the breaker the budget seldom binds, so the second pair shows
// what each budget does on its own. Runs with RECOVERY_SWEEP, as the
// breaker sweep.
func TestBudgetCosts(t *testing.T) {
	if os.Getenv("RECOVERY_SWEEP") == "" {
		t.Skip("set RECOVERY_SWEEP=1 to run the budget comparison")
	}
	scs, err := loadScenarios(scenarioPath())
	if err != nil {
		t.Fatal(err)
	}
	today, aws := configNamed(t, "rules_safe"), configNamed(t, "rules_safe_aws2026")
	costs := today
	costs.name, costs.budget = "rules_safe, AWS's costs only", &aws2026Costs
	var cs []config
	for _, c := range []config{today, costs, aws} {
		alone := c
		alone.name, alone.noBreaker = c.name+" without a breaker", true
		cs = append(cs, c, alone)
	}
	res, err := runAll(t, scs, cs, seeds)
	if err != nil {
		t.Fatal(err)
	}
	classes, count := classesOf(scs)
	var b strings.Builder
	b.WriteString("| configuration | correct | no-model classes | transient | rate_limited | rate_limited_body | outage | outage_recovers | outage amplification | dispatches/call | waited s/call | budget refusals/call | healthy refusals/call |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range res.file.Configs {
		free, _ := modelFree(r, classes, count)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.3f | %.3f |\n", r.Config,
			withCI(r.Correct, r.CorrectCI), percent(free), percent(r.CorrectByClass["transient"]), percent(r.CorrectByClass["rate_limited"]),
			percent(r.CorrectByClass["rate_limited_body"]), percent(r.CorrectByClass["outage"]), percent(r.CorrectByClass["outage_recovers"]),
			r.Amplification, r.DispatchesPerCall, r.WaitedSecondsPerCall, r.BudgetRefusalsPerCall, r.HealthyRefusalsPerCall)
	}
	t.Log("\n" + b.String())
}
