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
var namedClasses = []string{"transient", "rate_limited", "fixable_input", "wrong_tool", "permanent", "ambiguous", "outage"}

// resultsFile is what RECOVERY_JSON and the golden file hold.
type resultsFile struct {
	Seeds     int      `json:"seeds"`
	Scenarios int      `json:"scenarios"`
	Configs   []result `json:"configs"`
	Pending   []string `json:"pending,omitempty"` // configurations that could not run yet
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

// writeTables writes two Markdown tables: the metrics of every configuration
// that ran, and its correctness per class; then one line per pending
// configuration.
func writeTables(w io.Writer, f *resultsFile, scs []*scenario) {
	classes, count := classesOf(scs)
	fmt.Fprintf(w, "\n%d scenarios × %d seeds\n\n", f.Scenarios, f.Seeds)
	fmt.Fprintln(w, "| configuration | correct | pass^1 | pass^2 | pass^3 | pass^4 | pass^5 | duplicate effects | amplification | dispatches/call | reflector calls/call | waited s/call |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range f.Configs {
		fmt.Fprintf(w, "| %s | %s |", r.Config, percent(r.Correct))
		for _, p := range r.PassK {
			fmt.Fprintf(w, " %s |", percent(p))
		}
		fmt.Fprintf(w, " %d | %.2f | %.2f | %.2f | %.2f |\n",
			r.DuplicateEffects, r.Amplification, r.DispatchesPerCall, r.ReflectorCallsPerCall, r.WaitedSecondsPerCall)
	}
	fmt.Fprintln(w)
	var head, rule strings.Builder
	head.WriteString("| configuration |")
	rule.WriteString("|---|")
	for _, c := range classes {
		fmt.Fprintf(&head, " %s (%d) |", c, count[c])
		rule.WriteString("--:|")
	}
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, rule.String())
	for _, r := range f.Configs {
		fmt.Fprintf(w, "| %s |", r.Config)
		for _, c := range classes {
			fmt.Fprintf(w, " %s |", percent(r.CorrectByClass[c]))
		}
		fmt.Fprintln(w)
	}
	for _, name := range f.Pending {
		fmt.Fprintf(w, "\n%s: %s", name, pendingNote)
	}
	fmt.Fprintln(w)
}

// percent formats a share as a percentage with one decimal.
func percent(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
