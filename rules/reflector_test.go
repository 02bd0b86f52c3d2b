package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

var errSentinel = errors.New("sentinel")

func TestConditions(t *testing.T) {
	typed := &net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}
	tests := []struct {
		name string
		when rules.Condition
		f    reflection.Failure
		want bool
	}{
		{"ErrorIs matches a wrapped sentinel", rules.ErrorIs(errSentinel), reflection.Failure{Err: fmt.Errorf("a: %w", errSentinel)}, true},
		{"ErrorIs with several targets", rules.ErrorIs(errors.New("other"), errSentinel), reflection.Failure{Err: errSentinel}, true},
		{"ErrorIs misses another error", rules.ErrorIs(errSentinel), reflection.Failure{Err: errors.New("sentinel")}, false},
		{"ErrorIs without an error", rules.ErrorIs(errSentinel), reflection.Failure{Error: "sentinel"}, false},
		{"ErrorAs finds the type", rules.ErrorAs[*net.DNSError](nil), reflection.Failure{Err: fmt.Errorf("x: %w", typed)}, true},
		{"ErrorAs asks match", rules.ErrorAs(func(e *net.DNSError) bool { return e.IsNotFound }), reflection.Failure{Err: typed}, false},
		{"ErrorAs with an interface", rules.ErrorAs(func(e net.Error) bool { return e.Temporary() }), reflection.Failure{Err: typed}, true},
		{"ErrorAs without an error", rules.ErrorAs[*net.DNSError](nil), reflection.Failure{Error: "x"}, false},
		{"Status from a method", rules.Status(503), reflection.Failure{Err: &httpError{status: 503, msg: "x"}}, true},
		{"Status from the text", rules.Status(429), reflection.Failure{Error: "unexpected status code: 429"}, true},
		{"Status: the method wins over the text", rules.Status(429), reflection.Failure{Err: &httpError{status: 500, msg: "429"}, Error: "status 429"}, false},
		{"Status: a number that is not a status", rules.Status(503), reflection.Failure{Error: "syntax error at line 503"}, false},
		{"Text ignores ASCII case", rules.Text(`lock_TIMEOUT`), reflection.Failure{Error: "code: Lock_Timeout"}, true},
		{"Text misses", rules.Text(`^deadline$`), reflection.Failure{Error: "invalid deadline"}, false},
		{"Text reads Err's text when Error is empty", rules.Text(`refused`), reflection.Failure{Err: errors.New("connection refused")}, true},
		{"Regexp keeps case", rules.Regexp(regexp.MustCompile(`Busy`)), reflection.Failure{Error: "server busy"}, false},
		{"Regexp matches", rules.Regexp(regexp.MustCompile(`Busy`)), reflection.Failure{Error: "Server Busy"}, true},
		{"Contains any, any case", rules.Contains("nope", "GONE AWAY"), reflection.Failure{Error: "MySQL server has gone away"}, true},
		{"Contains none", rules.Contains("nope"), reflection.Failure{Error: "x"}, false},
		{"Func sees the failure", rules.Func(func(f reflection.Failure) bool { return f.Tool == "search" }), reflection.Failure{Error: "x", Tool: "search"}, true},
		{"All holds when all do", rules.All(rules.Contains("a"), rules.Contains("b")), reflection.Failure{Error: "ab"}, true},
		{"All fails when one does", rules.All(rules.Contains("a"), rules.Contains("c")), reflection.Failure{Error: "ab"}, false},
		{"All of none holds", rules.All(), reflection.Failure{Error: "x"}, true},
		{"Any holds when one does", rules.Any(rules.Contains("c"), rules.Contains("b")), reflection.Failure{Error: "ab"}, true},
		{"Any of none fails", rules.Any(), reflection.Failure{Error: "x"}, false},
		{"Not", rules.Not(rules.Contains("a")), reflection.Failure{Error: "b"}, true},
		{"a panicking Func does not hold", rules.Func(func(reflection.Failure) bool { panic("boom") }), reflection.Failure{Error: "x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rules.New(rules.Rule{Name: "probe", When: tt.when, Then: rules.Transient("matched")})
			a, err := r.Analyze(context.Background(), tt.f)
			if tt.want {
				require.NoError(t, err)
				assert.Equal(t, "rules: probe", a.Context)
			} else {
				assert.ErrorIs(t, err, reflection.ErrSkipped)
			}
		})
	}
}

func TestConstructorsPanicOnProgrammingErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   func()
		want string
	}{
		{"bad pattern", func() { rules.Text(`(`) }, ""},
		{"nil regexp", func() { rules.Regexp(nil) }, "rules: Regexp needs a non-nil *regexp.Regexp"},
		{"nil Func", func() { rules.Func(nil) }, "rules: Func needs a non-nil function"},
		{"nil AnswerFunc", func() { rules.AnswerFunc(nil) }, "rules: AnswerFunc needs a non-nil function"},
		{"nil UnknownToolFunc", func() { rules.UnknownToolFunc(nil) }, "rules: UnknownToolFunc needs a non-nil function"},
		{"zero Condition in All", func() { rules.All(rules.Contains("a"), rules.Condition{}) }, "rules: All was given a zero Condition at position 1"},
		{"zero Condition in Not", func() { rules.Not(rules.Condition{}) }, "rules: Not was given a zero Condition at position 0"},
		{"rule without a condition", func() { rules.New(rules.Rule{Name: "x", Then: rules.Transient("y")}) },
			`rules: rule "x" (position 0) has no condition: set Rule.When`},
		{"rule without a verdict", func() { rules.New(rules.Rule{When: rules.Contains("a")}) },
			`rules: rule "rule 0" (position 0) has no verdict: set Rule.Then`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				assert.Panics(t, tt.fn)
				return
			}
			assert.PanicsWithValue(t, tt.want, tt.fn)
		})
	}
}

