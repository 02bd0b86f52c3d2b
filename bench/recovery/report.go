package recovery

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// namedClasses are the classes every scenario file may use, in the order the
// tables show them; any other class follows them, in alphabetical order.
var namedClasses = []string{
	"transient", "rate_limited", "rate_limited_body", "auth_expired", "conflict_409", "idempotency_conflict",
	"fixable_input", "wrong_tool", "pagination_cursor", "payload_too_large",
	"permanent", "ambiguous", "partial_write", "reissue", "outage", "outage_recovers",
}

// modelClasses are the named classes whose right ending needs a correction
// that only a model (or an oracle) proposes: a fixed input, another tool.
// The others need no model: a rule can end them right.
var modelClasses = []string{"fixable_input", "wrong_tool", "pagination_cursor", "payload_too_large"}

// resultsFile is what RECOVERY_JSON and the golden file hold.
type resultsFile struct {
	Seeds     int      `json:"seeds"`
	Scenarios int      `json:"scenarios"`
	Configs   []result `json:"configs"`
}

// encode returns f as indented JSON ending in a newline.
func (f *resultsFile) encode() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// classesOf returns the classes of scs in table order, with how many
// scenarios each has.
func classesOf(scs []*scenario) ([]string, map[string]int) {
	count := map[string]int{}
	var others []string
	for _, sc := range scs {
		if count[sc.Class] == 0 && !slices.Contains(namedClasses, sc.Class) {
			others = append(others, sc.Class)
		}
		count[sc.Class]++
	}
	var order []string
	for _, c := range namedClasses {
		if count[c] > 0 {
			order = append(order, c)
		}
	}
	slices.Sort(others)
	return append(order, others...), count
}

// writeTables writes the results as Markdown tables: what each
// configuration achieved, what it cost, and its correctness per class (one
// row per class, one column per configuration), every share with its 95 %
// Wilson interval; then how the recommended set-up stands against its
// targets.
func writeTables(w io.Writer, f *resultsFile, scs []*scenario) {
	classes, count := classesOf(scs)
	fmt.Fprintf(w, "\n%d scenarios × %d seeds\n\n", f.Scenarios, f.Seeds)

	head := "| configuration | correct (95 % CI) |"
	rule := "|---|--:|"
	for k := 1; k <= f.Seeds; k++ {
		head += fmt.Sprintf(" pass^%d |", k)
		rule += "--:|"
	}
	fmt.Fprintln(w, head+" duplicate effects |")
	fmt.Fprintln(w, rule+"--:|")
	for _, r := range f.Configs {
		fmt.Fprintf(w, "| %s | %s |", r.Config, withCI(r.Correct, r.CorrectCI))
		for _, p := range r.PassK {
			fmt.Fprintf(w, " %s |", percent(p))
		}
		fmt.Fprintf(w, " %d |\n", r.DuplicateEffects)
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "| configuration | outage amplification | dispatches/call | Reflector calls/call | waited s/call | asked/call | verifications/call | breaker refusals/call | budget refusals/call | recovery lag s | healthy refusals/call | recovered in time |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range f.Configs {
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %.1f | %.3f | %s |\n",
			r.Config, r.Amplification, r.DispatchesPerCall, r.ReflectorCallsPerCall, r.WaitedSecondsPerCall,
			r.AskedPerCall, r.VerificationsPerCall, r.BreakerRefusalsPerCall, r.BudgetRefusalsPerCall,
			r.RecoveryLagSeconds, r.HealthyRefusalsPerCall, percent(r.RecoveredInTime))
	}

	fmt.Fprintln(w)
	var b strings.Builder
	b.WriteString("| class (scenarios) |")
	for _, r := range f.Configs {
		fmt.Fprintf(&b, " %s |", r.Config)
	}
	fmt.Fprintln(w, b.String())
	fmt.Fprintln(w, "|---|"+strings.Repeat("--:|", len(f.Configs)))
	for _, c := range classes {
		b.Reset()
		fmt.Fprintf(&b, "| %s (%d) |", c, count[c])
		for _, r := range f.Configs {
			fmt.Fprintf(&b, " %s |", withCI(r.CorrectByClass[c], r.CorrectByClassCI[c]))
		}
		fmt.Fprintln(w, b.String())
	}
	writeTargets(w, f, scs)
}

// withCI formats a share and its interval: "45.0 % (38.1–52.0)".
func withCI(p float64, ci [2]float64) string {
	return fmt.Sprintf("%s (%.1f–%.1f)", percent(p), 100*ci[0], 100*ci[1])
}

// percent formats a share as a percentage with one decimal.
func percent(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
