package reflectiontemporal

import (
	"errors"
	"github.com/loopctl-go/reflection/internal/errchain"
	"net"
	"net/url"
)

// maxURLDepth bounds how many *url.Error levels ErrorData records, one
// inside the other.
const maxURLDepth = 2

// DNSErrorData is a *net.DNSError as data: what a Reflector checks on a
// failed lookup.
type DNSErrorData struct {
	Err         string `json:"err"`
	Name        string `json:"name,omitempty"`
	Server      string `json:"server,omitempty"`
	IsTimeout   bool   `json:"is_timeout,omitempty"`
	IsTemporary bool   `json:"is_temporary,omitempty"`
	IsNotFound  bool   `json:"is_not_found,omitempty"`
}

// newDNSErrorData records the first *net.DNSError in err's chain, or
// returns nil.
func newDNSErrorData(err error) *DNSErrorData {
	dns, ok := errchain.As[*net.DNSError](err)
	if !ok || dns == nil {
		return nil
	}
	return &DNSErrorData{
		Err: dns.Err, Name: dns.Name, Server: dns.Server,
		IsTimeout: dns.IsTimeout, IsTemporary: dns.IsTemporary, IsNotFound: dns.IsNotFound,
	}
}

func (d *DNSErrorData) rebuild() error {
	return &net.DNSError{
		Err: d.Err, Name: d.Name, Server: d.Server,
		IsTimeout: d.IsTimeout, IsTemporary: d.IsTemporary, IsNotFound: d.IsNotFound,
	}
}

// URLErrorData is a *url.Error as data: the operation, the URL, and the
// error it wraps (itself as ErrorData, so that a check of that error, for
// io.EOF say, answers as on the original).
type URLErrorData struct {
	Op  string     `json:"op"`
	URL string     `json:"url"`
	Err *ErrorData `json:"err,omitempty"`
}

// newURLErrorData records the first *url.Error in err's chain, or returns
// nil.
func newURLErrorData(err error, depth int) *URLErrorData {
	ue, ok := errchain.As[*url.Error](err)
	if !ok || ue == nil {
		return nil
	}
	return &URLErrorData{Op: ue.Op, URL: ue.URL, Err: newErrorData(ue.Err, depth+1)}
}

func (d *URLErrorData) rebuild() error {
	inner := d.Err.Rebuild()
	if inner == nil {
		inner = errors.New("")
	}
	return &url.Error{Op: d.Op, URL: d.URL, Err: inner}
}
