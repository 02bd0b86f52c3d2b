package reflectiontest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// NetFailure names a network failure that NetError makes for real.
type NetFailure int

// The network failures NetError makes. Each is the error Go's own network
// stack returns, with its types intact (*net.OpError, *url.Error,
// *net.DNSError, the errno inside), so a Reflector that looks at types is
// tested against the real thing rather than a hand-built copy.
const (
	// RefusedDial is a TCP dial to a loopback port nothing listens on:
	// a *net.OpError around ECONNREFUSED.
	RefusedDial NetFailure = iota
	// RefusedHTTP is an HTTP GET to such a port: a *url.Error around the
	// refused dial.
	RefusedHTTP
	// ConnectionReset is a read from a loopback connection whose peer
	// closed it with a reset: ECONNRESET.
	ConnectionReset
	// ReadPastDeadline is a read on a loopback connection whose read
	// deadline has passed: an i/o timeout, a net.Error that says Timeout.
	ReadPastDeadline
	// ExpiredHTTP is an HTTP GET whose context had already expired: a
	// *url.Error around context.DeadlineExceeded.
	ExpiredHTTP
	// DNSServerFailure is a lookup by Go's resolver, with PreferGo, that
	// its server answered with SERVFAIL: a temporary *net.DNSError.
	DNSServerFailure
	// DNSNotFound is such a lookup answered with NXDOMAIN: a *net.DNSError
	// that says IsNotFound.
	DNSNotFound
)

// NetFailures lists every NetFailure, in order.
func NetFailures() []NetFailure {
	return []NetFailure{RefusedDial, RefusedHTTP, ConnectionReset, ReadPastDeadline, ExpiredHTTP, DNSServerFailure, DNSNotFound}
}

// String names the failure, as a subtest name would.
func (f NetFailure) String() string {
	switch f {
	case RefusedDial:
		return "refused dial"
	case RefusedHTTP:
		return "refused HTTP request"
	case ConnectionReset:
		return "connection reset by peer"
	case ReadPastDeadline:
		return "read past its deadline"
	case ExpiredHTTP:
		return "HTTP request with an expired context"
	case DNSServerFailure:
		return "DNS SERVFAIL"
	case DNSNotFound:
		return "DNS NXDOMAIN"
	}
	return "NetFailure(unknown)"
}

// NetError makes failure f on loopback or over an in-memory pipe and returns
// the error it produced. It opens no connection beyond the machine, leaves
// nothing running, and fails t when the machine cannot make the failure (no
// loopback, an operation that unexpectedly succeeded) or f is unknown. It
// does real I/O: call it outside a testing/synctest bubble, and hand the
// error to what runs inside.
func NetError(t testing.TB, f NetFailure) error {
	t.Helper()
	var err error
	switch f {
	case RefusedDial:
		var conn net.Conn
		conn, err = net.Dial("tcp", closedPort(t))
		if conn != nil {
			conn.Close()
		}
	case RefusedHTTP:
		err = httpGet(t, context.Background(), "http://"+closedPort(t)+"/v1/items")
	case ExpiredHTTP:
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		err = httpGet(t, ctx, "http://"+closedPort(t)+"/v1/items")
	case ConnectionReset:
		client, server := connPair(t)
		defer client.Close()
		if e := server.SetLinger(0); e != nil { // close sends RST
			t.Fatalf("reflectiontest: NetError(%v): %v", f, e)
		}
		server.Close()
		_, err = client.Read(make([]byte, 1))
	case ReadPastDeadline:
		client, server := connPair(t)
		defer client.Close()
		defer server.Close()
		if e := client.SetReadDeadline(time.Now().Add(-time.Second)); e != nil {
			t.Fatalf("reflectiontest: NetError(%v): %v", f, e)
		}
		_, err = client.Read(make([]byte, 1))
	case DNSServerFailure:
		err = dnsLookup(2)
	case DNSNotFound:
		err = dnsLookup(3)
	default:
		t.Fatalf("reflectiontest: NetError: unknown failure %d", int(f))
	}
	if err == nil {
		t.Fatalf("reflectiontest: NetError(%v): the operation succeeded", f)
	}
	return err
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("reflectiontest: no loopback listener: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// httpGet sends one GET with a transport of its own, closed afterwards.
func httpGet(t testing.TB, ctx context.Context, url string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("reflectiontest: %v", err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	return err
}

// connPair returns both ends of a real loopback TCP connection.
func connPair(t testing.TB) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("reflectiontest: no loopback listener: %v", err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("reflectiontest: loopback dial: %v", err)
	}
	s, err := ln.Accept() // the dial above is already in the backlog
	if err != nil {
		c.Close()
		t.Fatalf("reflectiontest: loopback accept: %v", err)
	}
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

// dnsLookup resolves a name with Go's own resolver against a server on an
// in-memory pipe that answers every query with rcode (2 SERVFAIL, 3
// NXDOMAIN), so the *net.DNSError is the one the resolver really builds.
func dnsLookup(rcode byte) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	res := &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer server.Close()
				answerDNS(server, rcode)
			}()
			return client, nil
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := res.LookupHost(ctx, "tools.example.test.")
	return err
}

// answerDNS reads one length-prefixed DNS query (the stream form the
// resolver uses over a conn that is not a PacketConn) and answers it with
// the same header and question, flagged as a recursive response with rcode.
func answerDNS(conn net.Conn, rcode byte) {
	var size [2]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return
	}
	msg := make([]byte, binary.BigEndian.Uint16(size[:]))
	if _, err := io.ReadFull(conn, msg); err != nil || len(msg) < 12 {
		return
	}
	msg[2] |= 0x80                 // QR: a response
	msg[3] = 0x80 | (rcode & 0x0f) // RA, and the answer code
	for i := 6; i < 12; i++ {      // no answer, authority or extra records
		msg[i] = 0
	}
	end := 12 // the header; then the question's name, type and class
	for end < len(msg) && msg[end] != 0 {
		end += int(msg[end]) + 1
	}
	end += 5
	if end > len(msg) {
		return
	}
	reply := make([]byte, 2+end)
	binary.BigEndian.PutUint16(reply, uint16(end))
	copy(reply[2:], msg[:end])
	conn.Write(reply)
}
