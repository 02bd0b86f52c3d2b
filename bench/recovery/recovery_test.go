package recovery

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
)

var update = flag.Bool("update", false, "rewrite "+goldenFile+" from this run")

// goldenFile holds the results on the committed scenario set.
const goldenFile = "testdata/results.golden.json"

// scenarioPath is the scenario file in use: RECOVERY_SCENARIOS, or the
// committed set.
func scenarioPath() string {
	if p := os.Getenv("RECOVERY_SCENARIOS"); p != "" {
		return p
	}
	return defaultScenarios
}

// TestRecovery runs every configuration over every scenario with each seed,
// prints the results as tables, writes them to RECOVERY_JSON when it is set,
// and, on the committed set, compares them with the golden file.
func TestRecovery(t *testing.T) {
	path := scenarioPath()
	scs, err := loadScenarios(path)
	if err != nil {
		t.Fatal(err)
	}
	file := &resultsFile{Seeds: seeds, Scenarios: len(scs)}
	runs := runConfigs(t, scs)
	for i, c := range configs {
		if c.pending() {
			file.Pending = append(file.Pending, c.name)
			continue
		}
		file.Configs = append(file.Configs, summarize(c.name, scs, runs[i]))
	}
	writeTables(t.Output(), file, scs)

	got, err := file.encode()
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("RECOVERY_JSON"); p != "" {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if path != defaultScenarios {
		return // the golden file is for the committed set only
	}
	if *update {
		if err := os.WriteFile(goldenFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the results differ from %s; if the change is meant, run with -update and review the diff:\n%s",
			goldenFile, lineDiff(string(want), string(got)))
	}
}

// runConfigs runs every configuration that is not pending over every
// scenario and seed: runs[c][s][i] is the run of scenario i with seed s+1
// under configs[c]. Configurations run in parallel subtests; every run is a
// synctest bubble of its own, so each starts at the same virtual instant and
// its waits take no real time.
func runConfigs(t *testing.T, scs []*scenario) [][][]runResult {
	runs := make([][][]runResult, len(configs))
	t.Run("run", func(t *testing.T) {
		for i, c := range configs {
			if c.pending() {
				continue
			}
			runs[i] = make([][]runResult, seeds)
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				for s := range seeds {
					out := make([]runResult, len(scs))
					for j, sc := range scs {
						synctest.Test(t, func(*testing.T) {
							out[j] = play(c, sc, uint64(s+1))
						})
					}
					runs[i][s] = out
				}
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return runs
}

// lineDiff lists the lines that differ between want and got, which have the
// same shape when only numbers changed.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
