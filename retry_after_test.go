package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// Rate-limit hints: ParseRetryAfter, and the Driver's
// wait of max(Delay, hint) under the WithMaxRetryAfter cap. The Driver tests
// run in synctest bubbles and measure the fake time Run waited.

// rateLimitedError is a service's refusal that carries a Retry-After hint.
type rateLimitedError struct{ after time.Duration }

func (e *rateLimitedError) Error() string             { return "429 Too Many Requests" }
func (e *rateLimitedError) RetryAfter() time.Duration { return e.after }

// hintByAsError has no RetryAfter method, but its As method hands out a
// *rateLimitedError to any target that can hold one.
type hintByAsError struct{ after time.Duration }

func (e hintByAsError) Error() string { return "api error 429" }
func (e hintByAsError) As(target any) bool {
	v := reflect.ValueOf(target).Elem()
	hint := reflect.ValueOf(&rateLimitedError{after: e.after})
	if !hint.Type().AssignableTo(v.Type()) {
		return false
	}
	v.Set(hint)
	return true
}

// panickyHintError's RetryAfter method panics: it gives no hint.
type panickyHintError struct{}

func (panickyHintError) Error() string             { return "broken 429" }
func (panickyHintError) RetryAfter() time.Duration { panic("no header") }

const hintFailure = "rate limited"

// hintReflector calls every failure recoverable, with the analysis hint
// hints[attempt] (0 past the end).
func hintReflector(hints ...time.Duration) reflection.Reflector {
	return reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		a := reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow}
		if f.Attempt < len(hints) {
			a.RetryAfter = hints[f.Attempt]
		}
		return a, nil
	})
}

// hintFailing is the failing first call of these tests: dispatch returns
// err, or a result with IsError when err is nil.
func hintFailing(err error) reflectiontest.Outcome {
	if err != nil {
		return reflectiontest.Error(err)
	}
	return reflectiontest.Fail(hintFailure)
}

