//go:build !plan9

package reflectiontest_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"syscall"
	"testing"

	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestNetError checks that each failure is the error the network stack
// really returns, with the types a Reflector looks for.
func TestNetError(t *testing.T) {
	isDNS := func(check func(*net.DNSError) bool) func(error) bool {
		return func(err error) bool {
			var d *net.DNSError
			return errors.As(err, &d) && check(d)
		}
	}
	isURL := func(inner func(error) bool) func(error) bool {
		return func(err error) bool {
			var u *url.Error
			return errors.As(err, &u) && inner(u.Err)
		}
	}
	refused := func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
	timeout := func(err error) bool {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	want := map[reflectiontest.NetFailure]func(error) bool{
		reflectiontest.RefusedDial: func(err error) bool {
			var op *net.OpError
			return errors.As(err, &op) && op.Op == "dial" && refused(err)
		},
		reflectiontest.RefusedHTTP:      isURL(refused),
		reflectiontest.ConnectionReset:  func(err error) bool { return errors.Is(err, syscall.ECONNRESET) },
		reflectiontest.ReadPastDeadline: timeout,
		reflectiontest.ExpiredHTTP: isURL(func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded)
		}),
		reflectiontest.DNSServerFailure: isDNS(func(d *net.DNSError) bool { return d.IsTemporary && !d.IsNotFound }),
		reflectiontest.DNSNotFound:      isDNS(func(d *net.DNSError) bool { return d.IsNotFound }),
	}
	if len(want) != len(reflectiontest.NetFailures()) {
		t.Fatalf("the test checks %d failures, NetFailures lists %d", len(want), len(reflectiontest.NetFailures()))
	}
	for _, f := range reflectiontest.NetFailures() {
		t.Run(f.String(), func(t *testing.T) {
			err := reflectiontest.NetError(t, f)
			t.Logf("%T: %v", err, err)
			if !want[f](err) {
				t.Errorf("NetError(%v) = %#v, not the failure it names", f, err)
			}
		})
	}
}
