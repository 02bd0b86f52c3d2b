//go:build !plan9

package rules

import "syscall"

// connectionErrnos are the system errors of a connection that a later call
// can get past: refused, reset, aborted, broken, timed out, or no route for
// now.
var connectionErrnos = []error{
	syscall.ECONNREFUSED,
	syscall.ECONNRESET,
	syscall.ECONNABORTED,
	syscall.EPIPE,
	syscall.ETIMEDOUT,
	syscall.EHOSTUNREACH,
	syscall.ENETUNREACH,
	syscall.ENETDOWN,
	syscall.ENETRESET,
}