func TestRetryAfterHint(t *testing.T) {
	tests := []struct {
		name         string
		opts         []reflection.Option
		analysisHint time.Duration
		err          error // dispatch's error; nil: a result with IsError
		delay        time.Duration
		wantWait     time.Duration // the wait actually taken
		wantHint     time.Duration // the hint behind it
		wantRefusal  string        // when set: the retry became Fail with this reason
	}{
		{name: "no hint: the strategy's delay", delay: time.Second, wantWait: time.Second},
		{name: "no hint, no delay", wantWait: 0},
		{name: "a hint longer than the delay", analysisHint: 30 * time.Second, delay: time.Second, wantWait: 30 * time.Second, wantHint: 30 * time.Second},
		{name: "a delay longer than the hint", analysisHint: 30 * time.Second, delay: 40 * time.Second, wantWait: 40 * time.Second, wantHint: 30 * time.Second},
		{name: "a hint below the default cap", analysisHint: 59 * time.Second, wantWait: 59 * time.Second, wantHint: 59 * time.Second},
		{name: "a hint at the default cap", analysisHint: time.Minute, wantWait: time.Minute, wantHint: time.Minute},
		{
			name:         "a hint above the default cap",
			analysisHint: time.Minute + time.Second,
			wantRefusal:  "the service asks to wait 1m1s before a retry, more than the cap of 1m0s",
		},
		{
			name:         "a hint just a nanosecond above the cap",
			analysisHint: time.Minute + 1,
			wantRefusal:  "the service asks to wait 1m0.000000001s before a retry, more than the cap of 1m0s",
		},
		{
			name:         "a delay above the cap is the strategy's own: no refusal",
			analysisHint: time.Second, delay: 5 * time.Minute,
			wantWait: 5 * time.Minute, wantHint: time.Second,
		},
		{name: "a custom cap: at it", opts: []reflection.Option{reflection.WithMaxRetryAfter(10 * time.Second)}, analysisHint: 10 * time.Second, wantWait: 10 * time.Second, wantHint: 10 * time.Second},
		{
			name: "a custom cap: above it", opts: []reflection.Option{reflection.WithMaxRetryAfter(10 * time.Second)},
			analysisHint: 11 * time.Second,
			wantRefusal:  "the service asks to wait 11s before a retry, more than the cap of 10s",
		},
		{name: "a cap above the default", opts: []reflection.Option{reflection.WithMaxRetryAfter(5 * time.Minute)}, analysisHint: 2 * time.Minute, wantWait: 2 * time.Minute, wantHint: 2 * time.Minute},
		{name: "a zero cap means the default: at it", opts: []reflection.Option{reflection.WithMaxRetryAfter(0)}, analysisHint: time.Minute, wantWait: time.Minute, wantHint: time.Minute},
		{
			name: "a zero cap means the default: above it", opts: []reflection.Option{reflection.WithMaxRetryAfter(0)},
			analysisHint: 61 * time.Second,
			wantRefusal:  "the service asks to wait 1m1s before a retry, more than the cap of 1m0s",
		},
		{
			name: "a negative cap means the default", opts: []reflection.Option{reflection.WithMaxRetryAfter(-time.Hour)},
			analysisHint: 61 * time.Second,
			wantRefusal:  "the service asks to wait 1m1s before a retry, more than the cap of 1m0s",
		},
		{name: "a negative analysis hint is none", analysisHint: -time.Hour, delay: time.Second, wantWait: time.Second},
		{name: "the error's own hint", err: &rateLimitedError{after: 20 * time.Second}, delay: time.Second, wantWait: 20 * time.Second, wantHint: 20 * time.Second},
		{
			name: "a hint wrapped with %w", err: fmt.Errorf("call weather api: %w", &rateLimitedError{after: 20 * time.Second}),
			wantWait: 20 * time.Second, wantHint: 20 * time.Second,
		},
		{
			name: "a hint twice wrapped", err: fmt.Errorf("tool: %w", fmt.Errorf("http: %w", &rateLimitedError{after: 7 * time.Second})),
			wantWait: 7 * time.Second, wantHint: 7 * time.Second,
		},
		{
			name: "a hint in errors.Join", err: errors.Join(errors.New("first try failed"), &rateLimitedError{after: 20 * time.Second}),
			wantWait: 20 * time.Second, wantHint: 20 * time.Second,
		},
		{
			name:     "errors.Join: the first hint errors.As finds counts",
			err:      errors.Join(&rateLimitedError{after: 5 * time.Second}, &rateLimitedError{after: 50 * time.Second}),
			wantWait: 5 * time.Second, wantHint: 5 * time.Second,
		},
		{
			name: "a hint inside a join inside a wrap", err: fmt.Errorf("batch: %w", errors.Join(errors.New("a"), fmt.Errorf("b: %w", &rateLimitedError{after: 3 * time.Second}))),
			wantWait: 3 * time.Second, wantHint: 3 * time.Second,
		},
		{name: "a hint found by an As method", err: fmt.Errorf("tool: %w", hintByAsError{after: 9 * time.Second}), wantWait: 9 * time.Second, wantHint: 9 * time.Second},
		{name: "a RetryAfter method that panics gives no hint", err: panickyHintError{}, delay: time.Second, wantWait: time.Second},
		{name: "a negative error hint is none", err: &rateLimitedError{after: -time.Minute}, delay: time.Second, wantWait: time.Second},
		{name: "an error without a hint", err: errors.New("connection reset"), delay: time.Second, wantWait: time.Second},
		{
			name: "analysis and error: the error's is larger", analysisHint: 5 * time.Second, err: &rateLimitedError{after: 20 * time.Second},
			wantWait: 20 * time.Second, wantHint: 20 * time.Second,
		},
		{
			name: "analysis and error: the analysis' is larger", analysisHint: 25 * time.Second, err: &rateLimitedError{after: 20 * time.Second},
			wantWait: 25 * time.Second, wantHint: 25 * time.Second,
		},
		{
			name: "the error's hint above the cap", err: fmt.Errorf("weather: %w", &rateLimitedError{after: time.Hour}),
			wantRefusal: "the service asks to wait 1h0m0s before a retry, more than the cap of 1m0s",
		},
		{
			name: "the error's hint above the cap while the analysis' is below", analysisHint: time.Second, err: &rateLimitedError{after: 2 * time.Minute},
			wantRefusal: "the service asks to wait 2m0s before a retry, more than the cap of 1m0s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(hintFailing(tt.err), reflectiontest.Succeed("sunny"))
				var waits []time.Duration
				opts := append([]reflection.Option{
					reflection.WithReflector(hintReflector(tt.analysisHint)),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: tt.delay})),
					reflection.WithObserver(reflection.Observer{Waiting: func(_ context.Context, _ int, d time.Duration) {
						waits = append(waits, d)
					}}),
				}, tt.opts...)
				start := time.Now()

				rep, err := reflection.NewDriver(opts...).RunWithReport(context.Background(), askCall, tool.Dispatch)

				require.NoError(t, err)
				waited := time.Since(start)
				first := rep.Attempts[0]
				if tt.wantRefusal != "" {
					reflectiontest.AssertOutcome(t, rep, reflection.OutcomeFailed)
					assert.Equal(t, reflection.Fail{Reason: tt.wantRefusal}, first.Action)
					assert.Equal(t, first.Failure, rep.Result.Content, "the model sees the failure text")
					assert.True(t, rep.Result.IsError)
					assert.Len(t, tool.Calls(), 1, "no call is wasted on a service that said no")
					assert.Nil(t, first.Wait)
					assert.Empty(t, waits)
					assert.Zero(t, waited)
					return
				}
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded)
				assert.Len(t, tool.Calls(), 2)
				assert.Equal(t, tt.wantWait, waited, "fake time waited")
				assert.Equal(t, &reflection.Wait{Delay: tt.wantWait, Hint: tt.wantHint}, first.Wait, "the report's wait")
				assert.Equal(t, []time.Duration{tt.wantWait}, waits, "the Waiting hook")
				assert.Equal(t, reflection.Retry{Delay: tt.delay}, first.Action, "the strategy's own action")
			})
		})
	}
}

