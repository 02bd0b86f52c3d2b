package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
)

// askingRecovery returns a machine waiting on an AskStep for a call of
// tool, whose analysis proposes c (nil for none).
func askingRecovery(t *testing.T, c *reflection.Correction, opts ...reflection.Option) *reflection.Recovery {
	t.Helper()
	strategy := reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
		return reflection.AskUser{Prompt: "retry?"}
	})
	d := reflection.NewDriver(append(opts, reflection.WithStrategy(strategy))...)
	r := d.NewRecovery(context.Background(), reflection.ToolCall{ID: "1", Name: "search", Input: json.RawMessage(`{"q":"SELECT x"}`)})
	r.EnableAsk()
	r.Dispatched(reflection.ToolResult{Content: "failed", IsError: true}, nil)
	r.Analyzed(reflection.FailureAnalysis{IsRecoverable: true, Correction: c}, nil)
	if _, ok := r.Next().(reflection.AskStep); !ok {
		t.Fatalf("step = %T, want an AskStep", r.Next())
	}
	return r
}

func TestCheckAnswer(t *testing.T) {
	onlySelect := func(tool string, input json.RawMessage) error {
		if tool == "run_sql" && !strings.Contains(string(input), "SELECT") {
			return errors.New("run_sql takes only SELECT")
		}
		return nil
	}
	toRunSQL := &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "run_sql"}
	cases := []struct {
		name   string
		fix    *reflection.Correction
		opts   []reflection.Option
		ans    reflection.Answer
		refuse string // a part of the error; "" for none
	}{
		{"a decline is never refused", nil, nil, reflection.Answer{Input: json.RawMessage(`[]`)}, ""},
		{"an approval without input", nil, nil, reflection.Answer{Approve: true}, ""},
		{"an object", nil, nil, reflection.Answer{Approve: true, Input: json.RawMessage(`{"q":"y"}`)}, ""},
		{"not an object", nil, nil, reflection.Answer{Approve: true, Input: json.RawMessage(`"y"`)}, "not a JSON object"},
		{"repeated keys", nil, nil, reflection.Answer{Approve: true, Input: json.RawMessage(`{"q":"y","Q":"z"}`)}, "duplicate keys"},
		{"over the cap", nil, []reflection.Option{reflection.WithMaxCorrectedInput(8)}, reflection.Answer{Approve: true, Input: json.RawMessage(`{"q":"long enough"}`)}, "over the limit"},
		{"checked for the tool it runs on", toRunSQL, []reflection.Option{reflection.WithInputCheck(onlySelect)},
			reflection.Answer{Approve: true, Input: json.RawMessage(`{"q":"DROP TABLE users"}`)}, "only SELECT"},
		{"passes for the tool it runs on", toRunSQL, []reflection.Option{reflection.WithInputCheck(onlySelect)},
			reflection.Answer{Approve: true, Input: json.RawMessage(`{"q":"SELECT 1"}`)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := askingRecovery(t, tc.fix, tc.opts...)
			err := r.CheckAnswer(tc.ans)
			switch {
			case tc.refuse == "" && err != nil:
				t.Fatalf("CheckAnswer = %v, want nil", err)
			case tc.refuse != "" && (!errors.Is(err, reflection.ErrAnswerInput) || !strings.Contains(err.Error(), tc.refuse)):
				t.Fatalf("CheckAnswer = %v, want ErrAnswerInput with %q", err, tc.refuse)
			}
			// What CheckAnswer accepts, the machine applies; what it refuses,
			// the machine drops.
			r.Answered(tc.ans, nil)
			if !tc.ans.Approve {
				return
			}
			next, ok := r.Next().(reflection.DispatchStep)
			if !ok {
				t.Fatalf("after an approval the step is %T", r.Next())
			}
			used := tc.ans.Approve && len(tc.ans.Input) > 0 && string(next.Call.Input) == string(tc.ans.Input)
			if want := tc.ans.Approve && len(tc.ans.Input) > 0 && err == nil; used != want {
				t.Errorf("input used = %v, want %v (call %s)", used, want, next.Call.Input)
			}
		})
	}
}

func TestCheckAnswerOutsideAnAskStepPanics(t *testing.T) {
	r := reflection.NewDriver().NewRecovery(context.Background(), reflection.ToolCall{Name: "t"})
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "CheckAnswer") {
			t.Errorf("recover() = %v, want a panic naming CheckAnswer", v)
		}
	}()
	_ = r.CheckAnswer(reflection.Answer{Approve: true})
}
