package reflectionlangchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
	"github.com/loopctl-go/reflection/reflectiontest"
)

const cannotRead = `adder: cannot read "two plus three": want "<a> + <b>"`

// TestCall runs a wrapped tool through a Driver, for each way a call ends.
func TestCall(t *testing.T) {
	high := reflection.FailureAnalysis{
		IsRecoverable: true, RootCause: "needs a human", Severity: reflection.SeverityHigh,
		Correction: &reflection.Correction{Type: reflection.Escalate},
	}
	tests := []struct {
		name    string
		driver  func(r reflection.Reflector) *reflection.Driver
		answers []reflection.FailureAnalysis
		input   string
		want    string
		wantRan []string
	}{
		{
			name:    "a success needs no Reflector",
			driver:  func(r reflection.Reflector) *reflection.Driver { return backoff(r) },
			answers: []reflection.FailureAnalysis{transient},
			input:   "2 + 3",
			want:    "5",
			wantRan: []string{"2 + 3"},
		},
		{
			name:    "an error recovers by InputFix",
			driver:  func(r reflection.Reflector) *reflection.Driver { return backoff(r) },
			answers: []reflection.FailureAnalysis{inputFix(reflection.TextInput("2 + 3"))},
			input:   "two plus three",
			want:    "5",
			wantRan: []string{"two plus three", "2 + 3"},
		},
		{
			name:   "an InputFix that is not {\"input\": text} fails without running the tool",
			driver: func(r reflection.Reflector) *reflection.Driver { return backoff(r) },
			answers: []reflection.FailureAnalysis{
				inputFix(json.RawMessage(`{"text":"2 + 3"}`)),
				inputFix(reflection.TextInput("2 + 3")),
			},
			input:   "two plus three",
			want:    "5",
			wantRan: []string{"two plus three", "2 + 3"},
		},
		{
			name:    "a soft failure is the observation",
			driver:  func(reflection.Reflector) *reflection.Driver { return reflection.NewDriver() },
			input:   "two plus three",
			want:    cannotRead,
			wantRan: []string{"two plus three"},
		},
		{
			name:    "AskUser is the observation",
			driver:  func(r reflection.Reflector) *reflection.Driver { return backoff(r) },
			answers: []reflection.FailureAnalysis{high},
			input:   "two plus three",
			want:    cannotRead + "\n\nA human decision is needed before this call can be retried: high-severity failure with correction available: needs a human",
			wantRan: []string{"two plus three"},
		},
		{
			name:    "exhaustion is the observation, with no error",
			driver:  func(r reflection.Reflector) *reflection.Driver { return retrying(r) },
			answers: []reflection.FailureAnalysis{transient},
			input:   "two plus three",
			want:    cannotRead,
			wantRan: []string{"two plus three", "two plus three", "two plus three", "two plus three", "two plus three", "two plus three"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &adder{}
			w := reflectionlangchaingo.WrapTool(tt.driver(reflectiontest.NewReflector(tt.answers...).RepeatLast()), tool)
			got, err := w.Call(context.Background(), tt.input)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantRan, tool.ran())
		})
	}
}

// TestInputFixMustBeTheExactEnvelope gives InputFixes whose key differs in
// case or repeats: encoding/json would read either as {"input": ...}, but
// neither is the root's envelope, so the tool never runs with them (the
// attempt fails with reflection.InputText's error, or the Driver drops the
// fix first) and the Reflector is told why.
func TestInputFixMustBeTheExactEnvelope(t *testing.T) {
	tool := &adder{}
	r := reflectiontest.NewReflector(
		inputFix(json.RawMessage(`{"Input":"2 + 3"}`)),
		inputFix(json.RawMessage(`{"input":"2 + 4","input":"2 + 3"}`)),
		inputFix(reflection.TextInput("2 + 3")),
	).RepeatLast()
	got, err := reflectionlangchaingo.WrapTool(backoff(r), tool).Call(context.Background(), "two plus three")
	require.NoError(t, err)
	assert.Equal(t, "5", got)
	assert.Equal(t, []string{"two plus three", "2 + 3"}, tool.ran())
	asked := r.Failures()
	require.Len(t, asked, 3)
	for _, f := range asked[1:] {
		assert.True(t, strings.HasPrefix(f.Error, reflection.ErrNotTextInput.Error()), f.Error)
	}
}

