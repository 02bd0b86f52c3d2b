//go:build !plan9

package reflectiontemporal

import (
	"github.com/loopctl-go/reflection/internal/errchain"
	"syscall"
)

// connectionErrnos are the system errors of a connection that ErrorData
// carries by name: refused, reset, aborted, broken, timed out, or no route.
var connectionErrnos = []struct {
	name  string
	errno syscall.Errno
}{
	{"ECONNREFUSED", syscall.ECONNREFUSED},
	{"ECONNRESET", syscall.ECONNRESET},
	{"ECONNABORTED", syscall.ECONNABORTED},
	{"EPIPE", syscall.EPIPE},
	{"ETIMEDOUT", syscall.ETIMEDOUT},
	{"EHOSTUNREACH", syscall.EHOSTUNREACH},
	{"ENETUNREACH", syscall.ENETUNREACH},
	{"ENETDOWN", syscall.ENETDOWN},
	{"ENETRESET", syscall.ENETRESET},
}

// errnoName returns the name of the first syscall.Errno in err's chain when
// it is one of connectionErrnos, and "" otherwise.
func errnoName(err error) string {
	errno, ok := errchain.As[syscall.Errno](err)
	if !ok {
		return ""
	}
	for _, e := range connectionErrnos {
		if e.errno == errno {
			return e.name
		}
	}
	return ""
}

// errnoNamed returns this system's syscall.Errno of name, or nil.
func errnoNamed(name string) error {
	if name == "" {
		return nil
	}
	for _, e := range connectionErrnos {
		if e.name == name {
			return e.errno
		}
	}
	return nil
}
