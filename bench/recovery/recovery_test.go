package recovery

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
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
// and, on the committed set, compares them with the golden file. With
// RECOVERY_LLM_URL (and RECOVERY_LLM_MODEL, RECOVERY_LLM_KEY) it also runs
// the llm package's Reflector against that server, as llm and llm_safe.
func TestRecovery(t *testing.T) {
	path := scenarioPath()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}
	if url := os.Getenv("RECOVERY_LLM_URL"); url != "" {
		// A model's configurations, llm and llm_safe: not reproducible, so
		// the golden file is not compared.
		cfg := openai.DefaultConfig(os.Getenv("RECOVERY_LLM_KEY"))
		cfg.BaseURL = url
		model := os.Getenv("RECOVERY_LLM_MODEL")
		if model == "" {
			model = "gpt-4o-mini"
		}
		proxy, stop := Outside(llm.New(openai.NewClientWithConfig(cfg), llm.WithModel(model)), 4, time.Minute)
		defer stop()
		opts.Reflector, opts.Name = proxy, "llm"
	} else {
		t.Log("llm and llm_safe skipped: set RECOVERY_LLM_URL (an OpenAI-compatible base URL) to run them")
	}
	res, err := Run(t, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.WriteTables(t.Output())
	got, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("RECOVERY_JSON"); p != "" {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if path != defaultScenarios || opts.Reflector != nil {
		return // the golden file is for the committed set and the standard configurations only
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
