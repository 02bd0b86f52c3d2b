package reflectiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

// Scenario is one generated call of the conformance suite, handed to the
// runtime under test to run once. It holds what a runtime needs: the call,
// the agent's task, a Driver with the scenario's settings, and the scripted
// tool, Reflector and human, which record what they are asked. Its
// methods are safe for concurrent use.
type Scenario struct {
	// Call is the call as the model made it.
	Call reflection.ToolCall
	// Task is the agent's task. The ctx the runtime is given carries it
	// already (reflection.ContextWithTask).
	Task string

	seed  uint64
	index int

	schemas     map[string]bool // WithSchemas knows these tools; nil: no WithSchemas
	allow       map[string]bool // the tools a ToolChange may switch to; nil: no filter
	filterFn    bool            // allow goes through WithToolChangeFilter (else WithAllowedTools)
	maxFix      int             // WithMaxCorrectedInput's argument; math.MinInt: not given
	maxHint     time.Duration   // WithMaxRetryAfter's argument; 0: not given
	observer    bool
	logger      bool
	backoff     *reflection.ExponentialBackoff // the stock strategy instead of the script
	hasDeadline bool
	deadline    time.Duration  // after the start; <= 0: already passed
	withCause   bool           // ctx is cancelled with a cause
	effects     map[string]int // WithEffects' answer per tool; nil: no WithEffects
	loopGuard   bool
	asker       bool // a human answers AskUser
	health      *breakerDraw
	budget      int // the RetryBudget's capacity; 0: none
	detector    *detectorDraw
	verifier    bool // WithVerifier, answering verdicts in turn
	verdicts    [reflection.MaxRecoveryAttempts + 1]verdictDraw
	steps       [reflection.MaxRecoveryAttempts + 1]step

	// Set up for the one run.
	t      *testing.T
	wire   bool
	cancel func()
	driver *reflection.Driver
	tokens *reflection.RetryBudget

	mu  sync.Mutex
	rec observed
}

// errCause is the cause a scenario cancels its ctx with.
var errCause = errors.New("reflectiontest: the host cancelled the call")

// Index returns the scenario's place in its seed's sequence. A runtime
// with two ways to run a call (Driver.Run and Driver.RunWithReport) may
// alternate on it: the index reproduces the choice.
func (s *Scenario) Index() int { return s.index }

// Driver returns a Driver with every setting of the scenario: the strategy
// (which cancels the ctx where the scenario says), the schema lookup, the
// tool-change filter, the size and rate-limit caps, the effects, the loop
// guard, and, for the runtimes that use them, the scripted Reflector and
// human, an Observer, a logger, a Health, a RetryBudget and loop detection.
// The same Driver every time.
func (s *Scenario) Driver() *reflection.Driver { return s.driver }

// Deadline returns when the call's ctx ends, as a time after the start,
// when the scenario has a deadline. Inside a synctest bubble the ctx the
// runtime is given has it already; a runtime with a clock of its own (a
// workflow's run timeout) reads it here.
func (s *Scenario) Deadline() (time.Duration, bool) { return s.deadline, s.hasDeadline }

// Dispatch is the scripted tool, a reflection.DispatchFunc: each attempt
// does what the script says (succeed, fail, return an error, panic, take
// fake time, cancel the ctx). It records every call, and the idempotency
// key it finds with reflection.IdempotencyKey(ctx): a runtime that hands
// the key to tools another way puts it there with
// reflection.ContextWithIdempotencyKey.
func (s *Scenario) Dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	s.mu.Lock()
	k := len(s.rec.dispatched)
	s.rec.dispatched = append(s.rec.dispatched, call)
	s.rec.keys = append(s.rec.keys, reflection.IdempotencyKey(ctx))
	s.mu.Unlock()
	if k >= len(s.steps) {
		s.t.Errorf("the tool was called a %d. time; the ceiling is %d calls", k+1, len(s.steps))
		return reflection.ToolResult{Content: "too many calls", IsError: true}, nil
	}
	st := &s.steps[k]
	if st.dur > 0 {
		time.Sleep(st.dur) // fake time: the tool works, ignoring ctx
	}
	if st.cancel == cancelInDispatch {
		s.cancel()
	}
	if v, ok := st.panicValue(); ok {
		panic(v)
	}
	return st.output()
}