// TestRetryAfterWaitStep: the machine asks its runtime for the wait actually
// to be taken, and says which hint set it.
func TestRetryAfterWaitStep(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		analysis time.Duration
		delay    time.Duration
		want     reflection.Step
		wantHint time.Duration
	}{
		{"the delay", nil, 0, 2 * time.Second, reflection.WaitStep{Attempt: 0, Delay: 2 * time.Second}, 0},
		{"the analysis' hint", nil, 30 * time.Second, 2 * time.Second, reflection.WaitStep{Attempt: 0, Delay: 30 * time.Second}, 30 * time.Second},
		{"the error's hint", &rateLimitedError{after: 45 * time.Second}, 0, 2 * time.Second, reflection.WaitStep{Attempt: 0, Delay: 45 * time.Second}, 45 * time.Second},
		{"a negative delay", nil, 0, -time.Second, reflection.WaitStep{Attempt: 0, Delay: 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := reflection.NewDriver(reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: tt.delay})))
			r := d.NewRecovery(context.Background(), askCall)
			require.IsType(t, reflection.DispatchStep{}, r.Next())
			if tt.err != nil {
				r.Dispatched(reflection.ToolResult{}, tt.err)
			} else {
				r.Dispatched(reflection.ToolResult{Content: hintFailure, IsError: true}, nil)
			}
			require.IsType(t, reflection.AnalyzeStep{}, r.Next())
			r.Analyzed(reflection.FailureAnalysis{IsRecoverable: true, RetryAfter: tt.analysis}, nil)
			assert.Equal(t, tt.want, r.Next())
			assert.Equal(t, tt.wantHint, r.Hint())
		})
	}
}

// TestRetryAfterDeadline: the deadline refusal of Run's rules applies to the
// wait actually taken, hint included, and comes at once.
func TestRetryAfterDeadline(t *testing.T) {
	tests := []struct {
		name     string
		deadline time.Duration
		delay    time.Duration
		hint     time.Duration
		wantWait time.Duration // when not refused
		refused  time.Duration // the refused wait, or 0
	}{
		{name: "a hint past the deadline", deadline: 20 * time.Second, delay: time.Second, hint: 30 * time.Second, refused: 30 * time.Second},
		{name: "a delay past the deadline, a short hint", deadline: 20 * time.Second, delay: 30 * time.Second, hint: time.Second, refused: 30 * time.Second},
		{name: "a hint that ends at the deadline", deadline: 20 * time.Second, hint: 20 * time.Second, refused: 20 * time.Second},
		{name: "a hint within the deadline", deadline: 50 * time.Second, delay: time.Second, hint: 30 * time.Second, wantWait: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
				defer cancel()
				tool := reflectiontest.NewTool(reflectiontest.Error(&rateLimitedError{after: tt.hint}), reflectiontest.Succeed("sunny"))
				d := reflection.NewDriver(
					reflection.WithReflector(hintReflector()),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: tt.delay})),
				)
				start := time.Now()

				rep, err := d.RunWithReport(ctx, askCall, tool.Dispatch)

				if tt.refused == 0 {
					require.NoError(t, err)
					reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded)
					assert.Equal(t, tt.wantWait, time.Since(start))
					return
				}
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.ErrorContains(t, err, fmt.Sprintf("retry in %v would end past the context deadline", tt.refused))
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeStopped)
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "429 Too Many Requests", IsError: true}, rep.Result)
				assert.Zero(t, time.Since(start), "refused at once, not after waiting")
				assert.Len(t, tool.Calls(), 1)
				require.Len(t, rep.Attempts, 1)
				assert.Equal(t, &reflection.Wait{Delay: tt.refused, Hint: tt.hint, Stopped: true}, rep.Attempts[0].Wait,
					"the report marks the wait that was never taken")
			})
		})
	}
}

