package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/loopctl-go/reflection/rules"
)

// The effect guard: with WithEffects, a tool that may already have acted is
// not retried blindly. Every test here is black-box, through Driver.Run,
// RunWithReport or a Recovery driven by hand.

// sfMayHaveActed matches the words an ambiguous_effect AskUser must say:
// the call may already have taken effect.
var sfMayHaveActed = regexp.MustCompile(`(?i)already\s+(have\s+|has\s+)?(taken\s+effect|acted)`)

var sfEffectWords = []struct {
	effect reflection.Effect
	word   string
}{
	{reflection.EffectUndeclared, "undeclared"},
	{reflection.EffectReadOnly, "read_only"},
	{reflection.EffectIdempotent, "idempotent"},
	{reflection.EffectKeyed, "keyed"},
	{reflection.EffectNonIdempotent, "non_idempotent"},
}

func TestEffectText(t *testing.T) {
	for _, tt := range sfEffectWords {
		t.Run(tt.word, func(t *testing.T) {
			assert.Equal(t, tt.word, tt.effect.String(), "String")

			text, err := tt.effect.MarshalText()
			require.NoError(t, err, "MarshalText")
			assert.Equal(t, tt.word, string(text), "MarshalText")

			var got reflection.Effect = 200
			require.NoError(t, got.UnmarshalText([]byte(tt.word)), "UnmarshalText(%q)", tt.word)
			assert.Equal(t, tt.effect, got, "UnmarshalText(%q)", tt.word)

			js, err := json.Marshal(map[string]reflection.Effect{"effect": tt.effect})
			require.NoError(t, err)
			assert.JSONEq(t, `{"effect":"`+tt.word+`"}`, string(js), "as a JSON value")
			var back map[string]reflection.Effect
			require.NoError(t, json.Unmarshal(js, &back))
			assert.Equal(t, tt.effect, back["effect"], "JSON round trip")
		})
	}
}

func TestEffectTextRejectsOthers(t *testing.T) {
	for _, e := range []reflection.Effect{5, 6, 42, 255} {
		t.Run(fmt.Sprintf("MarshalText(%d)", uint8(e)), func(t *testing.T) {
			_, err := e.MarshalText()
			assert.Error(t, err, "MarshalText of an effect outside the five")
			for _, w := range sfEffectWords {
				assert.NotEqual(t, w.word, e.String(), "String of an unknown effect reads as a known one")
			}
		})
	}
	for _, word := range []string{
		"", "Undeclared", "READ_ONLY", "Keyed", " keyed", "keyed ", "keyed\n", "keyed\x00",
		"read-only", "readonly", "nonidempotent", "non-idempotent", "non idempotent",
		"0", "3", `"keyed"`, "idempotent_", "undeclared,keyed", "effect(3)",
	} {
		t.Run(fmt.Sprintf("UnmarshalText(%q)", word), func(t *testing.T) {
			got := reflection.EffectIdempotent
			assert.Error(t, got.UnmarshalText([]byte(word)), "UnmarshalText(%q) accepted a word outside the five", word)
			assert.Equal(t, reflection.EffectIdempotent, got, "a rejected word changed the value")
		})
	}
}

// sfFailureKind is one way a dispatch can fail, and whether the guard must
// count it as ambiguous (it may have come after the tool acted).
type sfFailureKind struct {
	name      string
	outcome   reflectiontest.Outcome
	ambiguous bool
}

func sfFailureKinds() []sfFailureKind {
	return []sfFailureKind{
		{"failure result", reflectiontest.Fail("payment gateway said: try again later"), true},
		{"plain error", reflectiontest.Error(errors.New("connection reset by peer")), true},
		{"deadline exceeded", reflectiontest.Error(fmt.Errorf("POST /v1/charges: %w", context.DeadlineExceeded)), true},
		{"timeout method", reflectiontest.Error(sfTimeoutError{timeout: true}), true},
		{"panic", reflectiontest.Panic("gateway client crashed"), true},
		{"no effect", reflectiontest.Error(fmt.Errorf("rejected before anything was sent: %w", reflection.ErrNoEffect)), false},
		{"circuit open", reflectiontest.Error(reflection.ErrCircuitOpen), false},
	}
}

