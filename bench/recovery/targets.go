package recovery

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The configurations the recommended set-up is held against on the classes
// that need no model, and the margins of its targets.
var (
	modelFreeBaselines = []string{"no_retry", "status_retry_3", "blind_retry_3", "rules"}
)

const (
	leadTarget      = 0.15 // rules_safe ahead of the best baseline, over the classes that need no model
	lagTarget       = 0.15 // and never further behind it on one of those classes
	oracleTarget    = 0.93
	noisyTargetWant = 0.75
)

// modelFree returns the share of the scenarios of the classes that need no
// model that r got right, and those classes.
func modelFree(r result, classes []string, count map[string]int) (float64, []string) {
	var free []string
	right, n := 0.0, 0
	for _, c := range classes {
		if slices.Contains(modelClasses, c) {
			continue
		}
		free = append(free, c)
		right += r.CorrectByClass[c] * float64(count[c])
		n += count[c]
	}
	if n == 0 {
		return 0, free
	}
	return round4(right / float64(n)), free
}

// writeTargets says how the configurations stand against the benchmark's
// targets. It reports; it does not judge a run (the targets are for
// scenarios held out of this set).
func writeTargets(w io.Writer, f *resultsFile, scs []*scenario) {
	byName := map[string]result{}
	for _, r := range f.Configs {
		byName[r.Config] = r
	}
	classes, count := classesOf(scs)
	fmt.Fprintln(w, "\nTargets:")
	if safe, ok := byName["rules_safe"]; ok {
		share, free := modelFree(safe, classes, count)
		best, bestName := -1.0, ""
		for _, name := range modelFreeBaselines {
			if r, ok := byName[name]; ok {
				if s, _ := modelFree(r, classes, count); s > best {
					best, bestName = s, name
				}
			}
		}
		if bestName != "" {
			fmt.Fprintf(w, "- rules_safe on the classes that need no model: %s, the best baseline (%s) %s: %+.1f points (target +%.0f): %s\n",
				percent(share), bestName, percent(best), 100*(share-best), 100*leadTarget, metWhen(share-best >= leadTarget-1e-9))
			var behind []string
			for _, c := range free {
				top, topName := -1.0, ""
				for _, name := range modelFreeBaselines {
					if r, ok := byName[name]; ok && r.CorrectByClass[c] > top {
						top, topName = r.CorrectByClass[c], name
					}
				}
				if d := safe.CorrectByClass[c] - top; d < -lagTarget-1e-9 {
					behind = append(behind, fmt.Sprintf("%s %.1f points behind %s", c, -100*d, topName))
				}
			}
			if len(behind) == 0 {
				fmt.Fprintf(w, "- rules_safe never more than %.0f points behind the best baseline on such a class: met\n", 100*lagTarget)
			} else {
				fmt.Fprintf(w, "- rules_safe never more than %.0f points behind the best baseline on such a class: not met (%s)\n",
					100*lagTarget, strings.Join(behind, "; "))
			}
		}
		if count["outage_recovers"] > 0 || safe.RecoveredInTime > 0 {
			fmt.Fprintf(w, "- rules_safe's first success after a recovering outage within the breaker's open time plus two call gaps: %s of runs\n",
				percent(safe.RecoveredInTime))
		}
	}
	for _, r := range f.Configs {
		if strings.HasSuffix(r.Config, "_safe") || strings.Contains(r.Config, "_safe_") {
			fmt.Fprintf(w, "- %s: %d duplicate effects (target 0): %s\n", r.Config, r.DuplicateEffects, metWhen(r.DuplicateEffects == 0))
		}
	}
	if r, ok := byName["oracle_safe"]; ok {
		fmt.Fprintf(w, "- oracle_safe %s (target %s): %s\n", percent(r.Correct), percent(oracleTarget), metWhen(r.Correct >= oracleTarget))
	}
	if r, ok := byName["noisy_oracle_safe"]; ok {
		fmt.Fprintf(w, "- noisy_oracle_safe %s (target %s): %s\n", percent(r.Correct), percent(noisyTargetWant), metWhen(r.Correct >= noisyTargetWant))
	}
}

func metWhen(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
