package reflection_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestPropertyMachine runs the conformance suite of reflectiontest against
// a second runtime of the machine, written below with Recovery's exported
// methods only, as a runtime of one's own would be: it shows that the rules
// live in the machine, and that the steps a runtime owns (the ctx checks,
// the waits, the deadline refusal, catching panics) are few. A failure
// prints the flags that reproduce it:
//
//	go test . -run '^TestPropertyMachine$' -v -reflectiontest.seed=S -reflectiontest.only=I
func TestPropertyMachine(t *testing.T) {
	reflectiontest.Conformance(t, runMachine, reflectiontest.WithoutObserver())
}

// runMachine drives a Recovery by hand through one scenario: it performs
// each step the machine asks for, checks ctx where Driver.Run does, and
// calls Stop when ctx has ended.
func runMachine(ctx context.Context, t *testing.T, s *reflectiontest.Scenario) reflectiontest.Ran {
	if reflection.IdempotencyKey(ctx) == "" {
		// One key for every attempt of the call, whatever its tool.
		ctx = reflection.ContextWithIdempotencyKey(ctx, fmt.Sprintf("machine-%d", s.Index()))
	}
	r := s.Driver().NewRecovery(ctx, s.Call)
	reflector, asker := s.Reflector(), s.Asker()
	verifier := s.Driver().RuntimeOptions().Verifier
	stopped := func() bool {
		if ctx.Err() == nil {
			return false
		}
		r.Stop(machineStopError(ctx))
		return true
	}
	for steps := 1; ; steps++ {
		if steps > 100 {
			t.Fatalf("the machine asked for more than 100 steps")
		}
		switch step := r.Next().(type) {
		case reflection.DispatchStep:
			if stopped() {
				continue
			}
			if step.Attempt != r.Calls() {
				t.Errorf("DispatchStep.Attempt = %d after %d dispatches", step.Attempt, r.Calls())
			}
			start := time.Now()
			res, err := machineDispatch(ctx, s.Dispatch, step.Call)
			r.DispatchedAt(res, err, start, time.Now())
			if _, analyze := r.Next().(reflection.AnalyzeStep); analyze {
				stopped() // a failure after ctx ended is not analysed
			}
		case reflection.AnalyzeStep:
			a, err := machineAnalyze(ctx, reflector, step.Failure)
			r.Analyzed(a, err)
			stopped()
		case reflection.WaitStep:
			if step.Delay < 0 {
				t.Errorf("WaitStep.Delay = %v, negative", step.Delay)
			}
			if err := machineWait(ctx, step.Delay); err != nil {
				r.Stop(err)
				continue
			}
			r.Waited()
		case reflection.AskStep:
			if asker == nil {
				t.Fatalf("an AskStep without an Asker: %+v", step)
			}
			ans, err := machineAsk(ctx, asker, step.Question)
			if stopped() {
				continue
			}
			r.Answered(ans, err)
		case reflection.VerifyStep:
			if verifier == nil {
				t.Fatalf("a VerifyStep without a verifier: %+v", step)
			}
			v, res, err := machineVerify(ctx, verifier, step.Call)
			if stopped() {
				continue
			}
			r.Verified(v, res, err)
		case reflection.DoneStep:
			rep := r.Report()
			if _, again := r.Next().(reflection.DoneStep); !again {
				t.Errorf("Next after a DoneStep is not a DoneStep")
			}
			return reflectiontest.Ran{Result: step.Result, Err: step.Err, Report: &rep}
		default:
			t.Fatalf("unknown step %T", step)
		}
	}
}

// machineStopError is the error for a ctx that has ended: it matches
// ctx.Err() and the cancel cause.
func machineStopError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("machine: call stopped: %w: %w", err, cause)
	}
	return fmt.Errorf("machine: call stopped: %w", err)
}

// machineDispatch runs the tool, turning a panic into the error the
// machine expects.
func machineDispatch(ctx context.Context, dispatch reflection.DispatchFunc, call reflection.ToolCall) (res reflection.ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = reflection.ToolResult{}, reflection.ToolPanic(call.Name, v)
		}
	}()
	return dispatch(ctx, call)
}

// machineAnalyze asks the Reflector, turning a panic into an error.
func machineAnalyze(ctx context.Context, r reflection.Reflector, f reflection.Failure) (a reflection.FailureAnalysis, err error) {
	defer func() {
		if v := recover(); v != nil {
			a, err = reflection.FailureAnalysis{}, &reflection.PanicError{Where: "reflector", Value: v}
		}
	}()
	return r.Analyze(ctx, f)
}

// machineAsk asks the human, turning a panic into an error.
func machineAsk(ctx context.Context, a reflection.Asker, q reflection.Question) (ans reflection.Answer, err error) {
	defer func() {
		if v := recover(); v != nil {
			ans, err = reflection.Answer{}, &reflection.PanicError{Where: "asker", Value: v}
		}
	}()
	return a.Ask(ctx, q)
}

// machineVerify asks the verifier, turning a panic into an error.
func machineVerify(ctx context.Context, verify func(context.Context, reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error),
	call reflection.ToolCall) (v reflection.Verdict, res reflection.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, res, err = reflection.VerdictUnknown, reflection.ToolResult{}, &reflection.PanicError{Where: "verifier", Value: p}
		}
	}()
	return verify(ctx, call)
}

// machineWait waits d unless ctx ends first, and refuses at once a wait
// that could not end before ctx's deadline.
func machineWait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if ctx.Err() != nil {
		return machineStopError(ctx)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := reflection.WaitPastDeadline(d, time.Now(), deadline); err != nil {
			return err
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return machineStopError(ctx)
	}
}