// sfGuardCorrection is a correction the Reflector proposes after the
// failure, and whether it makes the next attempt's (tool, input) differ, as
// JSON values, from the one that failed.
type sfGuardCorrection struct {
	name    string
	c       *reflection.Correction
	changes bool
}

const sfChargeInput = `{"amount":1000,"currency":"eur"}`

func sfGuardCorrections() []sfGuardCorrection {
	return []sfGuardCorrection{
		{"no correction", nil, false},
		{"no-op input fix", sfInputFix(`{ "currency" : "eur",  "amount": 1000 }`), false},
		{"changing input fix", sfInputFix(`{"amount":1000,"currency":"usd"}`), true},
		{"tool change", sfToolChange("charge_card_v2"), true},
		{"tool change to the failing tool", sfToolChange("charge_card"), false},
		{"dropped input fix", sfInputFix(`["not","an","object"]`), false},
		{"dropped tool change", sfToolChange("no_such_tool"), false},
		{"advisory correction", &reflection.Correction{Type: reflection.PrerequisiteFix, Description: "wait", Guidance: "check the ledger"}, false},
	}
}

// TestEffectGuard runs every effect against every kind of failure and every
// correction, and checks whether the call is retried or handed to a human.
func TestEffectGuard(t *testing.T) {
	for _, eff := range sfEffectWords {
		for _, kind := range sfFailureKinds() {
			for _, corr := range sfGuardCorrections() {
				name := eff.word + "/" + kind.name + "/" + corr.name
				t.Run(name, func(t *testing.T) {
					retried := !kind.ambiguous ||
						eff.effect == reflection.EffectReadOnly ||
						eff.effect == reflection.EffectIdempotent ||
						(eff.effect == reflection.EffectKeyed && !corr.changes)

					tool := reflectiontest.NewTool(kind.outcome, reflectiontest.Succeed("charged"))
					d := reflection.NewDriver(
						reflection.WithEffects(sfOneEffect(eff.effect)),
						reflection.WithReflector(sfAlways(sfRecoverable(corr.c))),
						reflection.WithStrategy(sfRetry(0)),
						reflection.WithSchemas(sfKnown("charge_card", "charge_card_v2")),
					)
					call := sfCall("charge_card", sfChargeInput)
					rep, err := d.RunWithReport(context.Background(), call, tool.Dispatch)
					require.NoError(t, err)
					require.NotEmpty(t, rep.Attempts)

					if retried {
						assert.Equal(t, reflection.ToolResult{ID: call.ID, Content: "charged"}, rep.Result, "a retry that is allowed must run")
						assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome, "outcome")
						assert.Equal(t, reflection.Reason(""), rep.Reason, "reason")
						assert.Len(t, tool.Calls(), 2, "dispatches")
						return
					}
					failure := rep.Attempts[0].Failure
					assert.Len(t, tool.Calls(), 1, "a tool that may have acted was dispatched again")
					assert.True(t, rep.Result.IsError, "IsError")
					assert.True(t, strings.HasPrefix(rep.Result.Content, failure), "Content %q should start with the failure text %q", rep.Result.Content, failure)
					assert.Regexp(t, sfMayHaveActed, rep.Result.Content, "Content must say the call may already have taken effect")
					assert.Equal(t, reflection.OutcomeAskedUser, rep.Outcome, "outcome")
					assert.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason, "reason")
					if ask, ok := rep.Attempts[0].Action.(reflection.AskUser); assert.True(t, ok, "action %v, want an AskUser", rep.Attempts[0].Action) {
						assert.Regexp(t, sfMayHaveActed, ask.Prompt, "prompt")
					}
				})
			}
		}
	}
}

