package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

// TestPropertyMachine replays the scenarios of TestPropertyRun against the
// state machine itself: no Driver.Run, no goroutine, no clock. A small
// runtime written here performs each step from the scenario's script (the
// tool's results, the reflector's answers, the cancels, a fake clock for the
// deadline) and must arrive where the model of Run's rules says, exactly as Run
// does. Reproduce a failure with
//
//	go test -run '^TestPropertyMachine$' -prop.seed=S -prop.only=I -v .
func TestPropertyMachine(t *testing.T) {
	n := *propN
	if testing.Short() {
		n /= 5
	}
	seed := *propSeed
	start, end := 0, n
	if *propOnly >= 0 {
		start, end = *propOnly, *propOnly+1
	}
	var dispatches, asked int
	for i := start; i < end; i++ {
		s := relGenScenario(seed, i)
		want := s.model()
		o, steps := s.driveMachine(t)
		dispatches += len(o.dispatched)
		asked += steps
		s.observer = true // the machine's report stands in for the observer
		s.verify(t, want, o)
		if t.Failed() {
			t.Fatalf("scenario %d of seed %d failed; reproduce with:\n\tgo test -run '^TestPropertyMachine$' -prop.seed=%d -prop.only=%d -v .\nscenario: %v",
				i, seed, seed, i, s)
		}
	}
	t.Logf("seed %d: %d scenarios, %d dispatches, %d steps", seed, end-start, dispatches, asked)
}

// machineDeadline is the error the test's runtime gives Stop when a wait
// would pass the deadline, as Run does.
var machineDeadline = fmt.Errorf("prop: wait past the deadline: %w", context.DeadlineExceeded)

// driveMachine runs s on a Recovery, performing each step from the script,
// and returns what happened and how many steps the machine asked for.
func (s *propScenario) driveMachine(t *testing.T) (propObserved, int) {
	t.Helper()
	var o propObserved
	// The caller's context: its state is simulated, so the strategy gets a
	// plain one carrying the task.
	base := context.Background()
	if s.task != "" {
		base = reflection.ContextWithTask(base, s.task)
	}
	var now time.Duration
	var ctxErr error // the simulated ctx.Err()
	cancel := func() {
		if ctxErr == nil {
			ctxErr = context.Canceled
		}
	}
	if s.hasDL && s.deadline <= 0 {
		ctxErr = context.DeadlineExceeded
	}
	stopErr := func() error {
		if errors.Is(ctxErr, context.Canceled) && s.withCause {
			return fmt.Errorf("prop: stopped: %w: %w", ctxErr, relErrCause)
		}
		return fmt.Errorf("prop: stopped: %w", ctxErr)
	}
	advance := func(d time.Duration) {
		now += d
		if s.hasDL && now >= s.deadline && ctxErr == nil {
			ctxErr = context.DeadlineExceeded
		}
	}

	opts := s.correctionOptions(&o.filterCalls)
	opts = append(opts, reflection.WithStrategy(reflection.StrategyFunc(func(ctx context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
		o.strategy = append(o.strategy, [2]int{attempt, maxAttempts})
		st := &s.steps[min(max(attempt, 0), len(s.steps)-1)]
		if st.cancel == propCancelInStrategy {
			cancel()
		}
		if got := reflection.TaskFromContext(ctx); got != s.task {
			t.Errorf("strategy ctx carries task %q, want %q", got, s.task)
		}
		if s.backoff != nil {
			return s.backoff.Decide(ctx, a, attempt, maxAttempts)
		}
		if st.stratPan {
			panic(fmt.Sprintf("strategy exploded at attempt %d", attempt))
		}
		return st.action
	})))
	r := reflection.NewDriver(opts...).NewRecovery(base, s.call)

	if ctxErr != nil { // step 1 before the first call
		r.Stop(stopErr())
	}
	steps := 0
	for {
		steps++
		if steps > 100 {
			t.Fatalf("the machine asked for more than 100 steps")
		}
		switch step := r.Next().(type) {
		case reflection.DispatchStep:
			if ctxErr != nil {
				r.Stop(stopErr())
				continue
			}
			k := len(o.dispatched)
			o.dispatched = append(o.dispatched, step.Call)
			if k >= len(s.steps) {
				t.Fatalf("dispatch asked for a %d. time", k+1)
			}
			if step.Attempt != k {
				t.Errorf("DispatchStep.Attempt = %d, want %d", step.Attempt, k)
			}
			st := &s.steps[k]
			advance(st.dur)
			if st.cancel == propCancelInDispatch {
				cancel()
			}
			res, err := machineOutcome(st, step.Call.Name)
			r.Dispatched(res, err)
			if _, analyze := r.Next().(reflection.AnalyzeStep); analyze && ctxErr != nil {
				r.Stop(stopErr()) // a failure after ctx ended: no analysis
			}
		case reflection.AnalyzeStep:
			f := step.Failure
			o.failures = append(o.failures, f)
			st := &s.steps[min(f.Attempt, len(s.steps)-1)]
			if st.cancel == propCancelInReflector {
				cancel()
			}
			a, err := machineAnalysis(st)
			r.Analyzed(a, err)
			if ctxErr != nil {
				r.Stop(stopErr())
			}
		case reflection.WaitStep:
			switch {
			case step.Delay < 0:
				t.Errorf("WaitStep.Delay = %v, negative", step.Delay)
			case step.Delay > 0 && ctxErr != nil:
				r.Stop(stopErr())
				continue
			case step.Delay > 0 && s.hasDL && s.deadline <= now+step.Delay:
				r.Stop(machineDeadline)
				continue
			}
			advance(step.Delay)
			r.Waited()
		case reflection.AskStep:
			t.Fatalf("AskStep without an Asker: %+v", step)
		case reflection.DoneStep:
			o.res, o.err, o.elapsed, o.ctxErr = step.Result, step.Err, now, ctxErr
			rep := r.Report()
			if rep.Result != step.Result {
				t.Errorf("report result %+v, DoneStep result %+v", rep.Result, step.Result)
			}
			if len(rep.Attempts) != len(o.dispatched) {
				t.Errorf("report has %d attempts, %d dispatches", len(rep.Attempts), len(o.dispatched))
			}
			for _, a := range rep.Attempts {
				for _, c := range a.Corrections {
					o.corrected = append(o.corrected, c.Applied)
				}
			}
			o.finished, o.finishedRes, o.finishedErr = 1, step.Result, step.Err
			if _, again := r.Next().(reflection.DoneStep); !again {
				t.Errorf("Next after a DoneStep is not a DoneStep")
			}
			return o, steps
		default:
			t.Fatalf("unknown step %T", step)
		}
	}
}

