package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// Host errors of the kinds a Reflector checks.
type (
	awsStyleError  struct{ status int }
	netTimeout     struct{}
	panickyError   struct{}
	panickyHint    struct{}
	negativeHint   struct{}
	strangeStatus  struct{}
	notATimeoutErr struct{}
)

func (e awsStyleError) Error() string       { return fmt.Sprintf("api error: status %d", e.status) }
func (e awsStyleError) HTTPStatusCode() int { return e.status }

func (netTimeout) Error() string   { return "dial tcp 10.0.0.1:443: i/o timeout" }
func (netTimeout) Timeout() bool   { return true }
func (netTimeout) Temporary() bool { return true }

func (panickyError) Error() string { panic("broken Error") }

func (panickyHint) Error() string             { return "throttled" }
func (panickyHint) RetryAfter() time.Duration { panic("broken RetryAfter") }

func (negativeHint) Error() string             { return "throttled" }
func (negativeHint) RetryAfter() time.Duration { return -time.Second }

func (strangeStatus) Error() string   { return "odd" }
func (strangeStatus) StatusCode() int { return 42 }

func (notATimeoutErr) Error() string { return "slow" }
func (notATimeoutErr) Timeout() bool { return false }

func TestNewErrorData(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want *rt.ErrorData
	}{
		{"nil", nil, nil},
		{"plain", errors.New("boom"), &rt.ErrorData{Text: "boom"}},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded),
			&rt.ErrorData{Text: "call: context deadline exceeded", Timeout: true, Is: []string{"deadline_exceeded"}}},
		{"canceled", fmt.Errorf("call: %w", context.Canceled),
			&rt.ErrorData{Text: "call: context canceled", Is: []string{"canceled"}}},
		{"permission", &os.PathError{Op: "open", Path: "/etc/shadow", Err: os.ErrPermission},
			&rt.ErrorData{Text: "open /etc/shadow: permission denied", Is: []string{"permission"}}},
		{"not exist", &fs.PathError{Op: "stat", Path: "x", Err: fs.ErrNotExist},
			&rt.ErrorData{Text: "stat x: file does not exist", Is: []string{"not_exist"}}},
		{"rate limited", fmt.Errorf("get quote: %w", rateLimited{after: 30 * time.Second}),
			&rt.ErrorData{Text: "get quote: 429 too many requests (retry after 30s)", RetryAfter: 30 * time.Second, StatusCode: 429}},
		{"HTTPStatusCode", awsStyleError{status: 503}, &rt.ErrorData{Text: "api error: status 503", StatusCode: 503}},
		{"a status out of range", strangeStatus{}, &rt.ErrorData{Text: "odd"}},
		{"net timeout", &net.OpError{Op: "dial", Net: "tcp", Err: netTimeout{}},
			&rt.ErrorData{Text: "dial tcp: dial tcp 10.0.0.1:443: i/o timeout", Timeout: true}},
		{"Timeout false", notATimeoutErr{}, &rt.ErrorData{Text: "slow"}},
		{"reflector sentinels", fmt.Errorf("model: %w", errors.Join(reflection.ErrSkipped, reflection.ErrInternal)),
			&rt.ErrorData{Text: "model: reflection: reflector skipped analysis\nreflection: internal reflector error", Is: []string{"skipped", "internal"}}},
		{"a panicking Error", panickyError{},
			&rt.ErrorData{Text: "reflectiontemporal_test.panickyError error whose Error method panicked: broken Error"}},
		{"a panicking RetryAfter", panickyHint{}, &rt.ErrorData{Text: "throttled"}},
		{"a negative hint", negativeHint{}, &rt.ErrorData{Text: "throttled"}},
		{"no effect", fmt.Errorf("refused before sending: %w", reflection.ErrNoEffect),
			&rt.ErrorData{Text: "refused before sending: reflection: the attempt had no effect", Is: []string{"no_effect"}}},
		{"input rejected", fmt.Errorf("bad account: %w", reflection.ErrInputRejected),
			&rt.ErrorData{Text: "bad account: reflection: the tool rejected the input", Is: []string{"no_effect", "input_rejected"}}},
		{"joined: one error had no effect, one may have acted", errors.Join(reflection.ErrNoEffect, errors.New("sent, then the reply was lost")),
			&rt.ErrorData{Text: "reflection: the attempt had no effect\nsent, then the reply was lost"}},
		{"joined: every error had no effect", errors.Join(reflection.ErrNoEffect, reflection.ErrInputRejected),
			&rt.ErrorData{Text: "reflection: the attempt had no effect\nreflection: the tool rejected the input", Is: []string{"no_effect", "input_rejected"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rt.NewErrorData(tc.err)
			assert.Equal(t, tc.want, got)

			// The data survives JSON, and the rebuilt error answers what
			// the original did.
			b, err := json.Marshal(got)
			require.NoError(t, err)
			var back *rt.ErrorData
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, got, back)
			rebuilt := back.Rebuild()
			if tc.err == nil {
				assert.Nil(t, rebuilt)
				return
			}
			assert.EqualError(t, rebuilt, got.Text)
			for _, target := range []error{context.DeadlineExceeded, context.Canceled, os.ErrPermission,
				fs.ErrNotExist, reflection.ErrPanicked, reflection.ErrSkipped, reflection.ErrInternal} {
				if errors.Is(tc.err, target) {
					assert.ErrorIs(t, rebuilt, target)
				} else {
					assert.NotErrorIs(t, rebuilt, target)
				}
			}
			var remote *rt.RemoteError
			require.ErrorAs(t, rebuilt, &remote)
			assert.Equal(t, *got, remote.Data())

			// A method is there exactly when its value is: a type check
			// answers as it did on the original.
			var hinted interface{ RetryAfter() time.Duration }
			if assert.Equal(t, got.RetryAfter > 0, errors.As(rebuilt, &hinted), "RetryAfter method") && got.RetryAfter > 0 {
				assert.Equal(t, got.RetryAfter, hinted.RetryAfter())
			}
			var coded interface{ StatusCode() int }
			if assert.Equal(t, got.StatusCode != 0, errors.As(rebuilt, &coded), "StatusCode method") && got.StatusCode != 0 {
				assert.Equal(t, got.StatusCode, coded.StatusCode())
			}
			var ne net.Error
			if assert.Equal(t, got.Timeout, errors.As(rebuilt, &ne), "a net.Error") && got.Timeout {
				assert.True(t, ne.Timeout())
				assert.EqualError(t, ne, got.Text)
			}
		})
	}
}