// TestEffectGuardOnlyTurnsRetry checks that the guard changes a Retry
// decision only: the strategy's own Skip, AskUser and Fail keep their
// reason.
func TestEffectGuardOnlyTurnsRetry(t *testing.T) {
	tests := []struct {
		action  reflection.RecoveryAction
		outcome reflection.Outcome
	}{
		{reflection.Skip{Reason: "not now"}, reflection.OutcomeSkipped},
		{reflection.AskUser{Prompt: "should I charge again?"}, reflection.OutcomeAskedUser},
		{reflection.Fail{Reason: "give up"}, reflection.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.action.String(), func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("charged"))
			d := reflection.NewDriver(
				reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)),
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(reflectiontest.NewStrategy(tt.action)),
			)
			rep, err := d.RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome, "outcome")
			assert.Equal(t, reflection.ReasonStrategy, rep.Reason, "reason")
			assert.Len(t, tool.Calls(), 1, "dispatches")
		})
	}
}

// sfAsker is an Asker that gives one reply (or error, or panic) and records
// every question.
type sfAsker struct {
	ans    reflection.Answer
	err    error
	panics any

	mu        sync.Mutex
	questions []reflection.Question
}

func (a *sfAsker) Ask(_ context.Context, q reflection.Question) (reflection.Answer, error) {
	a.mu.Lock()
	a.questions = append(a.questions, q)
	a.mu.Unlock()
	if a.panics != nil {
		panic(a.panics)
	}
	return a.ans, a.err
}

func (a *sfAsker) asked() []reflection.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]reflection.Question(nil), a.questions...)
}

// TestEffectGuardAsksAHuman checks what follows an ambiguous_effect AskUser:
// a human's approval retries; a decline, an Asker error or panic, or no Asker
// at all keep the reason ambiguous_effect.
func TestEffectGuardAsksAHuman(t *testing.T) {
	tests := []struct {
		name    string
		asker   *sfAsker // nil: no Asker
		outcome reflection.Outcome
		reason  reflection.Reason
		calls   int
		content []string // what Content must contain
	}{
		{
			name:    "approved",
			asker:   &sfAsker{ans: reflection.Answer{Approve: true}},
			outcome: reflection.OutcomeSucceeded, reason: "", calls: 2,
			content: []string{"charged"},
		},
		{
			name:    "declined",
			asker:   &sfAsker{ans: reflection.Answer{Reply: "check the ledger first"}},
			outcome: reflection.OutcomeAskedUser, reason: reflection.ReasonDeclined, calls: 1,
			content: []string{"gateway timeout", "A human declined to retry this call.", "check the ledger first"},
		},
		{
			name:    "asker error",
			asker:   &sfAsker{err: errors.New("nobody at the desk")},
			outcome: reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
			content: []string{"gateway timeout"},
		},
		{
			name:    "asker panic",
			asker:   &sfAsker{panics: "terminal gone"},
			outcome: reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
			content: []string{"gateway timeout"},
		},
		{
			name:    "no asker",
			outcome: reflection.OutcomeAskedUser, reason: reflection.ReasonAmbiguousEffect, calls: 1,
			content: []string{"gateway timeout"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("charged"))
			opts := []reflection.Option{
				reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)),
				reflection.WithReflector(sfAlways(sfRecoverable(nil))),
				reflection.WithStrategy(sfRetry(0)),
			}
			if tt.asker != nil {
				opts = append(opts, reflection.WithAsker(tt.asker))
			}
			rep, err := reflection.NewDriver(opts...).RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, rep.Outcome, "outcome")
			assert.Equal(t, tt.reason, rep.Reason, "reason")
			assert.Len(t, tool.Calls(), tt.calls, "dispatches")
			for _, want := range tt.content {
				assert.Contains(t, rep.Result.Content, want)
			}
			if tt.asker != nil {
				qs := tt.asker.asked()
				if assert.Len(t, qs, 1, "questions") {
					assert.Regexp(t, sfMayHaveActed, qs[0].Prompt, "the question's prompt")
				}
			} else {
				assert.Regexp(t, sfMayHaveActed, rep.Result.Content, "the soft AskUser ending")
			}
		})
	}
}

