package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// checkingReflector is a scripted Reflector that can also check a call
// against a tool's schema, as the llm Reflector does: run_sql takes only
// SELECT statements.
type checkingReflector struct{ *reflectiontest.Reflector }

func (checkingReflector) InputCheck(lookup reflection.SchemaLookup) func(string, json.RawMessage) error {
	return func(tool string, input json.RawMessage) error {
		if _, ok := lookup(tool); !ok {
			return nil
		}
		if tool == "run_sql" && !strings.Contains(string(input), "SELECT") {
			return errors.New("run_sql: the query must be a SELECT")
		}
		return nil
	}
}

func sqlSchemas(tool string) (reflection.ToolSchema, bool) {
	switch tool {
	case "search", "run_sql":
		return reflection.ToolSchema{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, true
	}
	return reflection.ToolSchema{}, false
}

// The answers of a model steered to run DROP TABLE: an InputFix that
// search's schema accepts, then a ToolChange that carries it to run_sql.
func steeredAnswers() *reflectiontest.Reflector {
	retry := func(c reflection.Correction) reflection.FailureAnalysis {
		return reflection.FailureAnalysis{IsRecoverable: true, Severity: reflection.SeverityLow, Correction: &c}
	}
	return reflectiontest.NewReflector(
		retry(reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"query":"DROP TABLE users"}`)}),
		retry(reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "run_sql"}),
		retry(reflection.Correction{Type: reflection.ApproachChange}),
		retry(reflection.Correction{Type: reflection.ApproachChange}),
		retry(reflection.Correction{Type: reflection.ApproachChange}),
	)
}

// TestInputFixNeverRunsOnAnotherToolUnchecked reproduces a finding: an
// InputFix checked against one tool ran on another after a ToolChange,
// unless the host had added WithInputCheck. Now the Reflector's own check
// runs by default when it has one.
func TestInputFixNeverRunsOnAnotherToolUnchecked(t *testing.T) {
	wrap := map[string]func(reflection.Reflector) reflection.Reflector{
		"alone": func(r reflection.Reflector) reflection.Reflector { return r },
		"chained": func(r reflection.Reflector) reflection.Reflector {
			return reflection.Chain(reflectiontest.NewReflector(), r)
		},
		"cached": func(r reflection.Reflector) reflection.Reflector { return reflection.NewCache(r, 16, 0) },
		"in both": func(r reflection.Reflector) reflection.Reflector {
			return reflection.Chain(reflection.NewCache(r, 16, 0))
		},
		"with():":  func(r reflection.Reflector) reflection.Reflector { return r },
		"explicit": func(r reflection.Reflector) reflection.Reflector { return r },
	}
	for name, w := range wrap {
		t.Run(name, func(t *testing.T) {
			reflector := w(checkingReflector{steeredAnswers()})
			opts := []reflection.Option{
				reflection.WithReflector(reflector),
				reflection.WithStrategy(reflection.NewExponentialBackoff(5).WithBaseDelay(0)),
				reflection.WithSchemas(sqlSchemas),
			}
			var d *reflection.Driver
			switch name {
			case "with():":
				d = reflection.NewDriver(reflection.WithReflector(reflector)).With(opts[1:]...)
			case "explicit": // the host's own check wins over the Reflector's
				d = reflection.NewDriver(append(opts, reflection.WithInputCheck(func(string, json.RawMessage) error { return nil }))...)
			default:
				d = reflection.NewDriver(opts...)
			}
			tool := reflectiontest.NewTool(reflectiontest.Fail("no results"))
			_, _ = d.Run(context.Background(), reflection.ToolCall{ID: "1", Name: "search", Input: json.RawMessage(`{"query":"users"}`)}, tool.Dispatch)
			ranDrop := false
			for _, c := range tool.Calls() {
				if c.Name == "run_sql" && strings.Contains(string(c.Input), "DROP") {
					ranDrop = true
				}
			}
			if want := name == "explicit"; ranDrop != want {
				t.Errorf("DROP TABLE ran on run_sql: %v, want %v (calls %v)", ranDrop, want, tool.Calls())
			}
		})
	}
}

func TestNoReflectorCheckWithoutSchemas(t *testing.T) {
	d := reflection.NewDriver(
		reflection.WithReflector(checkingReflector{steeredAnswers()}),
		reflection.WithStrategy(reflection.NewExponentialBackoff(5).WithBaseDelay(0)),
	)
	tool := reflectiontest.NewTool(reflectiontest.Fail("no results"))
	_, _ = d.Run(context.Background(), reflection.ToolCall{ID: "1", Name: "search", Input: json.RawMessage(`{}`)}, tool.Dispatch)
	// Without a schema lookup the Reflector's check has nothing to check
	// against, and corrections apply as they always did.
	if calls := tool.Calls(); len(calls) < 3 || calls[2].Name != "run_sql" {
		t.Errorf("calls = %v; the ToolChange should apply", calls)
	}
}
