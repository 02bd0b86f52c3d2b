package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
)

// brokenError is an error whose Error method panics.
type brokenError struct{}

func (brokenError) Error() string { panic("broken Error method") }

// TestBrokenHostValues checks that an error whose Error method panics (from
// the tool and from the Reflector) and a redactor that panics change nothing
// in how the call ends, and that every span still ends.
func TestBrokenHostValues(t *testing.T) {
	tests := []struct {
		name       string
		opts       []reflectionotel.Option
		wantStatus string // in the first attempt's status description
	}{
		{name: "no texts", wantStatus: ""},
		{name: "texts", opts: []reflectionotel.Option{reflectionotel.WithTexts(nil)}, wantStatus: "Error method panicked"},
		{
			name:       "panicking redactor",
			opts:       []reflectionotel.Option{reflectionotel.WithTexts(func(string) string { panic("redactor bug") })},
			wantStatus: "[redactor panicked; text withheld]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.opts...)
			brokenReflector := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, brokenError{}
			})
			call := reflection.ToolCall{ID: "b", Name: "job", Input: []byte(`{}`)}
			d := h.driver(reflection.WithReflector(brokenReflector))
			rep, err := d.RunWithReport(context.Background(), call, newTool(h.tp, failing(brokenError{})).dispatch)
			require.NoError(t, err)

			wantRes, wantErr := reflection.NewDriver(reflection.WithReflector(brokenReflector)).
				Run(context.Background(), call, newTool(h.tp, failing(brokenError{})).dispatch)
			require.NoError(t, wantErr)
			assert.Equal(t, wantRes, rep.Result)
			assert.Equal(t, reflection.OutcomeFailed, rep.Outcome)
			assert.NotContains(t, rep.Attempts[0].DispatchError, "panic:", "the Driver saw an error, not a panic of the wrapper")

			attempt := h.one(t, "execute_tool job")
			assert.Equal(t, codes.Error, attempt.Status().Code)
			assert.Equal(t, "github.com/loopctl-go/reflection/contrib/otel_test.brokenError", spanAttrs(attempt)["error.type"])
			if tt.wantStatus == "" {
				assert.Empty(t, attempt.Status().Description)
			} else {
				assert.Contains(t, attempt.Status().Description, tt.wantStatus)
			}
			assert.Len(t, eventsNamed(h.one(t, "reflection.run job"), "reflection.analysis"), 1)
		})
	}
}

// TestPanicWithTexts checks the status of a panicking tool's attempt when
// texts are on: the panic value, redacted.
func TestPanicWithTexts(t *testing.T) {
	h := newHarness(t, reflectionotel.WithTexts(reflection.RedactSecrets))
	tl := newTool(h.tp, func(reflection.ToolCall) (reflection.ToolResult, error) { panic("token=" + secret) })
	d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("bug", nil))),
		reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Fail{})))
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, tl.dispatch)
	require.NoError(t, err)
	assert.Equal(t, `tool "job" panicked: token=[REDACTED]`, h.one(t, "execute_tool job").Status().Description)
}

// loopError is an error whose Unwrap returns itself: errors.As never ends
// on it.
type loopError struct{}

func (e *loopError) Error() string { return "loops" }
func (e *loopError) Unwrap() error { return e }

// joinLoop is a tree of errors one branch of which loops.
type joinLoop struct{}

func (joinLoop) Error() string   { return "joined" }
func (joinLoop) Unwrap() []error { return []error{errors.New("fine"), &loopError{}} }

// TestLoopingErrorChain checks that an error chain that never ends is named
// "_OTHER" in error.type, where semconv.ErrorType alone would never return,
// and that the call ends as the Driver ends it.
func TestLoopingErrorChain(t *testing.T) {
	for _, err := range []error{&loopError{}, joinLoop{}, fmt.Errorf("wrapped: %w", &loopError{})} {
		t.Run(fmt.Sprintf("%T", err), func(t *testing.T) {
			h := newHarness(t)
			d := h.driver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, err
			})))
			_, runErr := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, failing(err)).dispatch)
			require.NoError(t, runErr)
			assert.Equal(t, "_OTHER", spanAttrs(h.one(t, "execute_tool job"))["error.type"])
			assert.Equal(t, "_OTHER", eventsNamed(h.one(t, "reflection.run job"), "reflection.analysis")[0]["error.type"])
		})
	}
}