// TestEffectGuardMachine drives a Recovery by hand: when the runtime can ask,
// the guard yields an AskStep; when it cannot, the soft AskUser ending.
func TestEffectGuardMachine(t *testing.T) {
	for _, canAsk := range []bool{true, false} {
		t.Run(fmt.Sprintf("can ask %v", canAsk), func(t *testing.T) {
			d := reflection.NewDriver(
				reflection.WithEffects(sfOneEffect(reflection.EffectUndeclared)),
				reflection.WithStrategy(sfRetry(time.Second)),
			)
			r := d.NewRecovery(context.Background(), sfCall("send_email", `{"to":"a@example.com"}`))
			if canAsk {
				r.EnableAsk()
			}
			_, ok := r.Next().(reflection.DispatchStep)
			require.True(t, ok, "first step")
			r.Dispatched(reflection.ToolResult{}, errors.New("i/o timeout"))
			step, ok := r.Next().(reflection.AnalyzeStep)
			require.True(t, ok, "second step")
			assert.Equal(t, reflection.EffectUndeclared, step.Failure.Effect)
			r.Analyzed(sfRecoverable(nil), nil)

			switch s := r.Next().(type) {
			case reflection.AskStep:
				require.True(t, canAsk, "an AskStep for a runtime that cannot ask")
				assert.Regexp(t, sfMayHaveActed, s.Question.Prompt)
				r.Answered(reflection.Answer{}, nil)
				done, ok := r.Next().(reflection.DoneStep)
				require.True(t, ok)
				assert.True(t, done.Result.IsError)
				assert.Equal(t, reflection.ReasonDeclined, r.Reason(), "a human declined the guard's question")
			case reflection.DoneStep:
				require.False(t, canAsk, "no AskStep for a runtime that can ask")
				assert.NoError(t, s.Err)
				assert.Regexp(t, sfMayHaveActed, s.Result.Content)
				assert.Equal(t, reflection.ReasonAmbiguousEffect, r.Reason())
				assert.Equal(t, reflection.OutcomeAskedUser, r.Outcome())
			default:
				t.Fatalf("step after the ambiguous failure: %T %+v, want an AskStep or the DoneStep", s, s)
			}
			assert.Equal(t, 1, r.Calls(), "calls")
		})
	}
}

// TestEffectGuardExhaustionFirst checks that a Retry after the sixth failed
// call is the exhaustion error, not an ambiguous_effect AskUser.
func TestEffectGuardExhaustionFirst(t *testing.T) {
	noEffect := reflectiontest.Error(fmt.Errorf("refused: %w", reflection.ErrNoEffect))
	tool := reflectiontest.NewTool(noEffect, noEffect, noEffect, noEffect, noEffect, reflectiontest.Fail("gateway timeout"))
	d := reflection.NewDriver(
		reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetry(0)),
	)
	rep, err := d.RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
	var exhausted *reflection.ToolRecoveryExhaustedError
	require.ErrorAs(t, err, &exhausted)
	assert.Equal(t, 6, exhausted.Attempts)
	assert.Equal(t, reflection.OutcomeExhausted, rep.Outcome)
	assert.Equal(t, reflection.ReasonCeiling, rep.Reason)
	assert.Len(t, tool.Calls(), 6)
}

