package recovery

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loopctl-go/reflection"
)

const twoTools = `{"id": "o-1", "class": "wrong_tool", "tools": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "call": {"name": "x", "input": {"k": 1}}, "accept": {"tool": "b", "input": {"k": 1}}, "reject": {"error": "no"}, "result": "ok", "fix": {"correction_type": "tool_change", "description": "use b", "alternative_tool": "b"}, "right": "succeed"}`

func TestOracleTruth(t *testing.T) {
	sc := mustScenario(t, twoTools)
	a, err := (&oracle{sc: sc}).Analyze(context.Background(), reflection.Failure{Tool: "x"})
	if err != nil || !a.IsRecoverable || a.Severity != reflection.SeverityLow || a.Correction == nil ||
		a.Correction.Type != reflection.ToolChange || a.Correction.AlternativeTool != "b" {
		t.Errorf("got %+v, %v; want recoverable, low, tool_change to b", a, err)
	}
	sc.Permanent = true
	if a, _ := (&oracle{sc: sc}).Analyze(context.Background(), reflection.Failure{}); a.IsRecoverable {
		t.Error("a permanent scenario: got recoverable")
	}
}

// noisyAnswers asks a noisy oracle n times and describes each answer.
func noisyAnswers(sc *scenario, seed uint64, n int) []string {
	o := &oracle{sc: sc, noise: rand.New(source("noisy_oracle_safe", seed, sc, "noise"))}
	f := reflection.Failure{Tool: "a", Input: json.RawMessage(`{"k":2}`)}
	out := make([]string, n)
	for i := range out {
		a, _ := o.Analyze(context.Background(), f)
		switch c := a.Correction; {
		case c != nil && c.Type == reflection.InputFix && string(c.ModifiedInput) == `{"k":2}`:
			out[i] = "same input"
		case c != nil && c.Type == reflection.ToolChange && c.AlternativeTool != "b":
			out[i] = "other tool " + c.AlternativeTool
		case !a.IsRecoverable:
			out[i] = "flipped"
		default:
			out[i] = "truth"
		}
	}
	return out
}

func TestNoisyOracle(t *testing.T) {
	sc := mustScenario(t, twoTools)
	const n = 20000
	got := noisyAnswers(sc, 1, n)
	again := noisyAnswers(sc, 1, n)
	other := noisyAnswers(sc, 2, n)
	counts := map[string]int{}
	same, differ := true, false
	for i := range got {
		counts[got[i]]++
		same = same && got[i] == again[i]
		differ = differ || got[i] != other[i]
	}
	if !same {
		t.Error("the same seed gave different answers")
	}
	if !differ {
		t.Error("two seeds gave the same answers")
	}
	// A ToolChange drawn to b, the right tool, counts as the truth here.
	wrong := float64(n-counts["truth"]) / n
	if math.Abs(wrong-noiseRate*(1-1.0/3/2)) > 0.01 {
		t.Errorf("wrong answers: %.3f of %d, want about %.3f (%v)", wrong, n, noiseRate*(1-1.0/3/2), counts)
	}
	for _, kind := range []string{"same input", "other tool a", "other tool c", "flipped"} {
		if counts[kind] == 0 && kind != "other tool a" {
			t.Errorf("no %q answer in %d (%v)", kind, n, counts)
		}
	}
	if counts["other tool a"] != 0 {
		t.Errorf("a ToolChange to the failed tool itself: %d", counts["other tool a"])
	}
}

func TestOtherToolInvented(t *testing.T) {
	sc := mustScenario(t, `{"id": "o-2", "class": "transient", "tools": [{"name": "t"}], "call": {"name": "t", "input": {}}, "result": "ok", "right": "succeed"}`)
	o := &oracle{sc: sc, noise: rand.New(rand.NewPCG(1, 2))}
	if got := o.otherTool("t"); got != "t_v2" {
		t.Errorf("got %q, want t_v2", got)
	}
}
