package reflectionotel_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
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

// namedError names itself for error.type.
type namedError struct{ name string }

func (e namedError) Error() string     { return "named" }
func (e namedError) ErrorType() string { return e.name }

// brokenName is an error whose ErrorType method panics.
type brokenName struct{}

func (brokenName) Error() string     { return "broken name" }
func (brokenName) ErrorType() string { panic("broken ErrorType method") }

// TestLoopingErrorChain checks error.type for error chains that never end,
// where semconv.ErrorType alone would never return, and for methods that
// panic: each is named (by its type, or by the ErrorType method the
// bounded walk reaches), and the call ends as the Driver ends it.
func TestLoopingErrorChain(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&loopError{}, "*reflectionotel_test.loopError"},
		{joinLoop{}, "github.com/loopctl-go/reflection/contrib/otel_test.joinLoop"},
		{fmt.Errorf("wrapped: %w", &loopError{}), "*reflectionotel_test.loopError"},
		{fmt.Errorf("wrapped: %w", namedError{"quota"}), "quota"},
		{errors.Join(&loopError{}, namedError{"late"}), "*errors.joinError"}, // the walk ends in the loop first
		{fmt.Errorf("wrapped: %w", namedError{}), "github.com/loopctl-go/reflection/contrib/otel_test.namedError"},
		{brokenName{}, "_OTHER"},
		{(*fs.PathError)(nil), "*fs.PathError"}, // its Unwrap panics: semconv.ErrorType would too
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			h := newHarness(t)
			d := h.driver(reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return reflection.FailureAnalysis{}, tt.err
			})))
			_, runErr := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, failing(tt.err)).dispatch)
			require.NoError(t, runErr)
			assert.Equal(t, tt.want, spanAttrs(h.one(t, "execute_tool job"))["error.type"])
			assert.Equal(t, tt.want, eventsNamed(h.one(t, "reflection.run job"), "reflection.analysis")[0]["error.type"])
		})
	}
}

// TestErrorTypeAsSemconv checks that an error whose chain ends is named as
// semconv.ErrorType names it.
func TestErrorTypeAsSemconv(t *testing.T) {
	for _, err := range []error{
		errors.New("plain"),
		fmt.Errorf("one: %w", errors.New("plain")),
		fmt.Errorf("two: %w", fmt.Errorf("one: %w", context.Canceled)),
		fmt.Errorf("both: %w %w", errors.New("a"), errors.New("b")),
		fmt.Errorf("no wrap: %v", errors.New("a")),
		errors.Join(errors.New("a"), namedError{"joined"}),
		namedError{"direct"},
		fmt.Errorf("empty name: %w", namedError{}),
		brokenError{},
		context.DeadlineExceeded,
	} {
		t.Run(fmt.Sprintf("%T", err), func(t *testing.T) {
			h := newHarness(t)
			d := h.driver(reflection.WithReflector(transient), reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Fail{})))
			_, runErr := d.Run(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, failing(err)).dispatch)
			require.NoError(t, runErr)
			assert.Equal(t, semconv.ErrorType(err).Value.AsString(), spanAttrs(h.one(t, "execute_tool job"))["error.type"])
		})
	}
}