// TestEffectGuardComesFirst checks that the guard decides before the hint
// cap, the budget and the loop guard: each of those would end the call with
// its own reason, but an ambiguous failure of a non-idempotent tool ends it
// with ambiguous_effect. With a read-only tool the other rule shows.
func TestEffectGuardComesFirst(t *testing.T) {
	type scenario struct {
		name  string
		other reflection.Reason // the reason when the guard lets the retry through
		run   func(t *testing.T, effect reflection.Effect) reflection.Report
	}
	scenarios := []scenario{
		{
			name:  "hint cap",
			other: reflection.ReasonHintOverCap,
			run: func(t *testing.T, effect reflection.Effect) reflection.Report {
				a := sfRecoverable(nil)
				a.RetryAfter = 2 * time.Minute
				tool := reflectiontest.NewTool(reflectiontest.Fail("429 slow down"), reflectiontest.Succeed("ok"))
				d := reflection.NewDriver(
					reflection.WithEffects(sfOneEffect(effect)),
					reflection.WithReflector(sfAlways(a)),
					reflection.WithStrategy(sfRetry(0)),
				)
				rep, err := d.RunWithReport(context.Background(), sfCall("post", `{}`), tool.Dispatch)
				require.NoError(t, err)
				return rep
			},
		},
		{
			name:  "budget",
			other: reflection.ReasonBudgetExhausted,
			run: func(t *testing.T, effect reflection.Effect) reflection.Report {
				budget := reflection.NewRetryBudget(1)
				tool := reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Succeed("ok"))
				d := reflection.NewDriver(
					reflection.WithEffects(sfOneEffect(effect)),
					reflection.WithReflector(sfAlways(sfRecoverable(nil))),
					reflection.WithStrategy(sfRetry(0)),
					reflection.WithRetryBudget(budget),
				)
				rep, err := d.RunWithReport(context.Background(), sfCall("post", `{}`), tool.Dispatch)
				require.NoError(t, err)
				assert.Equal(t, 1, budget.Tokens(), "tokens")
				return rep
			},
		},
		{
			name:  "loop guard",
			other: reflection.ReasonCorrectionLoop,
			run: func(t *testing.T, effect reflection.Effect) reflection.Report {
				effects := map[string]reflection.Effect{"a": reflection.EffectNonIdempotent, "b": effect}
				tool := reflectiontest.NewTool(
					reflectiontest.Error(fmt.Errorf("validation: %w", reflection.ErrNoEffect)),
					reflectiontest.Fail("b timed out"),
					reflectiontest.Succeed("ok"),
				)
				d := reflection.NewDriver(
					reflection.WithEffects(sfEffects(effects)),
					reflection.WithReflector(reflectiontest.NewReflector(
						sfRecoverable(sfToolChange("b")),
						sfRecoverable(sfToolChange("a")),
					)),
					reflection.WithStrategy(sfRetry(0)),
					reflection.WithLoopGuard(),
				)
				rep, err := d.RunWithReport(context.Background(), sfCall("a", `{}`), tool.Dispatch)
				require.NoError(t, err)
				assert.Len(t, tool.Calls(), 2, "dispatches")
				return rep
			},
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name+"/non_idempotent", func(t *testing.T) {
			rep := sc.run(t, reflection.EffectNonIdempotent)
			assert.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason, "reason")
			assert.Equal(t, reflection.OutcomeAskedUser, rep.Outcome, "outcome")
		})
		t.Run(sc.name+"/read_only", func(t *testing.T) {
			rep := sc.run(t, reflection.EffectReadOnly)
			assert.Equal(t, sc.other, rep.Reason, "reason")
			assert.Equal(t, reflection.OutcomeFailed, rep.Outcome, "outcome")
		})
	}
}

// TestEffectOfTheToolThatFailed checks that the effect looked up is that of
// the tool that just failed, after earlier corrections.
func TestEffectOfTheToolThatFailed(t *testing.T) {
	tests := []struct {
		name    string
		a, b    reflection.Effect
		first   reflectiontest.Outcome // a's failure
		calls   int
		outcome reflection.Outcome
	}{
		{
			name: "non-idempotent a refused before acting, read-only b retried",
			a:    reflection.EffectNonIdempotent, b: reflection.EffectReadOnly,
			first: reflectiontest.Error(fmt.Errorf("not sent: %w", reflection.ErrNoEffect)),
			calls: 3, outcome: reflection.OutcomeSucceeded,
		},
		{
			name: "read-only a, non-idempotent b not retried",
			a:    reflection.EffectReadOnly, b: reflection.EffectNonIdempotent,
			first: reflectiontest.Fail("a timed out"),
			calls: 2, outcome: reflection.OutcomeAskedUser,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := reflectiontest.NewTool(tt.first, reflectiontest.Fail("b timed out"), reflectiontest.Succeed("ok"))
			refl := reflectiontest.NewReflector(sfRecoverable(sfToolChange("b")), sfRecoverable(nil))
			d := reflection.NewDriver(
				reflection.WithEffects(sfEffects(map[string]reflection.Effect{"a": tt.a, "b": tt.b})),
				reflection.WithReflector(refl),
				reflection.WithStrategy(sfRetry(0)),
			)
			rep, err := d.RunWithReport(context.Background(), sfCall("a", `{}`), tool.Dispatch)
			require.NoError(t, err)
			reflectiontest.AssertOutcome(t, rep, tt.outcome)
			assert.Len(t, tool.Calls(), tt.calls, "dispatches")
			fs := refl.Failures()
			require.Len(t, fs, 2)
			assert.Equal(t, tt.a, fs[0].Effect, "Failure.Effect of a")
			assert.Equal(t, tt.b, fs[1].Effect, "Failure.Effect of b")
		})
	}
}