// TestRetryAfterExhaustionFirst: a Retry after the sixth call is exhaustion,
// whatever the hint; a hint over the cap earlier is a Fail at once.
func TestRetryAfterExhaustionFirst(t *testing.T) {
	tests := []struct {
		name      string
		hints     []time.Duration // the analysis hint per attempt
		wantCalls int
		wantErr   error
		want      reflection.Outcome
	}{
		{
			name:      "a hint over the cap on the sixth failure",
			hints:     []time.Duration{0, 0, 0, 0, 0, time.Hour},
			wantCalls: 6,
			wantErr:   reflection.ErrToolRecoveryExhausted,
			want:      reflection.OutcomeExhausted,
		},
		{
			name:      "a hint within the cap on the sixth failure",
			hints:     []time.Duration{0, 0, 0, 0, 0, time.Second},
			wantCalls: 6,
			wantErr:   reflection.ErrToolRecoveryExhausted,
			want:      reflection.OutcomeExhausted,
		},
		{
			name:      "a hint over the cap on the third failure",
			hints:     []time.Duration{0, 0, time.Hour},
			wantCalls: 3,
			want:      reflection.OutcomeFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(reflectiontest.Fail(hintFailure))
				d := reflection.NewDriver(
					reflection.WithReflector(hintReflector(tt.hints...)),
					reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
						return reflection.Retry{}
					})),
				)
				start := time.Now()

				rep, err := d.RunWithReport(context.Background(), askCall, tool.Dispatch)

				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				reflectiontest.AssertOutcome(t, rep, tt.want)
				assert.Len(t, tool.Calls(), tt.wantCalls)
				assert.Zero(t, time.Since(start), "no wait for a hint that cannot lead to a call")
				assert.Nil(t, rep.Attempts[len(rep.Attempts)-1].Wait)
			})
		})
	}
}

// TestRetryAfterWithAsk: an approved retry waits for the hint; a hint over
// the cap is a Fail before anyone is asked; an AskUser that ends the call
// (no Asker, or the sixth failure) ignores the hint.
func TestRetryAfterWithAsk(t *testing.T) {
	const needed = hintFailure + "\n\nA human decision is needed before this call can be retried: " + askPrompt
	tests := []struct {
		name      string
		hint      time.Duration
		noAsker   bool
		answer    reflection.Answer
		deadline  time.Duration
		wantWait  time.Duration
		wantAsked int
		want      reflection.Outcome
		wantText  string
		wantErr   error
	}{
		{name: "approved: the retry waits for the hint", hint: 30 * time.Second, answer: reflection.Answer{Approve: true},
			wantWait: 30 * time.Second, wantAsked: 1, want: reflection.OutcomeSucceeded, wantText: "sunny"},
		{name: "approved without a hint: at once", answer: reflection.Answer{Approve: true},
			wantAsked: 1, want: reflection.OutcomeSucceeded, wantText: "sunny"},
		{name: "declined: no wait", hint: 30 * time.Second, answer: reflection.Answer{Reply: "later"},
			wantAsked: 1, want: reflection.OutcomeAskedUser, wantText: needed + "\n\nA human declined to retry this call.\n\nlater"},
		{name: "a hint over the cap: Fail, nobody asked", hint: 2 * time.Minute, answer: reflection.Answer{Approve: true},
			want: reflection.OutcomeFailed, wantText: hintFailure},
		{name: "no asker: the hint does not matter", hint: 2 * time.Minute, noAsker: true,
			want: reflection.OutcomeAskedUser, wantText: needed},
		{name: "approved, but the hint passes the deadline", hint: 30 * time.Second, deadline: 10 * time.Second, answer: reflection.Answer{Approve: true},
			wantAsked: 1, want: reflection.OutcomeStopped, wantText: hintFailure, wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				tool := reflectiontest.NewTool(reflectiontest.Fail(hintFailure), reflectiontest.Succeed("sunny"))
				asker := newAskerScript(askerReply{ans: tt.answer})
				opts := []reflection.Option{
					reflection.WithReflector(hintReflector(tt.hint)),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: askPrompt})),
				}
				if !tt.noAsker {
					opts = append(opts, reflection.WithAsker(asker))
				}
				start := time.Now()

				rep, err := reflection.NewDriver(opts...).RunWithReport(ctx, askCall, tool.Dispatch)

				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				reflectiontest.AssertOutcome(t, rep, tt.want)
				assert.Equal(t, tt.wantText, rep.Result.Content)
				assert.Len(t, asker.Questions(), tt.wantAsked)
				assert.Equal(t, tt.wantWait, time.Since(start), "fake time waited")
				if tt.wantWait > 0 {
					assert.Equal(t, &reflection.Wait{Delay: tt.wantWait, Hint: tt.hint}, rep.Attempts[0].Wait)
					assert.Equal(t, &reflection.Ask{Prompt: askPrompt, Answer: &tt.answer}, rep.Attempts[0].Ask)
				}
			})
		})
	}
}

