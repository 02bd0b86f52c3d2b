//go:build !plan9

package rules_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// TestTypedErrors is the second table of the data set: errors built in Go,
// most of them by the real thing (a refused dial on loopback, a reset
// connection, a read past its deadline, an HTTP request whose context has
// expired, a resolver whose server answers SERVFAIL), given to Analyze as
// the Driver gives them: the error in Failure.Err and its text in
// Failure.Error. The rule that answers must be the typed one.
func TestTypedErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        func(t *testing.T) error
		verdict    string
		rule       string
		retryAfter time.Duration
	}{
		{name: "refused dial on loopback (*net.OpError)", err: refusedDial, verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "refused HTTP request (*url.Error)", err: refusedHTTP, verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "connection reset by peer", err: resetRead, verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "read past its deadline (i/o timeout)", err: deadlineRead, verdict: "recoverable", rule: "rules: net-timeout"},
		{name: "expired context", err: func(*testing.T) error {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			return fmt.Errorf("search: %w", ctx.Err())
		}, verdict: "recoverable", rule: "rules: context-deadline"},
		{name: "HTTP request with an expired context (*url.Error)", err: expiredHTTP, verdict: "recoverable", rule: "rules: context-deadline"},
		{name: "resolver answered SERVFAIL (*net.DNSError, temporary)", err: servfailLookup, verdict: "recoverable", rule: "rules: dns-temporary"},
		{name: "resolver answered NXDOMAIN (*net.DNSError, not found)", err: nxdomainLookup, verdict: "skipped"},
		{name: "DNS timeout (*net.DNSError)", err: func(*testing.T) error {
			return &net.DNSError{Err: "i/o timeout", Name: "api.example.com", Server: "10.0.0.2:53", IsTimeout: true}
		}, verdict: "recoverable", rule: "rules: net-timeout"},
		{name: "wrapped syscall.ECONNREFUSED", err: func(*testing.T) error {
			return fmt.Errorf("call search: %w", syscall.ECONNREFUSED)
		}, verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "write: broken pipe", err: func(*testing.T) error {
			return &net.OpError{Op: "write", Net: "tcp", Err: &osSyscallError{"write", syscall.EPIPE}}
		}, verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "server closed the connection (*url.Error around io.EOF)", err: func(*testing.T) error {
			return &url.Error{Op: "Post", URL: "https://api.example.com/v1/items", Err: io.EOF}
		}, verdict: "recoverable", rule: "rules: connection-closed"},
		{name: "permission denied (*fs.PathError, EACCES)", err: func(*testing.T) error {
			return &fs.PathError{Op: "open", Path: "/etc/shadow", Err: syscall.EACCES}
		}, verdict: "escalate", rule: "rules: permission"},
		{name: "an error with RetryAfter()", err: func(*testing.T) error {
			return fmt.Errorf("search: %w", &throttled{after: 7 * time.Second})
		}, verdict: "recoverable", rule: "rules: retry-after-error", retryAfter: 7 * time.Second},
		{name: "StatusCode() 503", err: func(*testing.T) error {
			return fmt.Errorf("fetch: %w", &httpError{status: 503, msg: "upstream failed"})
		}, verdict: "recoverable", rule: "rules: http-status-transient"},
		{name: "HTTPStatusCode() 429 (AWS style)", err: func(*testing.T) error {
			return &awsResponseError{status: 429, msg: "operation error Bedrock Runtime: InvokeModel, ThrottlingException"}
		}, verdict: "recoverable", rule: "rules: http-status-transient"},
		{name: "StatusCode() 401", err: func(*testing.T) error {
			return &httpError{status: 401, msg: "token rejected"}
		}, verdict: "escalate", rule: "rules: http-status-auth"},
		{name: "StatusCode() 403 that says rate limit", err: func(*testing.T) error {
			return &httpError{status: 403, msg: "API rate limit exceeded for installation ID 42."}
		}, verdict: "recoverable", rule: "rules: rate-limit"},
		{name: "StatusCode() 429 that says the quota is gone", err: func(*testing.T) error {
			return &httpError{status: 429, msg: "You exceeded your current quota, please check your plan and billing details."}
		}, verdict: "escalate", rule: "rules: quota"},
		{name: "StatusCode() 404", err: func(*testing.T) error {
			return &httpError{status: 404, msg: "no such repository"}
		}, verdict: "skipped"},
		{name: "Error() panics", err: func(*testing.T) error {
			return panicky{}
		}, verdict: "skipped"},
		{name: "StatusCode() panics", err: func(*testing.T) error {
			return panickyStatus{}
		}, verdict: "skipped"},
		{name: "RetryAfter() panics but the text says 503", err: func(*testing.T) error {
			return panickyRetryAfter{msg: "503 Service Unavailable"}
		}, verdict: "recoverable", rule: "rules: overloaded"},
		{name: "Is() and As() panic but the text says 429", err: func(*testing.T) error {
			return panickyChain{msg: "429 Too Many Requests"}
		}, verdict: "recoverable", rule: "rules: rate-limit"},
	}
	r := rules.New(rules.Defaults()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err(t)
			require.Error(t, err)
			a, aerr := r.Analyze(context.Background(), reflection.Failure{Error: errText(err), Err: err, Tool: "tool"})
			t.Logf("error %q -> %s %q", errText(err), verdictOf(a, aerr), a.Context)
			assert.Equal(t, tt.verdict, verdictOf(a, aerr))
			if tt.rule != "" {
				assert.Equal(t, tt.rule, a.Context)
			}
			assert.Equal(t, tt.retryAfter, a.RetryAfter)
		})
	}
}