// TestFailureEffect checks the Failure.Effect a Reflector sees: zero without
// WithEffects, the looked-up effect with it.
func TestFailureEffect(t *testing.T) {
	tests := []struct {
		name   string
		opts   []reflection.Option
		effect reflection.Effect
	}{
		{"without WithEffects", nil, reflection.EffectUndeclared},
		{"read_only", []reflection.Option{reflection.WithEffects(sfOneEffect(reflection.EffectReadOnly))}, reflection.EffectReadOnly},
		{"keyed", []reflection.Option{reflection.WithEffects(sfOneEffect(reflection.EffectKeyed))}, reflection.EffectKeyed},
		{"nil lookup means off", []reflection.Option{reflection.WithEffects(nil)}, reflection.EffectUndeclared},
		{"a lookup that panics counts as undeclared", []reflection.Option{reflection.WithEffects(func(string) reflection.Effect { panic("no table") })}, reflection.EffectUndeclared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refl := reflectiontest.NewReflector(reflection.FailureAnalysis{RootCause: "no"})
			tool := reflectiontest.NewTool(reflectiontest.Fail("boom"))
			d := reflection.NewDriver(append(tt.opts, reflection.WithReflector(refl))...)
			_, err := d.Run(context.Background(), sfCall("get_weather", `{"city":"Lisbon"}`), tool.Dispatch)
			require.NoError(t, err)
			fs := refl.Failures()
			require.Len(t, fs, 1)
			assert.Equal(t, tt.effect, fs[0].Effect)
		})
	}
}

// TestEffectGuardWithoutWithEffects checks that without the option a
// non-idempotent failure retries as it always did (the guard is opt-in).
func TestEffectGuardWithoutWithEffects(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("charged"))
	d := reflection.NewDriver(
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetry(0)),
	)
	res, err := d.Run(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, "charged", res.Content)
	assert.Len(t, tool.Calls(), 2)
}

// sfSideEffectTool is a tool that acts (charges, sends) and then fails with
// err: the reproduction of the blind-retry issue.
type sfSideEffectTool struct {
	err  error
	mu   sync.Mutex
	acts int
}

func (s *sfSideEffectTool) dispatch(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
	s.mu.Lock()
	s.acts++
	s.mu.Unlock()
	return reflection.ToolResult{}, s.err
}

func (s *sfSideEffectTool) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acts
}