// output is what the tool returns on st, when it does not panic.
func (st *step) output() (reflection.ToolResult, error) {
	switch st.does {
	case doSucceed:
		return reflection.ToolResult{ID: "tool-side-id", Content: st.content}, nil
	case doIsError:
		return reflection.ToolResult{ID: "tool-side-id", Content: st.content, IsError: true}, nil
	case doError:
		return reflection.ToolResult{}, errors.New(st.content)
	case doErrorWithResult:
		return reflection.ToolResult{Content: "a result that must not be used"}, errors.New(st.content)
	case doTypedNilError:
		var e *nilError
		return reflection.ToolResult{}, e
	case doPanickyError:
		return reflection.ToolResult{}, panickyError{}
	case doNoEffect:
		return reflection.ToolResult{}, &markedError{text: st.content, mark: reflection.ErrNoEffect}
	case doTimeout:
		return reflection.ToolResult{}, &markedError{text: st.content, mark: context.DeadlineExceeded}
	}
	return reflection.ToolResult{}, nil
}

// panicValue is the value the tool panics with on st.
func (st *step) panicValue() (any, bool) {
	switch st.does {
	case doPanicString:
		return st.content, true
	case doPanicError:
		return errors.New(st.content), true
	case doPanicNil:
		return nil, true
	}
	return nil, false
}

// Reflector returns the scripted Reflector: on each attempt it answers
// what the script says (an analysis, an error, a panic) and may cancel the
// ctx. It records every Failure.
func (s *Scenario) Reflector() reflection.Reflector {
	return reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		s.mu.Lock()
		s.rec.failures = append(s.rec.failures, f)
		s.mu.Unlock()
		st := s.stepOf(f.Attempt)
		if st.cancel == cancelInReflector {
			s.cancel()
		}
		switch st.refl {
		case reflErrInternal:
			return reflection.FailureAnalysis{}, fmt.Errorf("%w: model said nonsense", reflection.ErrInternal)
		case reflErrSkipped:
			return reflection.FailureAnalysis{}, fmt.Errorf("budget spent: %w", reflection.ErrSkipped)
		case reflPanic:
			panic("reflector exploded")
		case reflTypedNilError:
			var e *nilError
			return st.analysis, e
		case reflErrWithAnalysis:
			return st.analysis, errors.New("analysis and error both")
		}
		return st.analysis, nil
	})
}

// verifyEffect is the scenario's verifier: its k-th verification answers the
// k-th verdict of the script, and is recorded with the attempt whose
// failure it was about (the latest dispatch).
func (s *Scenario) verifyEffect(_ context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	s.mu.Lock()
	k := len(s.rec.verified)
	s.rec.verified = append(s.rec.verified, verification{attempt: len(s.rec.dispatched) - 1, call: call})
	v := s.verdicts[min(k, len(s.verdicts)-1)]
	s.mu.Unlock()
	switch v {
	case verdictNotAppliedDraw:
		return reflection.VerdictNotApplied, reflection.ToolResult{}, nil
	case verdictAppliedDraw:
		return reflection.VerdictApplied, reflection.ToolResult{ID: "not-the-call", Content: verifiedContent, IsError: true}, nil
	case verdictErrorDraw:
		return reflection.VerdictApplied, reflection.ToolResult{}, errors.New("reflectiontest: the ledger is down")
	case verdictPanicDraw:
		panic("reflectiontest: the verifier exploded")
	}
	return reflection.VerdictUnknown, reflection.ToolResult{}, nil
}

// Asker returns the scripted human, or nil when nobody answers AskUser in
// this scenario. On each attempt it approves (maybe with an input),
// declines (maybe with a reply), fails or panics, as the script says, and
// may cancel the ctx. It records every Question.
func (s *Scenario) Asker() reflection.Asker {
	if !s.asker {
		return nil
	}
	return reflection.AskerFunc(func(_ context.Context, q reflection.Question) (reflection.Answer, error) {
		st := s.stepOf(q.Failure.Attempt)
		approve := st.answer == answerApprove || st.answer == answerApproveInput
		s.mu.Lock()
		s.rec.questions = append(s.rec.questions, q)
		if approve {
			s.rec.approved[q.Failure.Attempt] = true
		}
		s.mu.Unlock()
		if st.cancel == cancelInAsker {
			s.cancel()
		}
		switch st.answer {
		case answerApprove:
			return reflection.Answer{Approve: true}, nil
		case answerApproveInput:
			return reflection.Answer{Approve: true, Input: st.human}, nil
		case answerDecline:
			return reflection.Answer{}, nil
		case answerDeclineReply:
			return reflection.Answer{Reply: st.reply, Input: st.human}, nil
		case answerError:
			return reflection.Answer{}, errors.New("reflectiontest: the human could not be reached")
		}
		panic("asker exploded")
	})
}

// stepOf is the script's step for attempt, within bounds.
func (s *Scenario) stepOf(attempt int) *step {
	return &s.steps[min(max(attempt, 0), len(s.steps)-1)]
}

