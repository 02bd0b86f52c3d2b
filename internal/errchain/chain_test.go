package errchain_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"testing"

	"github.com/loopctl-go/reflection/internal/errchain"
)

// loopingErr is an error whose Unwrap returns itself: errors.Is never returns.
type loopingErr struct{}

func (*loopingErr) Error() string   { return "loopingErr" }
func (l *loopingErr) Unwrap() error { return l }

// fanningErr is an error whose Unwrap returns itself twice: a walk that does not
// count would visit 2^n errors.
type fanningErr struct{}

func (*fanningErr) Error() string     { return "fanningErr" }
func (f *fanningErr) Unwrap() []error { return []error{f, f} }

type walkPanicker struct{ in string }

func (p walkPanicker) Error() string {
	if p.in == "Error" {
		panic("Error exploded")
	}
	return "walkPanicker"
}

func (p walkPanicker) Is(error) bool {
	if p.in == "Is" {
		panic("Is exploded")
	}
	return false
}

func (p walkPanicker) Unwrap() error {
	if p.in == "Unwrap" {
		panic("Unwrap exploded")
	}
	return context.DeadlineExceeded
}

// asTimeoutErr answers errors.As for a net.Error with a value of its own.
type asTimeoutErr struct{}

func (asTimeoutErr) Error() string { return "as timeout" }
func (asTimeoutErr) As(target any) bool {
	if p, ok := target.(*net.Error); ok {
		*p = &net.DNSError{IsTimeout: true}
		return true
	}
	return false
}

// uncomparableErr has a slice, so == on two of them panics.
type uncomparableErr struct{ parts []string }

func (uncomparableErr) Error() string { return "uncomparableErr" }

func TestIsMatchesErrorsIs(t *testing.T) {
	perm := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}
	cases := []struct {
		name   string
		err    error
		target error
	}{
		{"nil", nil, context.Canceled},
		{"itself", context.Canceled, context.Canceled},
		{"wrapped", fmt.Errorf("a: %w", context.DeadlineExceeded), context.DeadlineExceeded},
		{"not there", fmt.Errorf("a: %w", context.Canceled), context.DeadlineExceeded},
		{"joined, second", errors.Join(errors.New("x"), perm), fs.ErrPermission},
		{"two %w, first", fmt.Errorf("%w and %w", context.Canceled, fs.ErrNotExist), context.Canceled},
		{"Is method", &net.OpError{Err: perm}, fs.ErrPermission},
		{"uncomparableErr target", uncomparableErr{}, uncomparableErr{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := func() (w bool) {
				defer func() { _ = recover() }()
				return errors.Is(tc.err, tc.target)
			}()
			if got := errchain.Is(tc.err, tc.target); got != want {
				t.Errorf("Is = %v, errors.Is = %v", got, want)
			}
		})
	}
}

func TestAsMatchesErrorsAs(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}
	chain := fmt.Errorf("dial: %w", &net.OpError{Op: "dial", Err: dns})
	got, ok := errchain.As[*net.DNSError](chain)
	if !ok || got != dns {
		t.Fatalf("As[*net.DNSError] = %v, %v; want the DNS error", got, ok)
	}
	if _, ok := errchain.As[*net.DNSError](errors.New("plain")); ok {
		t.Error("As found a DNS error in a plain error")
	}
	ne, ok := errchain.As[net.Error](asTimeoutErr{})
	if !ok || !ne.Timeout() {
		t.Errorf("As[net.Error] through an As method = %v, %v; want a timeout", ne, ok)
	}
	joined := errors.Join(errors.New("a"), fmt.Errorf("b: %w", dns))
	if got, ok := errchain.As[*net.DNSError](joined); !ok || got != dns {
		t.Errorf("As in a joined error = %v, %v", got, ok)
	}
}

func TestWalksEndOnLoops(t *testing.T) {
	for _, err := range []error{&loopingErr{}, &fanningErr{}, fmt.Errorf("wrapped: %w", &loopingErr{})} {
		if errchain.Is(err, context.Canceled) {
			t.Errorf("Is(%v) = true", err)
		}
		if _, ok := errchain.As[*net.DNSError](err); ok {
			t.Errorf("As(%v) found a DNS error", err)
		}
	}
	// A match before the loopingErr is still found.
	if !errchain.Is(fmt.Errorf("%w %w", context.Canceled, &loopingErr{}), context.Canceled) {
		t.Error("Is missed a match before a loopingErr")
	}
}

func TestWalksSurvivePanics(t *testing.T) {
	for _, in := range []string{"Is", "Unwrap"} {
		if errchain.Is(walkPanicker{in: in}, context.DeadlineExceeded) {
			t.Errorf("Is with a panicking %s = true", in)
		}
		if _, ok := errchain.As[net.Error](walkPanicker{in: in}); ok && in == "Unwrap" {
			t.Errorf("As with a panicking %s found something", in)
		}
	}
	if !errchain.Is(walkPanicker{}, context.DeadlineExceeded) {
		t.Error("Is missed a match behind a well-behaved walkPanicker value")
	}
}
