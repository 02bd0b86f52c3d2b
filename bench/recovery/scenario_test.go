package recovery

import (
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
)

// good is a valid scenario line; the table below breaks it one way at a time.
const good = `{"id": "x-1", "class": "fixable_input", "tools": [{"name": "get_weather", "description": "weather", "input_schema": {"type": "object"}, "effect": "read_only"}], "call": {"name": "get_weather", "input": {"city": "Lisbon", "unit": "kelvin"}}, "accept": {"tool": "get_weather", "input": {"unit": "celsius", "city": "Lisbon"}}, "reject": {"error": "bad unit", "status": 400}, "faults": [{"error": "503 Service Unavailable", "status": 503, "retry_after": "2"}], "result": "19°C", "fix": {"correction_type": "input_fix", "description": "celsius", "modified_input": {"city": "Lisbon", "unit": "celsius"}}, "right": "succeed"}`

func TestReadScenarios(t *testing.T) {
	scs, err := readScenarios(strings.NewReader("\n"+good+"\n\n"), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := scs[0]
	if sc.line != 2 || sc.calls != 1 || sc.accept != (pair{tool: "get_weather", input: `{"city":"Lisbon","unit":"celsius"}`}) {
		t.Errorf("got line %d, calls %d, accept %+v", sc.line, sc.calls, sc.accept)
	}
	if tl, ok := sc.toolNamed("get_weather"); !ok || tl.effect != reflection.EffectReadOnly {
		t.Errorf("tool get_weather: got %+v, %v", tl, ok)
	}
}

func TestReadScenariosRejects(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"unknown field", strings.Replace(good, `"result"`, `"reslt"`, 1), `unknown field "reslt"`},
		{"unknown nested field", strings.Replace(good, `"retry_after"`, `"retryafter"`, 1), `unknown field "retryafter"`},
		{"bad effect", strings.Replace(good, `"read_only"`, `"readonly"`, 1), `unknown effect "readonly"`},
		{"bad right", strings.Replace(good, `"right": "succeed"`, `"right": "success"`, 1), `bad right "success"`},
		{"bad class", strings.Replace(good, `"fixable_input"`, `"Fixable"`, 1), `bad class "Fixable"`},
		{"bad status", strings.Replace(good, `"status": 503`, `"status": 5030`, 1), "bad status 5030"},
		{"bad retry_after", strings.Replace(good, `"retry_after": "2"`, `"retry_after": "2.5"`, 1), `bad retry_after "2.5"`},
		{"bad correction type", strings.Replace(good, `"input_fix"`, `"fix_input"`, 1), `unknown correction type "fix_input"`},
		{"input_fix without input", strings.Replace(good, `, "modified_input": {"city": "Lisbon", "unit": "celsius"}`, "", 1), "modified_input: missing"},
		{"input not an object", strings.Replace(good, `"input": {"city": "Lisbon", "unit": "kelvin"}`, `"input": "Lisbon"`, 1), "call.input: not a JSON object"},
		{"missing id", strings.Replace(good, `"id": "x-1", `, "", 1), "missing id"},
		{"missing tools", strings.Replace(good, `"tools": [{"name": "get_weather", "description": "weather", "input_schema": {"type": "object"}, "effect": "read_only"}]`, `"tools": []`, 1), "missing tools"},
		{"permanent without faults", strings.Replace(strings.Replace(good, `"faults": [{"error": "503 Service Unavailable", "status": 503, "retry_after": "2"}], `, "", 1), `"right"`, `"permanent": true, "right"`, 1), "permanent needs"},
		{"negative repeat", strings.Replace(good, `"right"`, `"repeat": -1, "right"`, 1), "bad repeat -1"},
		{"fault both commits and no effect", strings.Replace(good, `"retry_after": "2"`, `"commits": true, "no_effect": true`, 1), "cannot both commit"},
		{"text after the object", good + ` {}`, "text after the scenario's object"},
		{"not JSON", `{"id": "x-1",`, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readScenarios(strings.NewReader(good+"\n"+tt.line+"\n"), "x.jsonl")
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), "x.jsonl:2: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want x.jsonl:2: ... %s", err, tt.want)
			}
		})
	}
}

func TestReadScenariosDuplicateID(t *testing.T) {
	_, err := readScenarios(strings.NewReader(good+"\n"+good+"\n"), "x.jsonl")
	if err == nil || err.Error() != `x.jsonl:2: id "x-1" already used on line 1` {
		t.Errorf("got %v", err)
	}
}
