package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The retry budget shared by calls (RetryBudget), through Driver.Run.

// sfTokenTool wraps a scripted tool and records the budget's tokens at every
// dispatch, that is after the wait that preceded it.
type sfTokenTool struct {
	budget *reflection.RetryBudget
	tool   *reflectiontest.Tool
	mu     sync.Mutex
	tokens []int
}

func newSfTokenTool(b *reflection.RetryBudget, outcomes ...reflectiontest.Outcome) *sfTokenTool {
	return &sfTokenTool{budget: b, tool: reflectiontest.NewTool(outcomes...)}
}

func (s *sfTokenTool) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	s.mu.Lock()
	s.tokens = append(s.tokens, s.budget.Tokens())
	s.mu.Unlock()
	return s.tool.Dispatch(ctx, call)
}

func (s *sfTokenTool) seen() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.tokens...)
}

// sfBudgetDriver is a Driver that retries every failure, charging b.
func sfBudgetDriver(b *reflection.RetryBudget, strategy reflection.RecoveryStrategy, opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append([]reflection.Option{
		reflection.WithRetryBudget(b),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(strategy),
	}, opts...)...)
}

// sfDrain spends n retries of b with calls whose retry fails and whose
// strategy then says Fail: each leaves 5 tokens taken.
func sfDrain(t *testing.T, b *reflection.RetryBudget, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		tool := reflectiontest.NewTool(reflectiontest.Fail("503"))
		d := sfBudgetDriver(b, reflectiontest.NewStrategy(reflection.Retry{}, reflection.Fail{Reason: "enough"}))
		_, err := d.Run(context.Background(), sfCall("drain", `{}`), tool.Dispatch)
		require.NoError(t, err)
		require.Len(t, tool.Calls(), 2)
	}
}

func TestRetryBudgetCapacity(t *testing.T) {
	require.Equal(t, 500, reflection.DefaultRetryBudget)
	tests := []struct {
		capacity, want int
	}{
		{0, reflection.DefaultRetryBudget},
		{-3, reflection.DefaultRetryBudget},
		{1, 1},
		{7, 7},
		{10_000, 10_000},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, reflection.NewRetryBudget(tt.capacity).Tokens(), "NewRetryBudget(%d)", tt.capacity)
	}
	var zero reflection.RetryBudget
	assert.Equal(t, 0, zero.Tokens(), "the zero RetryBudget")
}

// TestRetryBudgetCost checks what a Retry takes: 10 for a timeout (its chain
// matches context.DeadlineExceeded, or has a Timeout() bool that says so),
// 5 for anything else, taken before the wait, even a wait of zero.
func TestRetryBudgetCost(t *testing.T) {
	tests := []struct {
		name    string
		failure reflectiontest.Outcome
		opts    []reflection.Option
		cost    int
	}{
		{"plain error", reflectiontest.Error(errors.New("connection reset by peer")), nil, 5},
		{"failure result that reads like a timeout", reflectiontest.Fail("request timed out"), nil, 5},
		{"panic", reflectiontest.Panic("client crashed"), nil, 5},
		{"context.DeadlineExceeded", reflectiontest.Error(context.DeadlineExceeded), nil, 10},
		{"DeadlineExceeded in the chain", reflectiontest.Error(fmt.Errorf("query: %w", fmt.Errorf("dial: %w", context.DeadlineExceeded))), nil, 10},
		{"Timeout() true", reflectiontest.Error(sfTimeoutError{timeout: true}), nil, 10},
		{"Timeout() true in the chain", reflectiontest.Error(fmt.Errorf("fetch: %w", sfTimeoutError{timeout: true})), nil, 10},
		{"Timeout() false", reflectiontest.Error(sfTimeoutError{timeout: false}), nil, 5},
		{"joined with a timeout", reflectiontest.Error(errors.Join(errors.New("a"), sfTimeoutError{timeout: true})), nil, 10},
		{"cancelled is no timeout", reflectiontest.Error(fmt.Errorf("upstream: %w", context.Canceled)), nil, 5},
	}
	for _, tt := range tests {
		for _, delay := range []time.Duration{0, time.Second} {
			t.Run(fmt.Sprintf("%s/delay %v", tt.name, delay), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					b := reflection.NewRetryBudget(100)
					tool := newSfTokenTool(b, tt.failure, reflectiontest.Fail("503"))
					d := sfBudgetDriver(b, reflectiontest.NewStrategy(reflection.Retry{Delay: delay}, reflection.Fail{Reason: "enough"}), tt.opts...)
					_, err := d.Run(context.Background(), sfCall("fetch", `{}`), tool.dispatch)
					require.NoError(t, err)
					assert.Equal(t, []int{100, 100 - tt.cost}, tool.seen(), "tokens at each dispatch")
					assert.Equal(t, 100-tt.cost, b.Tokens(), "tokens after a call that failed after its retry")
				})
			})
		}
	}
}

