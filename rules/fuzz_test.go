package rules_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// FuzzAnalyzeText feeds the stock table, with an UnknownTool rule, any text:
// Analyze must not panic, must answer the same twice, must never call a
// failure recoverable and escalate it at once, must only fail with
// ErrSkipped or ErrInternal, and must only name a listed tool. The seeds
// are the messages of the data set and of the credential failures beside
// transient words.
func FuzzAnalyzeText(f *testing.F) {
	for _, file := range append(datasetFiles[:len(datasetFiles):len(datasetFiles)], authBesideTransientFile) {
		fh, err := os.Open(file)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m labelled
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				f.Add(m.Text, "tool")
			}
		}
		fh.Close()
	}
	f.Add(`unknown tool "web_serach"`, "web_serach")
	f.Add("Retry-After: Wed, 21 Oct 2015 07:28:00 GMT", "")
	f.Add("retry after 99999999999999999999999999 hours", "x")

	tools := []string{"web_search", "read_file", "write_file", "fetch"}
	r := rules.New(append(rules.Defaults(), rules.UnknownTool(tools...))...)
	f.Fuzz(func(t *testing.T, text, tool string) {
		failure := reflection.Failure{Error: text, Tool: tool}
		a1, err1 := r.Analyze(context.Background(), failure)
		a2, err2 := r.Analyze(context.Background(), failure)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, reflection.ErrSkipped) && !errors.Is(err1, reflection.ErrInternal) {
				t.Fatalf("error wraps neither ErrSkipped nor ErrInternal: %v", err1)
			}
			return
		}
		j1, _ := json.Marshal(a1)
		j2, _ := json.Marshal(a2)
		if string(j1) != string(j2) {
			t.Fatalf("answers differ:\n%s\n%s", j1, j2)
		}
		if a1.IsRecoverable && a1.Correction != nil && a1.Correction.Type == reflection.Escalate {
			t.Fatalf("recoverable and escalated at once: %s", j1)
		}
		if a1.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter: %v", a1.RetryAfter)
		}
		if a1.Correction != nil && a1.Correction.Type == reflection.ToolChange && !slices.Contains(tools, a1.Correction.AlternativeTool) {
			t.Fatalf("ToolChange to a tool the list lacks: %q", a1.Correction.AlternativeTool)
		}
	})
}