// errText is err.Error(), or "" when it panics, as the Driver would see it.
func errText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return err.Error()
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func refusedDial(t *testing.T) error {
	conn, err := net.Dial("tcp", closedPort(t))
	if conn != nil {
		conn.Close()
	}
	return err
}

func refusedHTTP(t *testing.T) error {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + closedPort(t) + "/v1/items")
	if resp != nil {
		resp.Body.Close()
	}
	return err
}

func expiredHTTP(t *testing.T) error {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+closedPort(t)+"/v1/items", nil)
	require.NoError(t, err)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	return err
}

// connPair returns both ends of a real loopback TCP connection.
func connPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	s, err := ln.Accept() // the dial above is already in the backlog
	require.NoError(t, err)
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func resetRead(t *testing.T) error {
	client, server := connPair(t)
	defer client.Close()
	require.NoError(t, server.SetLinger(0)) // close sends RST
	require.NoError(t, server.Close())
	_, err := client.Read(make([]byte, 1))
	return err
}

func deadlineRead(t *testing.T) error {
	client, server := connPair(t)
	defer client.Close()
	defer server.Close()
	require.NoError(t, client.SetReadDeadline(time.Now().Add(-time.Second)))
	_, err := client.Read(make([]byte, 1))
	return err
}

func servfailLookup(t *testing.T) error { return fakeDNSLookup(t, 2) }
func nxdomainLookup(t *testing.T) error { return fakeDNSLookup(t, 3) }

// fakeDNSLookup resolves a name with Go's own resolver against a server on
// an in-memory pipe that answers every query with rcode (2 SERVFAIL, 3
// NXDOMAIN), so the *net.DNSError is the one the resolver really builds.
func fakeDNSLookup(t *testing.T, rcode byte) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	res := &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
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
	// Keep the header and the question only.
	end := 12
	for end < len(msg) && msg[end] != 0 {
		end += int(msg[end]) + 1
	}
	end += 5 // the root label, type and class
	if end > len(msg) {
		return
	}
	reply := make([]byte, 2+end)
	binary.BigEndian.PutUint16(reply, uint16(end))
	copy(reply[2:], msg[:end])
	conn.Write(reply)
}