// strategy is the scenario's RecoveryStrategy: the script's actions, or
// the stock backoff, recording every question.
func (s *Scenario) strategy() reflection.RecoveryStrategy {
	return reflection.StrategyFunc(func(ctx context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
		s.mu.Lock()
		s.rec.strategy = append(s.rec.strategy, [2]int{attempt, maxAttempts})
		s.mu.Unlock()
		st := s.stepOf(attempt)
		if !s.sameAnalysis(a, st.analysis) {
			s.t.Errorf("the strategy got analysis %+v, the Reflector answered %+v", a, st.analysis)
		}
		if got := reflection.TaskFromContext(ctx); got != s.Task {
			s.t.Errorf("the strategy's ctx carries the task %q, want %q", got, s.Task)
		}
		if st.cancel == cancelInStrategy {
			s.cancel()
		}
		if s.backoff != nil {
			return s.backoff.Decide(ctx, a, attempt, maxAttempts)
		}
		if st.panics {
			panic(fmt.Sprintf("strategy exploded at attempt %d", attempt))
		}
		return st.action
	})
}

// sameAnalysis compares analyses as Go values, or over the wire as JSON.
func (s *Scenario) sameAnalysis(a, b reflection.FailureAnalysis) bool {
	if !s.wire {
		return reflect.DeepEqual(a, b)
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && sameJSON(ja, jb)
}

// effectOf is what WithEffects' func answers for tool, a panic counting as
// EffectUndeclared.
func (s *Scenario) effectOf(tool string) reflection.Effect {
	if v := s.effects[tool]; v != effectPanics {
		return reflection.Effect(v)
	}
	return reflection.EffectUndeclared
}

func (s *Scenario) breakerThreshold() int {
	if s.health.threshold <= 0 {
		return reflection.DefaultBreakerThreshold
	}
	return s.health.threshold
}

func (s *Scenario) breakerOpenFor() time.Duration {
	if s.health.openFor <= 0 {
		return reflection.DefaultBreakerOpenFor
	}
	return s.health.openFor
}

// schemaOf is the schema the lookup gives for a tool it knows.
func schemaOf(name string) reflection.ToolSchema {
	return reflection.ToolSchema{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (s *Scenario) lookup(name string) (reflection.ToolSchema, bool) {
	if !s.schemas[name] {
		return reflection.ToolSchema{}, false
	}
	return schemaOf(name), true
}

// prepare readies s for one run under t: the ctx (task, cause, deadline,
// loop detector), the shared state, and the Driver. The returned func
// releases the ctx.
func (s *Scenario) prepare(t *testing.T, cfg *suite) (context.Context, func()) {
	s.t, s.wire = t, cfg.wire
	s.rec = observed{approved: map[int]bool{}, logs: &logRecorder{}}
	base := context.Background()
	if s.Task != "" {
		base = reflection.ContextWithTask(base, s.Task)
	}
	var ctx context.Context
	if s.withCause {
		c, cancel := context.WithCancelCause(base)
		ctx, s.cancel = c, func() { cancel(errCause) }
	} else {
		ctx, s.cancel = context.WithCancel(base)
	}
	release := s.cancel
	if s.hasDeadline && !cfg.noBubble {
		c, cancel := context.WithDeadline(ctx, time.Now().Add(s.deadline))
		ctx, release = c, func() { cancel(); s.cancel() }
	}

	opts := []reflection.Option{reflection.WithStrategy(s.strategy()), reflection.WithReflector(s.Reflector())}
	if s.schemas != nil {
		opts = append(opts, reflection.WithSchemas(s.lookup))
	}
	if s.allow != nil {
		if s.filterFn {
			opts = append(opts, reflection.WithToolChangeFilter(func(from, to string) bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.rec.filterCalls = append(s.rec.filterCalls, [2]string{from, to})
				return s.allow[to]
			}))
		} else {
			var names []string
			for _, name := range toolNames {
				if s.allow[name] {
					names = append(names, name)
				}
			}
			opts = append(opts, reflection.WithAllowedTools(names...))
		}
	}
	if s.maxFix != math.MinInt {
		opts = append(opts, reflection.WithMaxCorrectedInput(s.maxFix))
	}
	if s.maxHint > 0 {
		opts = append(opts, reflection.WithMaxRetryAfter(s.maxHint))
	}
	if s.effects != nil {
		opts = append(opts, reflection.WithEffects(func(tool string) reflection.Effect {
			if s.effects[tool] == effectPanics {
				panic("effect func exploded")
			}
			return reflection.Effect(s.effects[tool])
		}))
	}
	if s.loopGuard {
		opts = append(opts, reflection.WithLoopGuard())
	}
	if s.verifier {
		opts = append(opts, reflection.WithVerifier(s.verifyEffect))
	}
	if s.asker {
		opts = append(opts, reflection.WithAsker(s.Asker()))
	}
	if s.observer {
		opts = append(opts, reflection.WithObserver(s.recordingObserver()))
	}
	if s.logger {
		opts = append(opts, reflection.WithLogger(slog.New(s.rec.logs)))
	}
	if h := s.health; h != nil {
		health := reflection.NewHealth(h.threshold, h.openFor)
		down := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{Content: "down", IsError: true}, nil
		}
		for range h.prefail {
			_, _ = reflection.NewDriver(reflection.WithHealth(health)).Run(context.Background(), reflection.ToolCall{Name: s.Call.Name}, down)
		}
		opts = append(opts, reflection.WithHealth(health))
	}
	if s.budget > 0 {
		s.tokens = reflection.NewRetryBudget(s.budget)
		opts = append(opts, reflection.WithRetryBudget(s.tokens))
	}
	if d := s.detector; d != nil {
		ctx = reflection.ContextWithLoopDetector(ctx, reflection.NewLoopDetector(d.warnAt, d.stopAt))
		opts = append(opts, reflection.WithLoopDetection())
	}
	s.driver = reflection.NewDriver(opts...)
	return ctx, release
}

// recordingObserver records the hooks the suite checks.
func (s *Scenario) recordingObserver() reflection.Observer {
	return reflection.Observer{
		Corrected: func(_ context.Context, _ int, _ reflection.Correction, applied bool, why string) {
			if applied != (why == "") {
				s.t.Errorf("Observer.Corrected: applied=%v with why=%q", applied, why)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			s.rec.corrected = append(s.rec.corrected, applied)
		},
		Finished: func(_ context.Context, calls int, res reflection.ToolResult, err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.rec.finished = append(s.rec.finished, reflection.CallEnd{Result: res, Err: err, Calls: calls})
		},
		Ended: func(_ context.Context, end reflection.CallEnd) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.rec.ended = append(s.rec.ended, end)
		},
	}
}

// String describes the scenario, one line for the call and its settings
// and one per attempt of the script.
func (s *Scenario) String() string {
	short := func(b []byte) string {
		if len(b) > 60 {
			return fmt.Sprintf("%q…(%d bytes)", b[:60], len(b))
		}
		return fmt.Sprintf("%q", b)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "seed %d index %d: call{ID:%q Name:%q Input:%s} task:%d bytes schemas:%d allow:%d filterFn:%v maxFix:%d maxHint:%v observer:%v logger:%v",
		s.seed, s.index, s.Call.ID, s.Call.Name, short(s.Call.Input), len(s.Task), len(s.schemas), len(s.allow), s.filterFn,
		s.maxFix, s.maxHint, s.observer, s.logger)
	if s.schemas == nil {
		sb.WriteString(" (no schemas)")
	}
	if s.backoff != nil {
		fmt.Fprintf(&sb, " backoff{retries:%d base:%v max:%v}", s.backoff.MaxRetries(), s.backoff.BaseDelay(), s.backoff.MaxDelay())
	}
	if s.hasDeadline {
		fmt.Fprintf(&sb, " deadline:+%v", s.deadline)
	}
	if s.effects != nil {
		fmt.Fprintf(&sb, " effects:%v", s.effects)
	}
	fmt.Fprintf(&sb, " loopGuard:%v asker:%v", s.loopGuard, s.asker)
	if h := s.health; h != nil {
		fmt.Fprintf(&sb, " health{threshold:%d openFor:%v prefail:%d}", h.threshold, h.openFor, h.prefail)
	}
	if s.budget > 0 {
		fmt.Fprintf(&sb, " budget:%d", s.budget)
	}
	if d := s.detector; d != nil {
		fmt.Fprintf(&sb, " detector{warn:%d stop:%d}", d.warnAt, d.stopAt)
	}
	for i, st := range s.steps {
		c := "nil"
		if cc := st.analysis.Correction; cc != nil {
			c = fmt.Sprintf("{%q in:%s alt:%q}", cc.Type, short(cc.ModifiedInput), cc.AlternativeTool)
		}
		fmt.Fprintf(&sb, "\n  step %d: %v %s dur:%v %v refl:%v recoverable:%v sev:%d retryAfter:%v corr:%s action:%#v panics:%v answer:%v %s",
			i, st.does, short([]byte(st.content)), st.dur, st.cancel, st.refl, st.analysis.IsRecoverable, st.analysis.Severity,
			st.analysis.RetryAfter, c, st.action, st.panics, st.answer, short(st.human))
	}
	return sb.String()
}