// TestRetryAfterIgnoredByEnds: Skip and Fail end the call whatever the hint.
func TestRetryAfterIgnoredByEnds(t *testing.T) {
	tests := []struct {
		name   string
		action reflection.RecoveryAction
		want   reflection.Outcome
	}{
		{"skip", reflection.Skip{Reason: "not needed"}, reflection.OutcomeSkipped},
		{"fail", reflection.Fail{Reason: "give up"}, reflection.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(reflectiontest.Error(&rateLimitedError{after: time.Hour}))
				d := reflection.NewDriver(
					reflection.WithReflector(hintReflector(time.Hour)),
					reflection.WithStrategy(reflectiontest.NewStrategy(tt.action)),
				)
				rep, err := d.RunWithReport(context.Background(), askCall, tool.Dispatch)
				require.NoError(t, err)
				reflectiontest.AssertOutcome(t, rep, tt.want)
				assert.Equal(t, tt.action, rep.Attempts[0].Action, "the strategy's own action, not the cap's Fail")
			})
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	// A Thursday, so the asctime form shows its space-padded day.
	now := time.Date(2026, time.March, 5, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"delta-seconds", "120", 2 * time.Minute, true},
		{"zero seconds", "0", 0, true},
		{"leading zeros", "007", 7 * time.Second, true},
		{"spaces and tabs around", " \t30\t ", 30 * time.Second, true},
		{"the largest whole seconds that fit", "9223372036", 9223372036 * time.Second, true},
		{"one second more saturates", "9223372037", math.MaxInt64, true},
		{"far too many digits saturate", "99999999999999999999999999999999", math.MaxInt64, true},
		{"negative", "-5", 0, false},
		{"a plus sign", "+5", 0, false},
		{"a fraction", "1.5", 0, false},
		{"a unit", "5s", 0, false},
		{"a space inside", "1 0", 0, false},
		{"non-ASCII digits", "٣", 0, false},
		{"empty", "", 0, false},
		{"only spaces", "  \t ", 0, false},
		{"a line break around", "30\n", 0, false},

		{"IMF-fixdate", "Thu, 05 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"IMF-fixdate, next day", "Fri, 06 Mar 2026 12:00:00 GMT", 24 * time.Hour, true},
		{"IMF-fixdate with spaces around", "  Thu, 05 Mar 2026 12:01:00 GMT ", time.Minute, true},
		{"RFC 850", "Thursday, 05-Mar-26 12:01:00 GMT", time.Minute, true},
		{"asctime, space-padded day", "Thu Mar  5 12:00:45 2026", 45 * time.Second, true},
		{"asctime, two-digit day", "Sun Mar 15 12:00:00 2026", 10 * 24 * time.Hour, true},
		{"now exactly", "Thu, 05 Mar 2026 12:00:00 GMT", 0, true},
		{"IMF-fixdate in the past", "Sun, 06 Nov 1994 08:49:37 GMT", 0, true},
		{"RFC 850 in the past", "Sunday, 06-Nov-94 08:49:37 GMT", 0, true},
		{"asctime in the past", "Sun Nov  6 08:49:37 1994", 0, true},
		{"a second ago", "Thu, 05 Mar 2026 11:59:59 GMT", 0, true},

		{"RFC 850, year 70 is 2070", "Tuesday, 01-Jan-70 00:00:00 GMT", time.Date(2070, 1, 1, 0, 0, 0, 0, time.UTC).Sub(now), true},
		{"RFC 850, year 80 is 1980", "Tuesday, 01-Jan-80 00:00:00 GMT", 0, true},
		{"RFC 850, year 76 before now+50y is 2076", "Wednesday, 01-Jan-76 00:00:00 GMT", time.Date(2076, 1, 1, 0, 0, 0, 0, time.UTC).Sub(now), true},
		{"RFC 850, year 76 after now+50y is 1976", "Wednesday, 01-Jul-76 00:00:00 GMT", 0, true},
		{"RFC 850, year 26 is 2026", "Friday, 06-Mar-26 12:00:00 GMT", 24 * time.Hour, true},

		{"a zone other than GMT", "Thu, 05 Mar 2026 12:00:30 UTC", 0, false},
		{"a numeric zone", "Thu, 05 Mar 2026 12:00:30 +0000", 0, false},
		{"RFC 3339", "2026-03-05T12:00:30Z", 0, false},
		{"no seconds", "Thu, 05 Mar 2026 12:00 GMT", 0, false},
		{"a day out of range", "Thu, 32 Mar 2026 12:00:30 GMT", 0, false},
		{"an unpadded day in IMF-fixdate", "Thu, 5 Mar 2026 12:00:30 GMT", 0, false},
		{"lower-case gmt", "Thu, 05 Mar 2026 12:00:30 gmt", 0, false},
		{"garbage", "soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := reflection.ParseRetryAfter(tt.value, now)
			assert.Equal(t, tt.wantOK, ok, "ok")
			assert.Equal(t, tt.want, got, "duration")
		})
	}
}