// TestCheckInputDropsAnotherShape gives a Driver CheckInput: an InputFix
// that is not {"input": text} is dropped before it costs a call, and the
// retry runs the input as it was.
func TestCheckInputDropsAnotherShape(t *testing.T) {
	tool := &adder{}
	r := reflectiontest.NewReflector(
		inputFix(json.RawMessage(`{"text":"2 + 3"}`)),
		inputFix(reflection.TextInput("2 + 3")),
	).RepeatLast()
	var dropped []string
	d := backoff(r, reflection.WithInputCheck(reflectionlangchaingo.CheckInput), reflection.WithObserver(reflection.Observer{
		Corrected: func(_ context.Context, _ int, _ reflection.Correction, applied bool, why string) {
			if !applied {
				dropped = append(dropped, why)
			}
		},
	}))
	got, err := reflectionlangchaingo.WrapTool(d, tool).Call(context.Background(), "two plus three")
	require.NoError(t, err)
	assert.Equal(t, "5", got)
	require.Len(t, dropped, 1)
	assert.Contains(t, dropped[0], "input check")
	assert.Equal(t, []string{"two plus three", "two plus three", "2 + 3"}, tool.ran())
}

// TestReflectorSeesTextInput checks what the Reflector is asked: the text
// input as {"input": text}, the task from ctx, and, with the wrapper's
// lookup, the tool's schema.
func TestReflectorSeesTextInput(t *testing.T) {
	tool := &adder{}
	r := reflectiontest.NewReflector(inputFix(reflection.TextInput("2 + 3"))).RepeatLast()
	w := reflectionlangchaingo.WrapTool(backoff(r, reflection.WithSchemas(reflectionlangchaingo.Schemas([]tools.Tool{tool}))), tool)
	ctx := reflection.ContextWithTask(context.Background(), "add two and three")
	got, err := w.Call(ctx, `two "plus" <three>`)
	require.NoError(t, err)
	assert.Equal(t, "5", got)

	asked := r.Failures()
	require.Len(t, asked, 1)
	assert.Equal(t, "adder", asked[0].Tool)
	assert.JSONEq(t, `{"input":"two \"plus\" <three>"}`, string(asked[0].Input))
	assert.Equal(t, "add two and three", asked[0].Task)
	require.NotNil(t, asked[0].Schema)
	assert.Equal(t, reflectionlangchaingo.Schema(tool), *asked[0].Schema)
	assert.JSONEq(t, `{
		"type": "object",
		"properties": {"input": {"type": "string", "description": "The text the tool takes."}},
		"required": ["input"],
		"additionalProperties": false
	}`, string(asked[0].Schema.InputSchema))
}

// TestToolChangeNeverRunsUnderAnotherName gives a wrapper a ToolChange: the
// wrapped tool never runs under the other name.
func TestToolChangeNeverRunsUnderAnotherName(t *testing.T) {
	giveUp := reflection.FailureAnalysis{IsRecoverable: false, RootCause: "no way forward"}

	for name, lookup := range map[string]reflection.SchemaLookup{
		"a shared Driver without a lookup": nil,
		"a Driver whose lookup knows the other tool": func(name string) (reflection.ToolSchema, bool) {
			return reflection.ToolSchema{Name: name}, true
		},
	} {
		t.Run(name+": the wrapper narrows it to its own tool", func(t *testing.T) {
			tool := &adder{}
			r := reflectiontest.NewReflector(toolChange("calculator"), giveUp).RepeatLast()
			shared := backoff(r, reflection.WithSchemas(lookup))
			got, err := reflectionlangchaingo.WrapTool(shared, tool).Call(context.Background(), "two plus three")
			require.NoError(t, err)
			assert.Equal(t, cannotRead, got)
			assert.Equal(t, []string{"two plus three", "two plus three"}, tool.ran(), "the retry ran adder again, under its own name")
			for _, f := range r.Failures() {
				assert.Equal(t, "adder", f.Tool)
				require.NotNil(t, f.Schema, "the Reflector sees the wrapper's schema")
				assert.Equal(t, "adder", f.Schema.Name)
			}
		})
	}
	t.Run("a Driver with the wrapper's lookup drops the ToolChange", func(t *testing.T) {
		tool := &adder{}
		r := reflectiontest.NewReflector(toolChange("calculator"), giveUp).RepeatLast()
		var dropped []string
		d := backoff(r, reflection.WithSchemas(reflectionlangchaingo.Schemas([]tools.Tool{tool})), reflection.WithObserver(reflection.Observer{
			Corrected: func(_ context.Context, _ int, _ reflection.Correction, applied bool, why string) {
				if !applied {
					dropped = append(dropped, why)
				}
			},
		}))
		got, err := reflectionlangchaingo.WrapTool(d, tool).Call(context.Background(), "two plus three")
		require.NoError(t, err)
		assert.Equal(t, cannotRead, got)
		require.Len(t, dropped, 1)
		assert.Contains(t, dropped[0], "not registered")
		assert.Equal(t, []string{"two plus three", "two plus three"}, tool.ran(), "the retry ran adder again")
		for _, f := range r.Failures() {
			assert.Equal(t, "adder", f.Tool)
		}
	})
}

