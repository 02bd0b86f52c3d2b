package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

// statused reports an HTTP status, as many SDK errors do.
type statused struct{ code int }

func (e statused) Error() string   { return http.StatusText(e.code) }
func (e statused) StatusCode() int { return e.code }

// awsStatused reports one as the AWS SDK's response errors do.
type awsStatused struct{ code int }

func (e awsStatused) Error() string       { return "aws" }
func (e awsStatused) HTTPStatusCode() int { return e.code }

// TestStatusCode: the exported StatusCode reads a status as the rules and the
// breaker read it (internal/errchain's tests cover every broken error).
func TestStatusCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"none", errors.New("503 in text only"), 0},
		{"StatusCode", statused{503}, 503},
		{"wrapped", fmt.Errorf("get: %w", statused{429}), 429},
		{"HTTPStatusCode", awsStatused{403}, 403},
		{"StatusCode first", errors.Join(awsStatused{500}, statused{502}), 502},
		{"not a status", statused{42}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := reflection.StatusCode(tc.err); got != tc.want {
				t.Errorf("StatusCode = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestPanicAndTimeoutErrorsAsValues(t *testing.T) {
	p := reflection.ToolPanic("read_file", "index out of range")
	if got, want := p.Error(), `tool "read_file" panicked: index out of range`; got != want {
		t.Errorf("ToolPanic text = %q, want %q", got, want)
	}
	if !errors.Is(p, reflection.ErrPanicked) {
		t.Error("a PanicError does not match ErrPanicked")
	}
	cause := errors.New("read tcp: i/o timeout")
	te := &reflection.AttemptTimeoutError{Tool: "fetch", Limit: 2 * time.Second, Err: cause}
	if got, want := te.Error(), `tool "fetch" timed out after 2s`; got != want {
		t.Errorf("AttemptTimeoutError text = %q, want %q", got, want)
	}
	if !errors.Is(te, context.DeadlineExceeded) || !errors.Is(te, cause) {
		t.Error("an AttemptTimeoutError must match context.DeadlineExceeded and unwrap to the tool's error")
	}
}

func TestWaitPastDeadline(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		delay    time.Duration
		deadline time.Time
		refused  bool
	}{
		{"no deadline", time.Hour, time.Time{}, false},
		{"ends before", time.Second, now.Add(2 * time.Second), false},
		{"ends at it", 2 * time.Second, now.Add(2 * time.Second), true},
		{"ends after", 3 * time.Second, now.Add(2 * time.Second), true},
		{"deadline passed", 0, now.Add(-time.Second), true},
		{"negative delay counts as 0", -time.Second, now.Add(time.Second), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := reflection.WaitPastDeadline(tc.delay, now, tc.deadline)
			if (err != nil) != tc.refused {
				t.Fatalf("WaitPastDeadline = %v, refused want %v", err, tc.refused)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v does not match context.DeadlineExceeded", err)
			}
			want := "reflection: retry in " + tc.delay.String() + " would end past the context deadline: context deadline exceeded"
			if err.Error() != want {
				t.Errorf("text = %q, want %q", err.Error(), want)
			}
		})
	}
}
