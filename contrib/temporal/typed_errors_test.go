//go:build !plan9

package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// typedError is an error whose types the rules package checks.
type typedError struct {
	name string
	err  error
}

// typedErrors are errors whose types the rules package checks: first those
// the network stack really makes, then built ones for the rest.
func typedErrors(t *testing.T) []typedError {
	var all []typedError
	for _, f := range reflectiontest.NetFailures() {
		all = append(all, typedError{f.String(), reflectiontest.NetError(t, f)})
	}
	return append(all, []typedError{
		{"DNS SERVFAIL, built (*net.DNSError, temporary)", &net.DNSError{Err: "server misbehaving", Name: "tools.example.test", Server: "10.0.0.2:53", IsTemporary: true}},
		{"DNS NXDOMAIN, built (*net.DNSError, not found)", &net.DNSError{Err: "no such host", Name: "tools.example.test", IsNotFound: true}},
		{"DNS timeout", &net.DNSError{Err: "i/o timeout", Name: "api.example.com", Server: "10.0.0.2:53", IsTimeout: true}},
		{"wrapped ECONNREFUSED", fmt.Errorf("call search: %w", syscall.ECONNREFUSED)},
		{"write: broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}},
		{"ENETUNREACH", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}},
		{"server closed the connection (*url.Error, io.EOF)", &url.Error{Op: "Post", URL: "https://api.example.com/v1/items", Err: io.EOF}},
		{"*url.Error, unexpected EOF", &url.Error{Op: "Get", URL: "https://api.example.com/v1/items", Err: io.ErrUnexpectedEOF}},
		{"permission denied (EACCES)", &fs.PathError{Op: "open", Path: "/etc/shadow", Err: syscall.EACCES}},
		{"RetryAfter()", fmt.Errorf("search: %w", rateLimited{after: 7 * time.Second})},
		{"StatusCode() 503", awsStyleError{status: 503}},
		{"HTTPStatusCode() 401", awsStyleError{status: 401}},
	}...)
}

// TestTypedErrorsCrossTemporal checks that what the rules check on an error
// survives the trip: the rebuilt error matches the same connection errnos,
// finds a *net.DNSError and a *url.Error with the same fields, and answers
// errors.Is for io.EOF as the original does.
func TestTypedErrorsCrossTemporal(t *testing.T) {
	errnos := []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN, syscall.ENETRESET}
	for _, tc := range typedErrors(t) {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			b, err := json.Marshal(rt.NewErrorData(tc.err))
			require.NoError(t, err)
			var back *rt.ErrorData
			require.NoError(t, json.Unmarshal(b, &back))
			rebuilt := back.Rebuild()

			for _, errno := range errnos {
				assert.Equal(t, errors.Is(tc.err, errno), errors.Is(rebuilt, errno), "errors.Is %v", errno)
			}
			for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, context.DeadlineExceeded, os.ErrPermission} {
				assert.Equal(t, errors.Is(tc.err, target), errors.Is(rebuilt, target), "errors.Is %v", target)
			}
			var dns, dnsBack *net.DNSError
			if assert.Equal(t, errors.As(tc.err, &dns), errors.As(rebuilt, &dnsBack), "a *net.DNSError") && dns != nil {
				assert.Equal(t, []any{dns.Err, dns.Name, dns.Server, dns.IsTimeout, dns.IsTemporary, dns.IsNotFound},
					[]any{dnsBack.Err, dnsBack.Name, dnsBack.Server, dnsBack.IsTimeout, dnsBack.IsTemporary, dnsBack.IsNotFound})
			}
			var ue, ueBack *url.Error
			if assert.Equal(t, errors.As(tc.err, &ue), errors.As(rebuilt, &ueBack), "a *url.Error") && ue != nil {
				assert.Equal(t, ue.Op, ueBack.Op)
				assert.Equal(t, ue.URL, ueBack.URL)
				assert.Equal(t, ue.Err.Error(), ueBack.Err.Error())
				assert.Equal(t, errors.Is(ue.Err, io.EOF), errors.Is(ueBack.Err, io.EOF))
			}
			var ne, neBack net.Error
			assert.Equal(t, errors.As(tc.err, &ne) && ne.Timeout(), errors.As(rebuilt, &neBack) && neBack.Timeout(),
				"the first net.Error says Timeout")
		})
	}
}

// TestRulesAnswerAlikeThroughTemporal gives the stock rules each typed error
// three ways: through Driver.Run, through Run with the rules in the
// Reflector activity, and through Run with the rules in workflow code. The
// analyses (the rule that answered, its verdict and hint) and the outcomes
// must be the same.
func TestRulesAnswerAlikeThroughTemporal(t *testing.T) {
	stock := rules.New(rules.Defaults()...)
	for _, tc := range typedErrors(t) {
		t.Run(tc.name, func(t *testing.T) {
			outcomes := []reflectiontest.Outcome{reflectiontest.Error(tc.err), reflectiontest.Succeed("ok")}
			var want reflection.Report
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(outcomes...)
				d := reflection.NewDriver(reflection.WithReflector(stock))
				want, _ = d.RunWithReport(context.Background(), readCall, tool.Dispatch)
			})
			require.NotEmpty(t, want.Attempts)
			t.Logf("Driver.Run: %s %s", verdict(want.Attempts[0]), want.Outcome)

			for _, mode := range []struct {
				name string
				opts []rt.Option
			}{
				{"Reflector activity", nil},
				{"in workflow code", []rt.Option{rt.WithWorkflowReflector(stock)}},
			} {
				h := newHarness(t, reflectiontest.NewTool(outcomes...).Dispatch, stock)
				got := h.run(nil, readCall, mode.opts...)
				require.NotEmpty(t, got.rep.Attempts, mode.name)
				assert.Equal(t, verdict(want.Attempts[0]), verdict(got.rep.Attempts[0]), mode.name)
				assert.Equal(t, want.Outcome, got.rep.Outcome, mode.name)
				assert.Equal(t, len(want.Attempts), len(got.rep.Attempts), mode.name)
			}
		})
	}
}

// verdict is what a Reflector made of an attempt: the rule that answered
// (the analysis' Context), the verdict and the hint, or the error.
func verdict(a reflection.Attempt) string {
	if a.Analysis == nil {
		return "error: " + a.ReflectorError
	}
	return fmt.Sprintf("%s recoverable=%t severity=%s retry_after=%s",
		a.Analysis.Context, a.Analysis.IsRecoverable, a.Analysis.Severity, a.Analysis.RetryAfter)
}