// machineOutcome is what the scripted tool returns, with a panic turned
// into an error as a runtime must (the machine never sees a panic).
func machineOutcome(st *propStep, tool string) (reflection.ToolResult, error) {
	switch st.outcome {
	case propOutSuccess:
		return reflection.ToolResult{ID: "tool-side-id", Content: st.content}, nil
	case propOutIsError:
		return reflection.ToolResult{ID: "tool-side-id", Content: st.content, IsError: true}, nil
	case propOutErr:
		return reflection.ToolResult{}, errors.New(st.content)
	case propOutErrWithResult:
		return reflection.ToolResult{Content: "a result that must not be used"}, errors.New(st.content)
	case propOutPanicString, propOutPanicError:
		return reflection.ToolResult{}, fmt.Errorf("tool %q panicked: %s: %w", tool, st.content, reflection.ErrPanicked)
	case propOutPanicNil:
		return reflection.ToolResult{}, fmt.Errorf("tool %q panicked: %s: %w", tool, relPanicNilText, reflection.ErrPanicked)
	case propOutTypedNilErr:
		var e *relNilError
		return reflection.ToolResult{}, e
	default:
		return reflection.ToolResult{}, relPanickyError{}
	}
}

// machineAnalysis is what the scripted reflector answers, with a panic
// turned into an error.
func machineAnalysis(st *propStep) (reflection.FailureAnalysis, error) {
	switch st.refl {
	case propReflErrInternal:
		return reflection.FailureAnalysis{}, fmt.Errorf("%w: model said nonsense", reflection.ErrInternal)
	case propReflErrSkipped:
		return reflection.FailureAnalysis{}, fmt.Errorf("budget spent: %w", reflection.ErrSkipped)
	case propReflPanic:
		return reflection.FailureAnalysis{}, fmt.Errorf("reflector panicked: %w", reflection.ErrPanicked)
	case propReflTypedNilErr:
		var e *relNilError
		return st.analysis, e
	case propReflErrWithAnalysis:
		return st.analysis, errors.New("analysis and error both")
	}
	return st.analysis, nil
}