// TestCallEndsWithCtx cancels a call while the tool runs: only then does
// Call return an error.
func TestCallEndsWithCtx(t *testing.T) {
	started := make(chan struct{})
	w := reflectionlangchaingo.WrapTool(retrying(reflectiontest.NewReflector(transient).RepeatLast()), waiter{started: started})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	got, err := w.Call(ctx, "anything")
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, got)
}

// TestCallDeadlineRefusal checks that a wait the Driver refuses because
// ctx's deadline comes first is a soft end: ctx has not ended.
func TestCallDeadlineRefusal(t *testing.T) {
	d := reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(transient).RepeatLast()),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{Delay: time.Hour}
		})),
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tool := &adder{}
	got, err := reflectionlangchaingo.WrapTool(d, tool).Call(ctx, "two plus three")
	require.NoError(t, err)
	assert.Equal(t, cannotRead, got)
	assert.Len(t, tool.ran(), 1)
}

// TestFailedOutput runs langchaingo's own Calculator, which reports a bad
// expression in its output with a nil error: WithFailedOutput makes that a
// failure the Driver recovers from.
func TestFailedOutput(t *testing.T) {
	isFailure := func(out string) bool { return strings.HasPrefix(out, "error from evaluator:") }
	r := reflectiontest.NewReflector(inputFix(reflection.TextInput("2 + 2"))).RepeatLast()

	got, err := reflectionlangchaingo.WrapTool(backoff(r), tools.Calculator{}, reflectionlangchaingo.WithFailedOutput(isFailure)).
		Call(context.Background(), "two + two")
	require.NoError(t, err)
	assert.Equal(t, "4", got)
	asked := r.Failures()
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0].Error, "error from evaluator: input:1:1: undefined: two")

	t.Run("without the option the output is a success", func(t *testing.T) {
		r := reflectiontest.NewReflector(inputFix(reflection.TextInput("2 + 2"))).RepeatLast()
		got, err := reflectionlangchaingo.WrapTool(backoff(r), tools.Calculator{}).Call(context.Background(), "two + two")
		require.NoError(t, err)
		assert.Contains(t, got, "error from evaluator:")
		assert.Empty(t, r.Failures())
	})
}

// TestWrap checks that wrapping keeps each tool's name, description and
// order, so an agent's prompt and its tool lookup stay as they were.
func TestWrap(t *testing.T) {
	ts := []tools.Tool{&adder{}, tools.Calculator{}}
	wrapped := reflectionlangchaingo.WrapTools(nil, ts)
	require.Len(t, wrapped, 2)
	for i, w := range wrapped {
		assert.Equal(t, ts[i].Name(), w.Name())
		assert.Equal(t, ts[i].Description(), w.Description())
		require.IsType(t, &reflectionlangchaingo.Tool{}, w)
		assert.Equal(t, ts[i], w.(*reflectionlangchaingo.Tool).Unwrap())
	}
	got, err := wrapped[1].Call(context.Background(), "6 * 7")
	require.NoError(t, err)
	assert.Equal(t, "42", got)
}