// TestEffectIssueReproduction is the issue's reproduction: under the stock
// rules and backoff, a charge that times out after charging was charged once
// per retry; with WithEffects it is charged once.
func TestEffectIssueReproduction(t *testing.T) {
	tests := []struct {
		name        string
		tool        string
		input       string
		err         error
		maxRetries  int
		withEffects int // acts with WithEffects
		without     int // acts without it
	}{
		{
			name: "charge_card", tool: "charge_card", input: `{"amount":4200,"currency":"eur","card":"tok_visa"}`,
			err:        fmt.Errorf("POST https://api.payments.example/v1/charges: %w", context.DeadlineExceeded),
			maxRetries: 3, withEffects: 1, without: 4,
		},
		{
			name: "send_email, stock backoff", tool: "send_email", input: `{"to":"ana@example.com","subject":"invoice"}`,
			err:        errors.New("i/o timeout (after DATA was sent)"),
			maxRetries: 3, withEffects: 1, without: 4,
		},
		{
			name: "send_email, five retries", tool: "send_email", input: `{"to":"ana@example.com","subject":"invoice"}`,
			err:        errors.New("i/o timeout (after DATA was sent)"),
			maxRetries: 5, withEffects: 1, without: 6,
		},
	}
	for _, tt := range tests {
		for _, guarded := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/WithEffects=%v", tt.name, guarded), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					tool := &sfSideEffectTool{err: tt.err}
					opts := []reflection.Option{
						reflection.WithReflector(rules.New(rules.Defaults()...)),
						reflection.WithStrategy(reflection.NewExponentialBackoff(tt.maxRetries)),
					}
					if guarded {
						opts = append(opts, reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)))
					}
					rep, err := reflection.NewDriver(opts...).RunWithReport(context.Background(), sfCall(tt.tool, tt.input), tool.dispatch)
					require.NoError(t, err)
					assert.True(t, rep.Result.IsError)
					want := tt.without
					if guarded {
						want = tt.withEffects
						assert.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason, "reason")
						assert.Equal(t, reflection.OutcomeAskedUser, rep.Outcome, "outcome")
					}
					assert.Equal(t, want, tool.count(), "times the side effect happened")
				})
			})
		}
	}
}

// TestEffectGuardAttemptTimeout checks that an attempt cut short by
// WithAttemptTimeout is ambiguous too: the tool may have acted before it was
// too slow.
func TestEffectGuardAttemptTimeout(t *testing.T) {
	for _, eff := range []reflection.Effect{reflection.EffectNonIdempotent, reflection.EffectKeyed, reflection.EffectReadOnly} {
		t.Run(eff.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				slowOnce := func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
					calls++
					if calls == 1 {
						<-ctx.Done()
						return reflection.ToolResult{}, ctx.Err()
					}
					return reflection.ToolResult{Content: "sent"}, nil
				}
				d := reflection.NewDriver(
					reflection.WithEffects(sfOneEffect(eff)),
					reflection.WithAttemptTimeout(time.Second),
					reflection.WithReflector(sfAlways(sfRecoverable(nil))),
					reflection.WithStrategy(sfRetry(0)),
				)
				rep, err := d.RunWithReport(context.Background(), sfCall("send_email", `{"to":"a@example.com"}`), slowOnce)
				require.NoError(t, err)
				if eff == reflection.EffectNonIdempotent {
					assert.Equal(t, 1, calls, "dispatches")
					assert.Equal(t, reflection.ReasonAmbiguousEffect, rep.Reason)
					assert.True(t, strings.HasPrefix(rep.Result.Content, `tool "send_email" timed out after 1s`), "%q", rep.Result.Content)
					return
				}
				assert.Equal(t, 2, calls, "dispatches")
				assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome)
			})
		})
	}
}

// TestEffectGuardApprovalAppliesTheCorrection checks that a human's approval
// of a keyed tool's changed retry runs it with the correction, as any
// approval does.
func TestEffectGuardApprovalAppliesTheCorrection(t *testing.T) {
	asker := &sfAsker{ans: reflection.Answer{Approve: true}}
	tool := reflectiontest.NewTool(reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("charged"))
	d := reflection.NewDriver(
		reflection.WithEffects(sfOneEffect(reflection.EffectKeyed)),
		reflection.WithReflector(sfAlways(sfRecoverable(sfInputFix(`{"amount":1000,"currency":"usd"}`)))),
		reflection.WithStrategy(sfRetry(0)),
		reflection.WithAsker(asker),
	)
	rep, err := d.RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome)
	require.Len(t, asker.asked(), 1, "the changed retry of a keyed tool is put to a human")
	assert.Regexp(t, sfMayHaveActed, asker.asked()[0].Prompt)
	calls := tool.Calls()
	require.Len(t, calls, 2)
	assert.JSONEq(t, `{"amount":1000,"currency":"usd"}`, string(calls[1].Input), "the approved retry runs with the correction")
}