// TestParseRetryAfterZones: a date is measured from now whatever now's
// location.
func TestParseRetryAfterZones(t *testing.T) {
	lisbonSummer := time.FixedZone("WEST", 3600)
	tests := []struct {
		name string
		now  time.Time
	}{
		{"UTC", time.Date(2026, time.March, 5, 12, 0, 0, 0, time.UTC)},
		{"an hour east", time.Date(2026, time.March, 5, 13, 0, 0, 0, lisbonSummer)},
		{"local", time.Date(2026, time.March, 5, 12, 0, 0, 0, time.UTC).Local()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := reflection.ParseRetryAfter("Thu, 05 Mar 2026 12:00:30 GMT", tt.now)
			require.True(t, ok)
			assert.Equal(t, 30*time.Second, got)
		})
	}
}

// FuzzParseRetryAfter: any header value gives a duration that is never
// negative, 0 when it is refused; every run of digits is accepted; a date is
// accepted only when net/http reads it too, and the IMF-fixdate and asctime
// forms give what net/http's reading gives.
func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{
		"120", "0", " 7\t", "99999999999999999999", "-1", "1.5", "",
		"Thu, 05 Mar 2026 12:00:30 GMT", "Thursday, 05-Mar-26 12:01:00 GMT", "Thu Mar  5 12:00:45 2026",
		"Sun, 06 Nov 1994 08:49:37 GMT", "Wednesday, 01-Jan-76 00:00:00 GMT", "soon",
	} {
		f.Add(seed)
	}
	now := time.Date(2026, time.March, 5, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value string) {
		d, ok := reflection.ParseRetryAfter(value, now)
		if d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, negative", value, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, false: a refusal must give 0", value, d)
		}
		trimmed := strings.Trim(value, " \t")
		digits := trimmed != "" && strings.Trim(trimmed, "0123456789") == ""
		if digits {
			if !ok {
				t.Fatalf("ParseRetryAfter(%q) refuses delta-seconds", value)
			}
			return
		}
		_, httpErr := http.ParseTime(trimmed)
		if ok && httpErr != nil {
			t.Fatalf("ParseRetryAfter(%q) accepts a date net/http refuses: %v", value, httpErr)
		}
		for _, layout := range []string{http.TimeFormat, time.ANSIC} {
			if at, err := time.Parse(layout, trimmed); err == nil {
				if want := max(at.Sub(now), 0); !ok || d != want {
					t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %v, true", value, d, ok, want)
				}
			}
		}
	})
}
