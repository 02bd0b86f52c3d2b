package reflectiontest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestConformanceOverJSON runs the suite with the limits a workflow
// engine's runtime declares (no bubble, no exact cancel, no Observer, JSON
// between processes) against a runtime built like one: a clock of its own,
// inputs that reach the tool compacted, and the Reflector's and the human's
// answers carried as JSON. The root package runs the suite against
// Driver.Run and a hand-driven machine (TestPropertyRun,
// TestPropertyMachine).
func TestConformanceOverJSON(t *testing.T) {
	reflectiontest.Conformance(t, runOverJSON,
		reflectiontest.WithoutBubble(), reflectiontest.WithoutCancel(), reflectiontest.WithoutObserver(),
		reflectiontest.OverJSON(), reflectiontest.Scenarios(1000))
}

// runOverJSON drives the machine with a clock of its own: waits only move
// the clock, and a wait past the scenario's deadline is refused.
func runOverJSON(_ context.Context, t *testing.T, s *reflectiontest.Scenario) reflectiontest.Ran {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := start
	limit, hasLimit := s.Deadline()
	// The strategy's ctx carries the task and nothing else, as in a workflow.
	ctx := reflection.ContextWithTask(context.Background(), s.Task)
	toolCtx := reflection.ContextWithIdempotencyKey(ctx, "workflow/"+s.Call.ID)
	r := s.Driver().NewRecovery(ctx, s.Call)
	if s.Asker() != nil {
		r.EnableAsk()
	}
	for {
		switch step := r.Next().(type) {
		case reflection.DispatchStep:
			call := step.Call
			call.Input = compacted(call.Input)
			res, err := dispatchCatching(toolCtx, s.Dispatch, call)
			r.DispatchedAt(res, err, now, now)
		case reflection.AnalyzeStep:
			f := step.Failure
			f.Input = compacted(f.Input)
			a, err := analyzeCatching(ctx, s.Reflector(), f)
			if err == nil {
				a, err = throughJSON(a)
			}
			r.Analyzed(a, err)
		case reflection.WaitStep:
			if hasLimit {
				if err := reflection.WaitPastDeadline(step.Delay, now, start.Add(limit)); err != nil {
					r.Stop(err)
					continue
				}
			}
			now = now.Add(step.Delay)
			r.Waited()
		case reflection.AskStep:
			ans, err := askCatching(ctx, s.Asker(), step.Question)
			if err == nil {
				ans, err = throughJSON(ans)
			}
			r.Answered(ans, err)
		case reflection.VerifyStep:
			verify := s.Driver().RuntimeOptions().Verifier
			call := step.Call
			call.Input = compacted(call.Input)
			v, res, err := verifyCatching(toolCtx, verify, call)
			if err == nil {
				res, err = throughJSON(res)
			}
			r.Verified(v, res, err)
		case reflection.DoneStep:
			rep := r.Report()
			return reflectiontest.Ran{Result: step.Result, Err: step.Err, Report: &rep, Elapsed: now.Sub(start)}
		default:
			t.Fatalf("unknown step %T", step)
		}
	}
}

// compacted is b as a payload converter passes valid JSON on.
func compacted(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// throughJSON returns v after a trip through JSON.
func throughJSON[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

func dispatchCatching(ctx context.Context, dispatch reflection.DispatchFunc, call reflection.ToolCall) (res reflection.ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = reflection.ToolResult{}, reflection.ToolPanic(call.Name, v)
		}
	}()
	return dispatch(ctx, call)
}

func analyzeCatching(ctx context.Context, r reflection.Reflector, f reflection.Failure) (a reflection.FailureAnalysis, err error) {
	defer func() {
		if v := recover(); v != nil {
			a, err = reflection.FailureAnalysis{}, &reflection.PanicError{Where: "reflector", Value: v}
		}
	}()
	return r.Analyze(ctx, f)
}

func askCatching(ctx context.Context, a reflection.Asker, q reflection.Question) (ans reflection.Answer, err error) {
	defer func() {
		if v := recover(); v != nil {
			ans, err = reflection.Answer{}, &reflection.PanicError{Where: "asker", Value: v}
		}
	}()
	return a.Ask(ctx, q)
}

func verifyCatching(ctx context.Context, verify func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error),
	call reflection.ToolCall) (v reflection.Verdict, res reflection.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, res, err = reflection.VerdictUnknown, reflection.ToolResult{}, &reflection.PanicError{Where: "verifier", Value: p}
		}
	}()
	return verify(ctx, call)
}