func TestVerdicts(t *testing.T) {
	ctx := context.Background()
	t.Run("Transient", func(t *testing.T) {
		r := rules.New(rules.Rule{Name: "busy", When: rules.Contains("busy"), Then: rules.Transient("the server is busy")})
		a, err := r.Analyze(ctx, reflection.Failure{Error: "server busy, Retry-After: 12"})
		require.NoError(t, err)
		assert.Equal(t, reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "the server is busy", Severity: reflection.SeverityLow,
			Context: "rules: busy", RetryAfter: 12 * time.Second,
		}, a)
	})
	t.Run("Escalate", func(t *testing.T) {
		r := rules.New(rules.Rule{Name: "sso", When: rules.Contains("sso"), Then: rules.Escalate("SSO session expired", "log in again")})
		a, err := r.Analyze(ctx, reflection.Failure{Error: "SSO session expired"})
		require.NoError(t, err)
		assert.Equal(t, reflection.FailureAnalysis{
			RootCause: "SSO session expired", Severity: reflection.SeverityHigh, Context: "rules: sso",
			Correction: &reflection.Correction{Type: reflection.Escalate, Description: "SSO session expired", Guidance: "log in again"},
		}, a)
	})
	t.Run("Skip stops the table", func(t *testing.T) {
		r := rules.New(
			rules.Rule{Name: "not-ours", When: rules.Contains("panic:"), Then: rules.Skip("a crash")},
			rules.Rule{Name: "timeouts", When: rules.Contains("timed out"), Then: rules.Transient("timeout")},
		)
		_, err := r.Analyze(ctx, reflection.Failure{Error: "panic: test timed out after 10m0s"})
		require.ErrorIs(t, err, reflection.ErrSkipped)
		assert.EqualError(t, err, `rules: rule "not-ours" declines: a crash: reflection: reflector skipped analysis`)
	})
	t.Run("Answer gives a copy each time", func(t *testing.T) {
		fixed := reflection.FailureAnalysis{IsRecoverable: true, RootCause: "x",
			Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"a":1}`)}}
		r := rules.New(rules.Rule{Name: "fixed", When: rules.Contains("x"), Then: rules.Answer(fixed)})
		fixed.Correction.Type = reflection.Escalate // the caller's value changes later
		a, err := r.Analyze(ctx, reflection.Failure{Error: "x"})
		require.NoError(t, err)
		assert.Equal(t, reflection.InputFix, a.Correction.Type)
		assert.Equal(t, "rules: fixed", a.Context)
		a.Correction.Description = "mutated"
		b, _ := r.Analyze(ctx, reflection.Failure{Error: "x"})
		assert.Empty(t, b.Correction.Description)
	})
	t.Run("Answer keeps its own Context", func(t *testing.T) {
		r := rules.New(rules.Rule{When: rules.Contains("x"), Then: rules.Answer(reflection.FailureAnalysis{Context: "mine"})})
		a, _ := r.Analyze(ctx, reflection.Failure{Error: "x"})
		assert.Equal(t, "mine", a.Context)
	})
	t.Run("AnswerFunc", func(t *testing.T) {
		tests := []struct {
			name     string
			fn       func(reflection.Failure) (reflection.FailureAnalysis, error)
			wantErr  error
			wantText string
			wantCtx  string
		}{
			{"answer", func(f reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{RootCause: f.Tool}, nil
			}, nil, "", "rules: fn"},
			{"skip kept", func(reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, fmt.Errorf("mine: %w", reflection.ErrSkipped)
			}, reflection.ErrSkipped, "mine: reflection: reflector skipped analysis", ""},
			{"other error wrapped as internal", func(reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, errors.New("db down")
			}, reflection.ErrInternal, `rules: rule "fn": reflection: internal reflector error: db down`, ""},
			{"panic becomes internal", func(reflection.Failure) (reflection.FailureAnalysis, error) {
				panic("boom")
			}, reflection.ErrInternal, `rules: rule "fn" panicked: boom: reflection: internal reflector error`, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := rules.New(rules.Rule{Name: "fn", When: rules.Contains("x"), Then: rules.AnswerFunc(tt.fn)})
				a, err := r.Analyze(ctx, reflection.Failure{Error: "x", Tool: "search"})
				if tt.wantErr == nil {
					require.NoError(t, err)
					assert.Equal(t, "search", a.RootCause)
					assert.Equal(t, tt.wantCtx, a.Context)
					return
				}
				assert.ErrorIs(t, err, tt.wantErr)
				assert.EqualError(t, err, tt.wantText)
			})
		}
	})
}

func TestReflector(t *testing.T) {
	ctx := context.Background()
	t.Run("nil and zero Reflectors skip", func(t *testing.T) {
		var nilR *rules.Reflector
		_, err := nilR.Analyze(ctx, reflection.Failure{Error: "x"})
		assert.ErrorIs(t, err, reflection.ErrSkipped)
		_, err = (&rules.Reflector{}).Analyze(ctx, reflection.Failure{Error: "x"})
		assert.ErrorIs(t, err, reflection.ErrSkipped)
		_, err = rules.New().Analyze(ctx, reflection.Failure{Error: "x"})
		assert.ErrorIs(t, err, reflection.ErrSkipped)
	})
	t.Run("an empty failure skips", func(t *testing.T) {
		r := rules.New(rules.Rule{When: rules.All(), Then: rules.Transient("x")})
		_, err := r.Analyze(ctx, reflection.Failure{})
		assert.ErrorIs(t, err, reflection.ErrSkipped)
	})
	t.Run("first match wins and names the rule", func(t *testing.T) {
		r := rules.New(
			rules.Rule{When: rules.Contains("zzz"), Then: rules.Transient("first")},
			rules.Rule{When: rules.Contains("x"), Then: rules.Transient("second")},
			rules.Rule{Name: "third", When: rules.Contains("x"), Then: rules.Transient("third")},
		)
		a, err := r.Analyze(ctx, reflection.Failure{Error: "x"})
		require.NoError(t, err)
		assert.Equal(t, "second", a.RootCause)
		assert.Equal(t, "rules: rule 1", a.Context)
	})
	t.Run("New copies the rules", func(t *testing.T) {
		table := []rules.Rule{{Name: "a", When: rules.Contains("x"), Then: rules.Transient("a")}}
		r := rules.New(table...)
		table[0] = rules.Rule{Name: "b", When: rules.Contains("x"), Then: rules.Transient("b")}
		a, _ := r.Analyze(ctx, reflection.Failure{Error: "x"})
		assert.Equal(t, "a", a.RootCause)
	})
	t.Run("Defaults gives a fresh slice", func(t *testing.T) {
		d := rules.Defaults()
		d[0] = rules.Rule{}
		assert.NotEqual(t, "", rules.Defaults()[0].Name)
	})
	t.Run("a long text is read at both ends", func(t *testing.T) {
		r := rules.New(rules.Defaults()...)
		long := "Traceback (most recent call last):\n" + string(make([]byte, 64<<10)) + "\nConnectionResetError: [Errno 104] Connection reset by peer"
		a, err := r.Analyze(ctx, reflection.Failure{Error: long})
		require.NoError(t, err)
		assert.True(t, a.IsRecoverable)
	})
	t.Run("safe for concurrent use", func(t *testing.T) {
		r := rules.New(append(rules.Defaults(), rules.UnknownTool("search", "fetch"))...)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 200 {
					text := []string{"429 Too Many Requests", "timeout must be positive", `unknown tool "serach"`}[(i+j)%3]
					a, err := r.Analyze(ctx, reflection.Failure{Error: text, Tool: "serach"})
					if (i+j)%3 == 1 {
						assert.ErrorIs(t, err, reflection.ErrSkipped)
					} else {
						assert.True(t, a.IsRecoverable)
					}
				}
			}()
		}
		wg.Wait()
	})
}

// TestWithClock: a Retry-After written as an HTTP date is read against the
// clock the Reflector is given, so a replay that gives the same clock gets
// the same wait.
func TestWithClock(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := rules.New(rules.Defaults()...).WithClock(func() time.Time { return at })
	f := reflection.Failure{Error: "HTTP 503 Service Unavailable; Retry-After: Tue, 01 Dec 2026 10:00:30 GMT"}
	for range 2 {
		a, err := r.Analyze(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if a.RetryAfter != 30*time.Second {
			t.Fatalf("RetryAfter = %v, want 30s against the given clock", a.RetryAfter)
		}
	}
	if got := (*rules.Reflector)(nil).WithClock(nil); got == nil {
		t.Error("WithClock on a nil Reflector returned nil")
	}
}