// TestRetryBudgetCostOfAnAttemptTimeout checks that an attempt cut short by
// WithAttemptTimeout is a timeout for the budget.
func TestRetryBudgetCostOfAnAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := reflection.NewRetryBudget(100)
		calls := 0
		slowOnce := func(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
			calls++
			if calls == 1 {
				<-ctx.Done()
				return reflection.ToolResult{}, ctx.Err()
			}
			assert.Equal(t, 90, b.Tokens(), "tokens at the retry")
			return reflection.ToolResult{Content: "503", IsError: true}, nil
		}
		d := sfBudgetDriver(b, reflectiontest.NewStrategy(reflection.Retry{}, reflection.Fail{Reason: "enough"}), reflection.WithAttemptTimeout(time.Second))
		_, err := d.Run(context.Background(), sfCall("slow", `{}`), slowOnce)
		require.NoError(t, err)
		assert.Equal(t, 2, calls)
		assert.Equal(t, 90, b.Tokens())
	})
}

// TestRetryBudgetRefusal checks a retry the budget cannot pay for: the call
// ends softly with the latest failure text, OutcomeFailed,
// ReasonBudgetExhausted, and no wait (virtual time does not move).
func TestRetryBudgetRefusal(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		failures []reflectiontest.Outcome
		calls    int // dispatches before the refusal
		waited   time.Duration
		last     string
	}{
		{"fewer tokens than 5", 4, []reflectiontest.Outcome{reflectiontest.Fail("503 Service Unavailable")}, 1, 0, "503 Service Unavailable"},
		{"fewer tokens than 10 for a timeout", 9, []reflectiontest.Outcome{reflectiontest.Error(sfTimeoutError{timeout: true})}, 1, 0, sfTimeoutError{}.Error()},
		{"spent by two retries", 12, []reflectiontest.Outcome{reflectiontest.Fail("f1"), reflectiontest.Fail("f2"), reflectiontest.Fail("f3")}, 3, 2 * time.Second, "f3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := reflection.NewRetryBudget(tt.capacity)
				tool := reflectiontest.NewTool(tt.failures...)
				var waits sfWaits
				d := sfBudgetDriver(b, sfRetry(time.Second), reflection.WithObserver(waits.observer()))
				call := sfCall("fetch", `{}`)
				start := time.Now()
				rep, err := d.RunWithReport(context.Background(), call, tool.Dispatch)
				require.NoError(t, err, "a refused retry is a soft end")
				assert.True(t, rep.Result.IsError)
				assert.True(t, strings.HasPrefix(rep.Result.Content, tt.last+"\n\n"), "the failure text first: %q", rep.Result.Content)
				assert.True(t, sfIsBudgetRefusal(rep.Result.Content), "then the budget's refusal: %q", rep.Result.Content)
				assert.Equal(t, reflection.OutcomeFailed, rep.Outcome)
				assert.Equal(t, reflection.ReasonBudgetExhausted, rep.Reason)
				assert.Len(t, tool.Calls(), tt.calls)
				assert.Equal(t, tt.waited, time.Since(start), "virtual time waited")
				assert.Len(t, waits.all(), tt.calls-1, "waits begun")
				assert.Equal(t, tt.capacity-5*(tt.calls-1), b.Tokens(), "a refused retry took tokens")
			})
		})
	}
}

