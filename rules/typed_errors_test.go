//go:build !plan9

package rules_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
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
		{name: "refused dial on loopback (*net.OpError)", err: netErr(reflectiontest.RefusedDial), verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "refused HTTP request (*url.Error)", err: netErr(reflectiontest.RefusedHTTP), verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "connection reset by peer", err: netErr(reflectiontest.ConnectionReset), verdict: "recoverable", rule: "rules: connection-errno"},
		{name: "read past its deadline (i/o timeout)", err: netErr(reflectiontest.ReadPastDeadline), verdict: "recoverable", rule: "rules: net-timeout"},
		{name: "expired context", err: func(*testing.T) error {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			return fmt.Errorf("search: %w", ctx.Err())
		}, verdict: "recoverable", rule: "rules: context-deadline"},
		{name: "HTTP request with an expired context (*url.Error)", err: netErr(reflectiontest.ExpiredHTTP), verdict: "recoverable", rule: "rules: context-deadline"},
		{name: "resolver answered SERVFAIL (*net.DNSError, temporary)", err: netErr(reflectiontest.DNSServerFailure), verdict: "recoverable", rule: "rules: dns-temporary"},
		{name: "resolver answered NXDOMAIN (*net.DNSError, not found)", err: netErr(reflectiontest.DNSNotFound), verdict: "skipped"},
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

// netErr makes f for real, as a table's error func.
func netErr(f reflectiontest.NetFailure) func(*testing.T) error {
	return func(t *testing.T) error { return reflectiontest.NetError(t, f) }
}
