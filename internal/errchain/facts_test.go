package errchain_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/loopctl-go/reflection/internal/errchain"
)

// hinted carries a rate-limit hint.
type hinted struct{ after time.Duration }

func (e hinted) Error() string             { return "slow down" }
func (e hinted) RetryAfter() time.Duration { return e.after }

// statused reports an HTTP status, as many SDK errors do.
type statused struct{ code int }

func (e statused) Error() string   { return http.StatusText(e.code) }
func (e statused) StatusCode() int { return e.code }

// awsStatused reports one as the AWS SDK's response errors do.
type awsStatused struct{ code int }

func (e awsStatused) Error() string       { return "aws" }
func (e awsStatused) HTTPStatusCode() int { return e.code }

// selfLoop unwraps to itself; fanOut to itself twice.
type selfLoop struct{}

func (*selfLoop) Error() string   { return "loop" }
func (l *selfLoop) Unwrap() error { return l }

type fanOut struct{}

func (*fanOut) Error() string     { return "fan" }
func (f *fanOut) Unwrap() []error { return []error{f, f} }

// panicsEverywhere panics in every method the helpers call.
type panicsEverywhere struct{}

func (panicsEverywhere) Error() string             { panic("Error exploded") }
func (panicsEverywhere) RetryAfter() time.Duration { panic("RetryAfter exploded") }
func (panicsEverywhere) StatusCode() int           { panic("StatusCode exploded") }

func TestText(t *testing.T) {
	var typedNil *statusPtr
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", errors.New("boom"), "boom"},
		{"panics", panicsEverywhere{}, "errchain_test.panicsEverywhere error whose Error method panicked: Error exploded"},
		{"typed nil", typedNil, "*errchain_test.statusPtr error whose Error method panicked: runtime error: invalid memory address or nil pointer dereference"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errchain.Text(tc.err); got != tc.want {
				t.Errorf("Text = %q, want %q", got, tc.want)
			}
		})
	}
}

// statusPtr has pointer methods that read a field: a typed nil panics.
type statusPtr struct{ code int }

func (e *statusPtr) Error() string   { return fmt.Sprint(e.code) }
func (e *statusPtr) StatusCode() int { return e.code }

func TestRetryAfter(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want time.Duration
	}{
		{"nil", nil, 0},
		{"none", errors.New("x"), 0},
		{"direct", hinted{3 * time.Second}, 3 * time.Second},
		{"wrapped", fmt.Errorf("call: %w", hinted{time.Minute}), time.Minute},
		{"joined, first wins", errors.Join(errors.New("a"), hinted{2 * time.Second}, hinted{time.Hour}), 2 * time.Second},
		{"negative means none", hinted{-time.Second}, 0},
		{"zero means none", hinted{0}, 0},
		{"panics", panicsEverywhere{}, 0},
		{"a loop ends", &selfLoop{}, 0},
		{"a fan ends", &fanOut{}, 0},
		{"behind a loop's sibling", fmt.Errorf("%w %w", hinted{time.Second}, &selfLoop{}), time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errchain.RetryAfter(tc.err); got != tc.want {
				t.Errorf("RetryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	var typedNil *statusPtr
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
		{"over 599", statused{600}, 0},
		{"panics", panicsEverywhere{}, 0},
		{"typed nil", typedNil, 0},
		{"a loop ends", &selfLoop{}, 0},
		{"a fan ends", &fanOut{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errchain.Status(tc.err); got != tc.want {
				t.Errorf("Status = %d, want %d", got, tc.want)
			}
		})
	}
}