// TestRetryBudgetPlainFailureWithNineTokens is the other side of the
// timeout refusal: nine tokens pay for a plain retry.
func TestRetryBudgetPlainFailureWithNineTokens(t *testing.T) {
	b := reflection.NewRetryBudget(9)
	tool := reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Succeed("ok"))
	res, err := sfBudgetDriver(b, sfRetry(0)).Run(context.Background(), sfCall("fetch", `{}`), tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Content)
	assert.Equal(t, 9, b.Tokens())
}

// TestRetryBudgetFirstDispatchSuccessAddsOne checks the refill: one token per
// call that succeeds on its first dispatch, never above capacity.
func TestRetryBudgetFirstDispatchSuccessAddsOne(t *testing.T) {
	b := reflection.NewRetryBudget(10)
	sfDrain(t, b, 1)
	require.Equal(t, 5, b.Tokens())
	d := sfBudgetDriver(b, sfRetry(0))
	ok := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	for want := 6; want <= 10; want++ {
		sfRunN(t, d, 1, sfCall("fetch", `{}`), ok.Dispatch)
		assert.Equal(t, want, b.Tokens())
	}
	sfRunN(t, d, 5, sfCall("fetch", `{}`), ok.Dispatch)
	assert.Equal(t, 10, b.Tokens(), "above capacity")
}

// TestRetryBudgetGivesBackTheLastRetry checks that a call that succeeds on a
// retry gives back what that last retry took, not the earlier ones, and adds
// nothing more.
func TestRetryBudgetGivesBackTheLastRetry(t *testing.T) {
	timeout := reflectiontest.Error(fmt.Errorf("read: %w", context.DeadlineExceeded))
	plain := reflectiontest.Fail("503")
	tests := []struct {
		name     string
		failures []reflectiontest.Outcome
		during   []int
		after    int
	}{
		{"plain", []reflectiontest.Outcome{plain}, []int{100, 95}, 100},
		{"timeout", []reflectiontest.Outcome{timeout}, []int{100, 90}, 100},
		{"timeout then plain", []reflectiontest.Outcome{timeout, plain}, []int{100, 90, 85}, 90},
		{"plain then timeout", []reflectiontest.Outcome{plain, timeout}, []int{100, 95, 85}, 95},
		{"three plain", []reflectiontest.Outcome{plain, plain, plain}, []int{100, 95, 90, 85}, 90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := reflection.NewRetryBudget(100)
			tool := newSfTokenTool(b, append(tt.failures, reflectiontest.Succeed("ok"))...)
			res, err := sfBudgetDriver(b, sfRetry(0)).Run(context.Background(), sfCall("fetch", `{}`), tool.dispatch)
			require.NoError(t, err)
			require.Equal(t, "ok", res.Content)
			assert.Equal(t, tt.during, tool.seen(), "tokens at each dispatch")
			assert.Equal(t, tt.after, b.Tokens(), "tokens after the success")
		})
	}
}