// TestNilContext checks that a nil ctx counts as context.Background().
func TestNilContext(t *testing.T) {
	var ctx context.Context
	got, err := reflectionlangchaingo.WrapTool(nil, &adder{}).Call(ctx, "2 + 3")
	require.NoError(t, err)
	assert.Equal(t, "5", got)
}

// TestNilTool checks the answers for a nil tool.
func TestNilTool(t *testing.T) {
	w := reflectionlangchaingo.WrapTool(nil, nil)
	_, err := w.Call(context.Background(), "x")
	require.ErrorIs(t, err, reflectionlangchaingo.ErrNilTool)
	assert.Empty(t, w.Name())
	assert.Equal(t, reflection.ToolSchema{}, reflectionlangchaingo.Schema(nil))
	_, ok := reflectionlangchaingo.Schemas([]tools.Tool{nil})("")
	assert.False(t, ok)
}

// TestSchemas checks that the lookup knows its own tools and no other.
func TestSchemas(t *testing.T) {
	lookup := reflectionlangchaingo.Schemas([]tools.Tool{&adder{}, nil, tools.Calculator{}})
	for _, tool := range []tools.Tool{&adder{}, tools.Calculator{}} {
		s, ok := lookup(tool.Name())
		require.True(t, ok, tool.Name())
		assert.Equal(t, reflectionlangchaingo.Schema(tool), s)
	}
	for _, other := range []string{"", "ADDER", "search"} {
		_, ok := lookup(other)
		assert.False(t, ok, other)
	}

	t.Run("of two tools with one name, the last, as the executor", func(t *testing.T) {
		s, ok := reflectionlangchaingo.Schemas([]tools.Tool{named{"adder", "first"}, named{"adder", "second"}})("adder")
		require.True(t, ok)
		assert.Equal(t, "second", s.Description)
	})
}

// named is a tool that is only a name and a description.
type named struct{ name, desc string }

func (n named) Name() string                                 { return n.name }
func (n named) Description() string                          { return n.desc }
func (n named) Call(context.Context, string) (string, error) { return "", nil }

// ctxKey keys the values a test puts in a context.
type ctxKey string

// ctxTool answers with the values its ctx carries.
type ctxTool struct{}

func (ctxTool) Name() string        { return "ctx" }
func (ctxTool) Description() string { return "Reads its context." }
func (ctxTool) Call(ctx context.Context, _ string) (string, error) {
	return fmt.Sprint(ctx.Value(ctxKey("host")), " ", ctx.Value(ctxKey("call")), " ", ctx.Value(ctxKey("attempt"))), nil
}

// TestCallRunsThroughTheDriversObserver checks that a tracer (the otel
// Observer) sees a wrapper's calls: the ctx that CallStart and AttemptStart
// return reaches the wrapped tool, with the caller's values, and Ended sees
// the call once.
func TestCallRunsThroughTheDriversObserver(t *testing.T) {
	var ended []reflection.CallEnd
	d := reflection.NewDriver(reflection.WithObserver(reflection.Observer{
		CallStart: func(ctx context.Context, call reflection.ToolCall) context.Context {
			return context.WithValue(ctx, ctxKey("call"), call.Name)
		},
		AttemptStart: func(ctx context.Context, attempt int, _ reflection.ToolCall) context.Context {
			return context.WithValue(ctx, ctxKey("attempt"), attempt)
		},
		Ended: func(_ context.Context, end reflection.CallEnd) { ended = append(ended, end) },
	}))
	ctx := context.WithValue(context.Background(), ctxKey("host"), "host")
	got, err := reflectionlangchaingo.WrapTool(d, ctxTool{}).Call(ctx, "go")
	require.NoError(t, err)
	assert.Equal(t, "host ctx 0", got)
	require.Len(t, ended, 1)
	assert.Equal(t, reflection.OutcomeSucceeded, ended[0].Outcome)
	assert.Equal(t, "host ctx 0", ended[0].Result.Content)
}
