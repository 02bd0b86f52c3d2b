package recovery

import (
	"strings"
	"testing"
)

// minPerClass is how many scenarios each named class has at least in the
// committed set, minScenarios how many it has in all, and minMultiTool the
// share of them that offer two tools or more.
const (
	minPerClass  = 25
	minScenarios = 600
	minMultiTool = 0.25
)

// TestScenarios checks that every scenario of the file in use can end as it
// says is right (see checkConsistent), and that the committed set is large
// and covers every class.
func TestScenarios(t *testing.T) {
	path := scenarioPath()
	scs, err := loadScenarios(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		if err := checkConsistent(sc); err != nil {
			t.Errorf("%s:%d: scenario %s: %v", path, sc.line, sc.ID, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	if path != defaultScenarios {
		return
	}
	if len(scs) < minScenarios {
		t.Errorf("%d scenarios, want at least %d", len(scs), minScenarios)
	}
	_, count := classesOf(scs)
	for _, c := range namedClasses {
		if count[c] < minPerClass {
			t.Errorf("class %s has %d scenarios, want at least %d", c, count[c], minPerClass)
		}
	}
	multi := 0
	for _, sc := range scs {
		if len(sc.tools) > 1 {
			multi++
		}
	}
	if float64(multi) < minMultiTool*float64(len(scs)) {
		t.Errorf("%d of %d scenarios offer two tools or more, want at least %.0f %%", multi, len(scs), 100*minMultiTool)
	}
}

func TestCheckConsistent(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"consistent", good, ""},
		{"fix misses accept", strings.Replace(good, `"modified_input": {"city": "Lisbon", "unit": "celsius"}`, `"modified_input": {"city": "Lisbon", "unit": "fahrenheit"}`, 1), "the fix does not turn the call"},
		{"no fix", strings.Replace(good, `, "fix": {"correction_type": "input_fix", "description": "celsius", "modified_input": {"city": "Lisbon", "unit": "celsius"}}`, "", 1), "the fix does not turn the call"},
		{"over the ceiling", strings.Replace(good, `"faults": [`, `"faults": [{"error": "a"}, {"error": "b"}, {"error": "c"}, {"error": "d"}, `, 1), "success needs 7 dispatches, more than the ceiling of 6"},
		{"over the Retry-After cap", strings.Replace(good, `"retry_after": "2"`, `"retry_after": "61"`, 1), "asks to wait 1m1s, more than the cap of 1m0s"},
		{"tool_change to an unknown tool", strings.Replace(good, `"correction_type": "input_fix", "description": "celsius", "modified_input": {"city": "Lisbon", "unit": "celsius"}`, `"correction_type": "tool_change", "description": "x", "alternative_tool": "get_forecast"`, 1), `fix names tool "get_forecast", which is not in tools`},
		{"accept of an unknown tool", strings.Replace(good, `"accept": {"tool": "get_weather"`, `"accept": {"tool": "weather"`, 1), `accept names tool "weather"`},
		{"no reject", strings.Replace(good, `"reject": {"error": "bad unit", "status": 400}, `, "", 1), "no reject"},
		{"succeed but permanent", strings.Replace(good, `"right"`, `"permanent": true, "right"`, 1), "the scenario is permanent"},
		{"no_retry that succeeds", `{"id": "x-2", "class": "permanent", "tools": [{"name": "t"}], "call": {"name": "t", "input": {}}, "result": "ok", "right": "no_retry"}`, "the first dispatch succeeds"},
		{"short outage", `{"id": "x-3", "class": "outage", "tools": [{"name": "t"}], "call": {"name": "t", "input": {}}, "faults": [{"error": "503"}], "permanent": true, "repeat": 3, "result": "ok", "right": "no_retry"}`, "an outage must be permanent with a repeat of at least 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scs, err := readScenarios(strings.NewReader(tt.line), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			err = checkConsistent(scs[0])
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