func TestRemoteErrorIgnoresUnknownNames(t *testing.T) {
	d := &rt.ErrorData{Text: "x", Is: []string{"from_a_later_version", "permission"}}
	assert.ErrorIs(t, d.Rebuild(), os.ErrPermission)
	assert.NotErrorIs(t, d.Rebuild(), fs.ErrNotExist)
}

func TestRemoteErrorDataIsACopy(t *testing.T) {
	d := &rt.ErrorData{Text: "x", Is: []string{"permission"}}
	var remote *rt.RemoteError
	require.ErrorAs(t, d.Rebuild(), &remote)
	data := remote.Data()
	data.Is[0] = "not_exist"
	assert.ErrorIs(t, remote, os.ErrPermission)
	d.Is[0] = "not_exist"
	assert.ErrorIs(t, remote, os.ErrPermission, "Rebuild copied the data")
}

// selfWrapping is an error whose Unwrap returns itself: a plain errors.Is
// on it never returns.
type selfWrapping struct{}

func (*selfWrapping) Error() string   { return "loops" }
func (e *selfWrapping) Unwrap() error { return e }

// TestNewErrorDataEndsOnALoop: an error chain that loops hung the activity
// that reported it (its sentinel, errno, DNS and URL checks walked the chain
// with errors.Is and errors.As); every walk is bounded now, so this returns.
func TestNewErrorDataEndsOnALoop(t *testing.T) {
	d := rt.NewErrorData(fmt.Errorf("dial: %w", &selfWrapping{}))
	assert.Equal(t, "dial: loops", d.Text)
	assert.Empty(t, d.Is)
	assert.Nil(t, d.DNS)
	assert.Nil(t, d.URL)
}