// TestRetryBudgetApprovalNotCharged checks that a retry a human approved
// takes no tokens, with or without a rate-limit hint's wait, and gives none
// back.
func TestRetryBudgetApprovalNotCharged(t *testing.T) {
	tests := []struct {
		name string
		hint time.Duration
		opts []reflection.Option
	}{
		{"strategy's AskUser", 0, nil},
		{"strategy's AskUser with a hint", 2 * time.Second, nil},
		{"effect guard's AskUser", 0, []reflection.Option{reflection.WithEffects(sfOneEffect(reflection.EffectNonIdempotent))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := reflection.NewRetryBudget(100)
				sfDrain(t, b, 1)
				require.Equal(t, 95, b.Tokens())

				a := sfRecoverable(nil)
				a.RetryAfter = tt.hint
				var strategy reflection.RecoveryStrategy = reflectiontest.NewStrategy(reflection.AskUser{Prompt: "retry?"})
				if tt.opts != nil {
					strategy = sfRetry(0)
				}
				asker := &sfAsker{ans: reflection.Answer{Approve: true}}
				d := reflection.NewDriver(append([]reflection.Option{
					reflection.WithRetryBudget(b),
					reflection.WithReflector(sfAlways(a)),
					reflection.WithStrategy(strategy),
					reflection.WithAsker(asker),
				}, tt.opts...)...)
				tool := newSfTokenTool(b, reflectiontest.Fail("gateway timeout"), reflectiontest.Succeed("ok"))
				start := time.Now()
				res, err := d.Run(context.Background(), sfCall("charge", `{}`), tool.dispatch)
				require.NoError(t, err)
				require.Equal(t, "ok", res.Content)
				assert.Len(t, asker.asked(), 1, "questions")
				assert.Equal(t, tt.hint, time.Since(start), "waited")
				assert.Equal(t, []int{95, 95}, tool.seen(), "tokens at each dispatch")
				assert.Equal(t, 95, b.Tokens(), "tokens after the approved retry succeeded")
			})
		})
	}
}

// TestRetryBudgetOnlyRetriesPay checks that calls that end without a Retry
// take nothing, and that a full budget stays full on the success path.
func TestRetryBudgetOnlyRetriesPay(t *testing.T) {
	for _, action := range []reflection.RecoveryAction{reflection.Fail{Reason: "no"}, reflection.Skip{Reason: "no"}, reflection.AskUser{Prompt: "?"}} {
		t.Run(action.String(), func(t *testing.T) {
			b := reflection.NewRetryBudget(50)
			sfDrain(t, b, 1)
			tool := reflectiontest.NewTool(reflectiontest.Fail("503"))
			_, err := sfBudgetDriver(b, reflectiontest.NewStrategy(action)).Run(context.Background(), sfCall("fetch", `{}`), tool.Dispatch)
			require.NoError(t, err)
			assert.Equal(t, 45, b.Tokens())
		})
	}
	t.Run("full budget, many successes", func(t *testing.T) {
		b := reflection.NewRetryBudget(50)
		d := sfBudgetDriver(b, sfRetry(0))
		sfRunN(t, d, 1000, sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Succeed("ok")).Dispatch)
		assert.Equal(t, 50, b.Tokens())
	})
}

// TestRetryBudgetExhaustionFirst checks that the ceiling decides before the
// budget: the sixth failure is the exhaustion error, whatever the tokens.
func TestRetryBudgetExhaustionFirst(t *testing.T) {
	b := reflection.NewRetryBudget(25)
	tool := reflectiontest.NewTool(reflectiontest.Fail("503"))
	rep, err := sfBudgetDriver(b, sfRetry(0)).RunWithReport(context.Background(), sfCall("fetch", `{}`), tool.Dispatch)
	require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
	assert.Equal(t, reflection.ReasonCeiling, rep.Reason)
	assert.Len(t, tool.Calls(), 6)
	assert.Equal(t, 0, b.Tokens(), "five retries of five tokens")
}