// TestEffectGuardKeyedDroppedCorrections checks, for a keyed tool after an
// ambiguous failure, that a correction the Driver's own guards drop changes
// nothing (the retry runs the same call, under the same key), and that an
// input equal as a JSON value (escapes, order, spaces) is the same input.
func TestEffectGuardKeyedDroppedCorrections(t *testing.T) {
	tests := []struct {
		name string
		c    *reflection.Correction
		opts []reflection.Option
	}{
		{"duplicate keys", sfInputFix(`{"amount":1000,"amount":5,"currency":"eur"}`), nil},
		{"keys differing in case", sfInputFix(`{"amount":1000,"Amount":5,"currency":"eur"}`), nil},
		{"over the size cap", sfInputFix(`{"amount":1000,"currency":"usd","note":"` + strings.Repeat("x", 64) + `"}`),
			[]reflection.Option{reflection.WithMaxCorrectedInput(32)}},
		{"refused by the input check", sfInputFix(`{"amount":1000,"currency":"usd"}`),
			[]reflection.Option{reflection.WithInputCheck(func(string, json.RawMessage) error { return errors.New("no") })}},
		{"refused by the tool-change filter", sfToolChange("refund_card"),
			[]reflection.Option{reflection.WithAllowedTools("charge_card")}},
		{"same value, escaped", sfInputFix(`{"amount":1000,"currency":"\u0065ur"}`), nil},
		{"same value, reordered and spaced", sfInputFix("{\n  \"currency\": \"eur\",\n  \"amount\": 1000\n}"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := newSfKeyTool(reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("charged"))
			d := reflection.NewDriver(append([]reflection.Option{
				reflection.WithEffects(sfOneEffect(reflection.EffectKeyed)),
				reflection.WithReflector(sfAlways(sfRecoverable(tt.c))),
				reflection.WithStrategy(sfRetry(0)),
			}, tt.opts...)...)
			rep, err := d.RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome, "reason %q", rep.Reason)
			keys := tool.seen()
			if assert.Len(t, keys, 2) {
				assert.Equal(t, keys[0], keys[1], "the retry ran under another key")
			}
		})
	}
}

// TestEffectGuardKeyedComparesWithTheCallThatFailed checks that a keyed
// tool's retry is compared with the call that just failed (after earlier
// corrections), not with the original call.
func TestEffectGuardKeyedComparesWithTheCallThatFailed(t *testing.T) {
	tool := reflectiontest.NewTool(
		reflectiontest.Error(fmt.Errorf("invalid currency, nothing charged: %w", reflection.ErrNoEffect)),
		reflectiontest.Fail("gateway timeout"),
		reflectiontest.Succeed("charged"),
	)
	d := reflection.NewDriver(
		reflection.WithEffects(sfOneEffect(reflection.EffectKeyed)),
		reflection.WithReflector(reflectiontest.NewReflector(
			sfRecoverable(sfInputFix(`{"amount":1000,"currency":"usd"}`)),
			sfRecoverable(sfInputFix(`{"currency":"usd","amount":1000}`)),
		)),
		reflection.WithStrategy(sfRetry(0)),
	)
	rep, err := d.RunWithReport(context.Background(), sfCall("charge_card", sfChargeInput), tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.OutcomeSucceeded, rep.Outcome, "reason %q", rep.Reason)
	assert.Len(t, tool.Calls(), 3)
}

// TestEffectGuardResultWithANoEffectError checks that the dispatch error
// decides: a failure result that comes with an error matching ErrNoEffect
// had no effect, and is retried.
func TestEffectGuardResultWithANoEffectError(t *testing.T) {
	calls := 0
	dispatch := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		calls++
		if calls == 1 {
			return reflection.ToolResult{Content: "rejected", IsError: true}, fmt.Errorf("validation failed before sending: %w", reflection.ErrNoEffect)
		}
		return reflection.ToolResult{Content: "sent"}, nil
	}
	d := reflection.NewDriver(
		reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent)),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(sfRetry(0)),
	)
	res, err := d.Run(context.Background(), sfCall("send_email", `{}`), dispatch)
	require.NoError(t, err)
	assert.Equal(t, "sent", res.Content)
	assert.Equal(t, 2, calls)
}