// TestRetryBudgetSharedByDrivers checks that Drivers sharing a budget draw on
// the same tokens.
func TestRetryBudgetSharedByDrivers(t *testing.T) {
	b := reflection.NewRetryBudget(12)
	retryOnce := reflection.StrategyFunc(func(_ context.Context, _ reflection.FailureAnalysis, attempt, _ int) reflection.RecoveryAction {
		if attempt == 0 {
			return reflection.Retry{}
		}
		return reflection.Fail{Reason: "enough"}
	})
	one := sfBudgetDriver(b, retryOnce)
	two := sfBudgetDriver(b, retryOnce, reflection.WithRecoveryNotes())
	fail := reflectiontest.NewTool(reflectiontest.Fail("503"))
	sfRunN(t, one, 1, sfCall("fetch", `{}`), fail.Dispatch)
	sfRunN(t, two, 1, sfCall("fetch", `{}`), fail.Dispatch)
	assert.Equal(t, 2, b.Tokens())
	rep, err := one.RunWithReport(context.Background(), sfCall("fetch", `{}`), fail.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, reflection.ReasonBudgetExhausted, rep.Reason)
}

// TestRetryBudgetLastRetryApproved checks that when the retry that succeeded
// was a human's approval, the call gives back what that retry took: nothing,
// not the earlier charged retry's tokens. The approval retries at once, or
// after a rate-limit hint's wait.
func TestRetryBudgetLastRetryApproved(t *testing.T) {
	for _, hint := range []time.Duration{0, 2 * time.Second} {
		t.Run(fmt.Sprintf("hint %v", hint), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := reflection.NewRetryBudget(100)
				asker := &sfAsker{ans: reflection.Answer{Approve: true}}
				tool := newSfTokenTool(b, reflectiontest.Fail("503"), reflectiontest.Fail("503"), reflectiontest.Succeed("ok"))
				a := sfRecoverable(nil)
				a.RetryAfter = hint
				d := reflection.NewDriver(
					reflection.WithRetryBudget(b),
					reflection.WithReflector(sfAlways(a)),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.AskUser{Prompt: "again?"})),
					reflection.WithAsker(asker),
				)
				res, err := d.Run(context.Background(), sfCall("fetch", `{}`), tool.dispatch)
				require.NoError(t, err)
				require.Equal(t, "ok", res.Content)
				require.Len(t, asker.asked(), 1)
				assert.Equal(t, []int{100, 95, 95}, tool.seen(), "tokens at each dispatch")
				assert.Equal(t, 95, b.Tokens(), "the last retry (approved) took nothing, so nothing comes back")
			})
		})
	}
}

// TestRetryBudgetNotChargedForDecisionsThatEndTheCall checks that a Retry the
// Driver's own rules end at the decision (a hint over the cap, a correction
// loop) reaches no wait, so takes no tokens.
func TestRetryBudgetNotChargedForDecisionsThatEndTheCall(t *testing.T) {
	t.Run("hint over the cap", func(t *testing.T) {
		b := reflection.NewRetryBudget(100)
		a := sfRecoverable(nil)
		a.RetryAfter = 5 * time.Minute
		d := reflection.NewDriver(reflection.WithRetryBudget(b), reflection.WithReflector(sfAlways(a)), reflection.WithStrategy(sfRetry(0)))
		rep, err := d.RunWithReport(context.Background(), sfCall("fetch", `{}`), reflectiontest.NewTool(reflectiontest.Fail("429")).Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ReasonHintOverCap, rep.Reason)
		assert.Equal(t, 100, b.Tokens())
	})
	t.Run("correction loop", func(t *testing.T) {
		b := reflection.NewRetryBudget(100)
		d := reflection.NewDriver(
			reflection.WithRetryBudget(b),
			reflection.WithReflector(reflectiontest.NewReflector(sfRecoverable(sfToolChange("b")), sfRecoverable(sfToolChange("a")))),
			reflection.WithStrategy(sfRetry(0)),
			reflection.WithLoopGuard(),
		)
		rep, err := d.RunWithReport(context.Background(), sfCall("a", `{}`), reflectiontest.NewTool(reflectiontest.Fail("503")).Dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ReasonCorrectionLoop, rep.Reason)
		assert.Equal(t, 95, b.Tokens(), "one retry ran (a → b); the looping one reached no wait")
	})
}
