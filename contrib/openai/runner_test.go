package reflectionopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noWait retries at once, up to n times.
func noWait(n int) reflection.RecoveryStrategy {
	return reflection.NewExponentialBackoff(n).WithBaseDelay(0)
}

// fixes is a scripted Reflector: every failure is recoverable, with the
// correction correct returns for it (nil for none).
func fixes(correct func(f reflection.Failure) *reflection.Correction) reflection.Reflector {
	return reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow, Correction: correct(f)}, nil
	})
}

// recorder is a dispatch func over a few tools that records every call.
type recorder struct {
	mu    sync.Mutex
	calls []reflection.ToolCall
	files map[string]string
}

func newRecorder() *recorder {
	return &recorder{files: map[string]string{"docs/notes.md": "ship on friday"}}
}

func (r *recorder) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	fail := func(text string) (reflection.ToolResult, error) {
		return reflection.ToolResult{ID: call.ID, Content: text, IsError: true}, nil
	}
	switch call.Name {
	case "read_file":
		var in struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return fail("read_file: bad input: " + err.Error())
		}
		body, ok := r.files[in.Path]
		if !ok {
			return fail("open " + in.Path + ": no such file or directory")
		}
		return reflection.ToolResult{ID: call.ID, Content: body}, nil
	case "read_file_v1":
		return fail("read_file_v1 was removed; use read_file")
	case "run_sql":
		query, err := reflection.InputText(call.Input)
		if err != nil {
			return fail(err.Error())
		}
		if !strings.HasPrefix(query, "SELECT ") {
			return fail(fmt.Sprintf("syntax error at or near %q", strings.Fields(query + " ?")[0]))
		}
		return reflection.ToolResult{ID: call.ID, Content: "1 row: 42"}, nil
	default:
		return reflection.ToolResult{}, fmt.Errorf("unknown tool %q", call.Name)
	}
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.Name + " " + string(c.Input)
	}
	return out
}

// messagesJSON marshals tool messages as they go on the wire.
func messagesJSON(t testing.TB, msgs []openai.ChatCompletionMessageParamUnion) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	return string(b)
}

func TestRunnerRecovers(t *testing.T) {
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{readFileTool(), sqlTool()})
	require.NoError(t, err)

	tests := []struct {
		name    string
		call    map[string]any
		correct func(reflection.Failure) *reflection.Correction
		want    string // the tool message's content
		seen    []string
	}{
		{
			name: "function call by InputFix",
			call: functionCall("call_1", "read_file", `{"path":"doc/notes.md"}`),
			correct: func(reflection.Failure) *reflection.Correction {
				return &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"docs/notes.md"}`)}
			},
			want: "ship on friday",
			seen: []string{`read_file {"path":"doc/notes.md"}`, `read_file {"path":"docs/notes.md"}`},
		},
		{
			name: "function call by ToolChange",
			call: functionCall("call_1", "read_file_v1", `{"path":"docs/notes.md"}`),
			correct: func(reflection.Failure) *reflection.Correction {
				return &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "read_file"}
			},
			want: "ship on friday",
			seen: []string{`read_file_v1 {"path":"docs/notes.md"}`, `read_file {"path":"docs/notes.md"}`},
		},
		{
			name: "custom tool call by InputFix of its text",
			call: customCall("call_1", "run_sql", "SELEC 42"),
			correct: func(f reflection.Failure) *reflection.Correction {
				return &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"input":"SELECT 42"}`)}
			},
			want: "1 row: 42",
			seen: []string{`run_sql {"input":"SELEC 42"}`, `run_sql {"input":"SELECT 42"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := newRecorder()
			var failures []reflection.Failure
			reflector := fixes(func(f reflection.Failure) *reflection.Correction {
				failures = append(failures, f)
				return tt.correct(f)
			})
			d := reflection.NewDriver(reflection.WithReflector(reflector), reflection.WithStrategy(noWait(3)), reflection.WithSchemas(lookup))
			msgs, err := reflectionopenai.NewRunner(d, tools.dispatch).Run(context.Background(), assistantMessage(t, tt.call))
			require.NoError(t, err)
			want, _ := json.Marshal([]map[string]any{{"role": "tool", "tool_call_id": "call_1", "content": tt.want}})
			assert.JSONEq(t, string(want), messagesJSON(t, msgs))
			assert.Equal(t, tt.seen, tools.seen())
			require.Len(t, failures, 1)
			if failures[0].Tool != "read_file_v1" {
				require.NotNil(t, failures[0].Schema, "the Reflector sees the schema built from the tool definitions")
			}
		})
	}
}

func TestRunnerTheReflectorSeesTheCustomToolsGeneratedSchema(t *testing.T) {
	lookup, err := reflectionopenai.Schemas([]openai.ChatCompletionToolUnionParam{sqlTool()})
	require.NoError(t, err)
	var got reflection.Failure
	reflector := reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		got = f
		return reflection.FailureAnalysis{RootCause: f.Error}, nil
	})
	d := reflection.NewDriver(reflection.WithReflector(reflector), reflection.WithSchemas(lookup))
	_, err = reflectionopenai.NewRunner(d, newRecorder().dispatch).Run(context.Background(), assistantMessage(t, customCall("c", "run_sql", "DROP TABLE t")))
	require.NoError(t, err)
	assert.Equal(t, "run_sql", got.Tool)
	assert.JSONEq(t, `{"input":"DROP TABLE t"}`, string(got.Input))
	require.NotNil(t, got.Schema)
	assert.Equal(t, "Run one read-only SQL query", got.Schema.Description)
	assert.Contains(t, string(got.Schema.InputSchema), `"required":["input"]`)
}

func TestRunnerSoftResultsKeepTheTurnGoing(t *testing.T) {
	tests := []struct {
		name     string
		driver   *reflection.Driver
		want     string
		dispatch int
	}{
		{
			name:     "Fail from the default Driver",
			driver:   reflection.NewDriver(),
			want:     "open doc/notes.md: no such file or directory",
			dispatch: 1,
		},
		{
			name:     "a nil Driver behaves like the default",
			driver:   nil,
			want:     "open doc/notes.md: no such file or directory",
			dispatch: 1,
		},
		{
			name: "AskUser",
			driver: reflection.NewDriver(
				reflection.WithReflector(fixes(func(reflection.Failure) *reflection.Correction { return nil })),
				reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
					return reflection.AskUser{Prompt: "which file did you mean?"}
				})),
			),
			want:     "which file did you mean?",
			dispatch: 1,
		},
		{
			name: "exhaustion: the sixth failure is the tool's output",
			driver: reflection.NewDriver(
				reflection.WithReflector(fixes(func(reflection.Failure) *reflection.Correction { return nil })),
				reflection.WithStrategy(noWait(10)),
			),
			want:     "open doc/notes.md: no such file or directory",
			dispatch: reflection.MaxRecoveryAttempts + 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := newRecorder()
			msgs, err := reflectionopenai.NewRunner(tt.driver, tools.dispatch).Run(context.Background(),
				assistantMessage(t, functionCall("call_1", "read_file", `{"path":"doc/notes.md"}`)))
			require.NoError(t, err, "a soft result is never an error that aborts the agent")
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].OfTool)
			assert.Equal(t, "call_1", msgs[0].OfTool.ToolCallID)
			assert.Contains(t, msgs[0].OfTool.Content.OfString.Value, tt.want)
			assert.Len(t, tools.seen(), tt.dispatch)
		})
	}
}

func TestRunCallsKeepsIsError(t *testing.T) {
	results, err := reflectionopenai.NewRunner(nil, newRecorder().dispatch).RunCalls(context.Background(), []reflection.ToolCall{
		{ID: "a", Name: "read_file", Input: json.RawMessage(`{"path":"docs/notes.md"}`)},
		{ID: "b", Name: "read_file", Input: json.RawMessage(`{"path":"nope"}`)},
		{ID: "c", Name: "teleport", Input: json.RawMessage(`{}`)},
	})
	require.NoError(t, err)
	assert.Equal(t, []reflection.ToolResult{
		{ID: "a", Content: "ship on friday"},
		{ID: "b", Content: "open nope: no such file or directory", IsError: true},
		{ID: "c", Content: `unknown tool "teleport"`, IsError: true},
	}, results)
}

func TestRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tools := newRecorder()
	dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		if call.ID == "call_2" {
			cancel() // the user gives up while the second call runs
		}
		return tools.dispatch(ctx, call)
	}
	d := reflection.NewDriver(reflection.WithReflector(fixes(func(reflection.Failure) *reflection.Correction { return nil })), reflection.WithStrategy(noWait(3)))
	msgs, err := reflectionopenai.NewRunner(d, dispatch).Run(ctx, assistantMessage(t,
		functionCall("call_1", "read_file", `{"path":"docs/notes.md"}`),
		functionCall("call_2", "read_file", `{"path":"doc/notes.md"}`),
		functionCall("call_3", "read_file", `{"path":"docs/notes.md"}`),
	))
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), `"call_2"`, "the error names the call that stopped")
	require.Len(t, msgs, 3, "every call is still answered")
	assert.Equal(t, "ship on friday", msgs[0].OfTool.Content.OfString.Value)
	assert.Equal(t, "open doc/notes.md: no such file or directory", msgs[1].OfTool.Content.OfString.Value)
	assert.Equal(t, "call_3", msgs[2].OfTool.ToolCallID)
	assert.Contains(t, msgs[2].OfTool.Content.OfString.Value, "context canceled")
	assert.Len(t, tools.seen(), 2, "nothing runs after the cancel")
}

func TestRunnerAHardErrorWhileCtxLivesIsTheToolsOutput(t *testing.T) {
	// The strategy wants a wait that cannot end before ctx's deadline: the
	// Driver refuses at once with a deadline error, but ctx has not ended, so
	// the turn goes on with the failure text.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	d := reflection.NewDriver(
		reflection.WithReflector(fixes(func(reflection.Failure) *reflection.Correction { return nil })),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{Delay: 2 * time.Hour}
		})),
	)
	msgs, err := reflectionopenai.NewRunner(d, newRecorder().dispatch).Run(ctx, assistantMessage(t, functionCall("call_1", "read_file", `{"path":"x"}`)))
	require.NoError(t, err)
	assert.Equal(t, "open x: no such file or directory", msgs[0].OfTool.Content.OfString.Value)
}

func TestRunnerAnswersAnUnsupportedCallWithoutRunningIt(t *testing.T) {
	tools := newRecorder()
	msgs, err := reflectionopenai.NewRunner(nil, tools.dispatch, reflectionopenai.WithConcurrency(4)).Run(context.Background(), assistantMessage(t,
		map[string]any{"id": "call_h", "type": "hologram"},
		functionCall("call_f", "read_file", `{"path":"docs/notes.md"}`),
	))
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, "call_h", msgs[0].OfTool.ToolCallID)
	assert.Contains(t, msgs[0].OfTool.Content.OfString.Value, `unsupported tool call type "hologram"`)
	assert.Equal(t, "ship on friday", msgs[1].OfTool.Content.OfString.Value)
	assert.Equal(t, []string{`read_file {"path":"docs/notes.md"}`}, tools.seen())
}

func TestRunnerWithoutToolCalls(t *testing.T) {
	tools := newRecorder()
	msgs, err := reflectionopenai.NewRunner(nil, tools.dispatch).Run(context.Background(), openai.ChatCompletionMessage{Content: "all done"})
	require.NoError(t, err)
	assert.Empty(t, msgs)
	assert.Empty(t, tools.seen())
}

func TestRunnerWithoutDispatch(t *testing.T) {
	r := reflectionopenai.NewRunner(nil, nil)
	msgs, err := r.Run(context.Background(), assistantMessage(t, functionCall("c", "read_file", `{}`)))
	require.ErrorIs(t, err, reflection.ErrNilDispatch)
	assert.Nil(t, msgs)
	_, err = r.Run(context.Background(), openai.ChatCompletionMessage{})
	require.ErrorIs(t, err, reflection.ErrNilDispatch)
	results, err := r.RunCalls(context.Background(), []reflection.ToolCall{{ID: "c"}})
	require.ErrorIs(t, err, reflection.ErrNilDispatch)
	assert.Nil(t, results)
}

func TestRunnerNilContextAndNilOption(t *testing.T) {
	tools := newRecorder()
	var nilCtx context.Context // counts as context.Background(), as for Driver.Run
	msgs, err := reflectionopenai.NewRunner(nil, tools.dispatch, nil).Run(nilCtx,
		assistantMessage(t, functionCall("c", "read_file", `{"path":"docs/notes.md"}`)))
	require.NoError(t, err)
	assert.Equal(t, "ship on friday", msgs[0].OfTool.Content.OfString.Value)
}

// manyCalls is an assistant message with n function calls call_0..call_n-1.
func manyCalls(t testing.TB, n int) openai.ChatCompletionMessage {
	calls := make([]map[string]any, n)
	for i := range calls {
		calls[i] = functionCall(fmt.Sprintf("call_%d", i), "work", fmt.Sprintf(`{"n":%d}`, i))
	}
	return assistantMessage(t, calls...)
}

func callNumber(call reflection.ToolCall) int {
	var in struct{ N int }
	_ = json.Unmarshal(call.Input, &in)
	return in.N
}

func TestRunnerRunsCallsConcurrentlyAndAnswersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 4
		// Call i may end only after call i+1 has ended, so they end in
		// reverse order, and each waits for all of them to have started: one
		// after another, this would deadlock, which synctest reports.
		var started sync.WaitGroup
		started.Add(n)
		done := make([]chan struct{}, n+1)
		for i := range done {
			done[i] = make(chan struct{})
		}
		close(done[n])
		dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			i := callNumber(call)
			started.Done()
			started.Wait()
			<-done[i+1]
			defer close(done[i])
			return reflection.ToolResult{ID: call.ID, Content: fmt.Sprintf("result %d", i)}, nil
		}
		msgs, err := reflectionopenai.NewRunner(nil, dispatch, reflectionopenai.WithConcurrency(n)).Run(context.Background(), manyCalls(t, n))
		require.NoError(t, err)
		require.Len(t, msgs, n)
		for i, m := range msgs {
			assert.Equal(t, fmt.Sprintf("call_%d", i), m.OfTool.ToolCallID)
			assert.Equal(t, fmt.Sprintf("result %d", i), m.OfTool.Content.OfString.Value)
		}
	})
}

func TestRunnerConcurrencyLimit(t *testing.T) {
	tests := []struct {
		name  string
		opts  []reflectionopenai.Option
		calls int
		want  int32
		order bool // calls start in the model's order
	}{
		{name: "default runs one after another", calls: 5, want: 1, order: true},
		{name: "WithConcurrency(1)", opts: []reflectionopenai.Option{reflectionopenai.WithConcurrency(1)}, calls: 5, want: 1, order: true},
		{name: "WithConcurrency(0) counts as 1", opts: []reflectionopenai.Option{reflectionopenai.WithConcurrency(0)}, calls: 5, want: 1, order: true},
		{name: "WithConcurrency(-3) counts as 1", opts: []reflectionopenai.Option{reflectionopenai.WithConcurrency(-3)}, calls: 5, want: 1, order: true},
		{name: "WithConcurrency(2)", opts: []reflectionopenai.Option{reflectionopenai.WithConcurrency(2)}, calls: 5, want: 2},
		{name: "more room than calls", opts: []reflectionopenai.Option{reflectionopenai.WithConcurrency(16)}, calls: 3, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight, most atomic.Int32
				var mu sync.Mutex
				var order []int
				dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
					mu.Lock()
					order = append(order, callNumber(call))
					mu.Unlock()
					now := inFlight.Add(1)
					for {
						m := most.Load()
						if now <= m || most.CompareAndSwap(m, now) {
							break
						}
					}
					time.Sleep(time.Second) // the fake clock of the bubble
					inFlight.Add(-1)
					return reflection.ToolResult{ID: call.ID, Content: "ok"}, nil
				}
				msgs, err := reflectionopenai.NewRunner(nil, dispatch, tt.opts...).Run(context.Background(), manyCalls(t, tt.calls))
				require.NoError(t, err)
				assert.Len(t, msgs, tt.calls)
				assert.Equal(t, tt.want, most.Load())
				if tt.order {
					assert.Equal(t, []int{0, 1, 2, 3, 4}[:tt.calls], order)
				}
			})
		})
	}
}

func TestRunnerConcurrentRecoveries(t *testing.T) {
	// Every call fails once with a wrong path and recovers by InputFix, all
	// at once: results stay with their calls.
	const n = 16
	tools := newRecorder()
	for i := range n {
		tools.files[fmt.Sprintf("docs/%d.md", i)] = fmt.Sprintf("file %d", i)
	}
	reflector := fixes(func(f reflection.Failure) *reflection.Correction {
		fixed := strings.Replace(string(f.Input), "doc/", "docs/", 1)
		return &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(fixed)}
	})
	d := reflection.NewDriver(reflection.WithReflector(reflector), reflection.WithStrategy(noWait(2)))
	calls := make([]map[string]any, n)
	for i := range calls {
		calls[i] = functionCall(fmt.Sprintf("call_%d", i), "read_file", fmt.Sprintf(`{"path":"doc/%d.md"}`, i))
	}
	msgs, err := reflectionopenai.NewRunner(d, tools.dispatch, reflectionopenai.WithConcurrency(4)).Run(context.Background(), assistantMessage(t, calls...))
	require.NoError(t, err)
	require.Len(t, msgs, n)
	for i, m := range msgs {
		assert.Equal(t, fmt.Sprintf("call_%d", i), m.OfTool.ToolCallID)
		assert.Equal(t, fmt.Sprintf("file %d", i), m.OfTool.Content.OfString.Value)
	}
	assert.Len(t, tools.seen(), 2*n)
}

func TestRunnerConcurrentCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var started atomic.Int32
		dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
			if started.Add(1) == 2 {
				cancel()
			}
			<-ctx.Done() // a tool that honours its context
			return reflection.ToolResult{}, ctx.Err()
		}
		msgs, err := reflectionopenai.NewRunner(nil, dispatch, reflectionopenai.WithConcurrency(2)).Run(ctx, manyCalls(t, 6))
		require.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), `"call_0"`, "the first stopped call in the model's order")
		require.Len(t, msgs, 6)
		for i, m := range msgs {
			assert.Equal(t, fmt.Sprintf("call_%d", i), m.OfTool.ToolCallID)
			assert.Contains(t, m.OfTool.Content.OfString.Value, "context canceled")
		}
		assert.EqualValues(t, 2, started.Load(), "no call starts after the cancel")
	})
}

func TestRunnerRaisesAPanicOfAnotherGoroutineOnTheCaller(t *testing.T) {
	// A panic in an Observer hook is the host's: the Driver does not recover
	// it. On a Runner goroutine it must reach the caller, not crash the
	// process, and every other goroutine must have ended first.
	var ran atomic.Int32
	d := reflection.NewDriver(reflection.WithObserver(reflection.Observer{
		DispatchStart: func(_ context.Context, _ int, call reflection.ToolCall) {
			if call.ID == "call_2" {
				panic("observer broke")
			}
		},
	}))
	dispatch := func(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		ran.Add(1)
		return reflection.ToolResult{ID: call.ID, Content: "ok"}, nil
	}
	r := reflectionopenai.NewRunner(d, dispatch, reflectionopenai.WithConcurrency(3))
	assert.PanicsWithValue(t, "observer broke", func() { _, _ = r.Run(context.Background(), manyCalls(t, 6)) })
	assert.GreaterOrEqual(t, ran.Load(), int32(2))
}

func TestRunnerErrorWrapsTheCause(t *testing.T) {
	cause := errors.New("user closed the tab")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := reflectionopenai.NewRunner(nil, newRecorder().dispatch).Run(ctx, assistantMessage(t, functionCall("c", "read_file", `{}`)))
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, cause)
	assert.True(t, strings.HasPrefix(err.Error(), "reflectionopenai: "), err.Error())
}

// ctxKey keys the values a test puts in a context.
type ctxKey string

func TestRunnerRunsEveryCallThroughTheDriversObserver(t *testing.T) {
	// A tracer (the otel Observer) carries its span in the ctx that CallStart
	// and AttemptStart return: each dispatch must receive it, with the
	// caller's values, and Ended must see each call once.
	for _, opts := range [][]reflectionopenai.Option{nil, {reflectionopenai.WithConcurrency(3)}} {
		t.Run(fmt.Sprintf("%d options", len(opts)), func(t *testing.T) {
			var mu sync.Mutex
			var ended []string
			d := reflection.NewDriver(reflection.WithObserver(reflection.Observer{
				CallStart: func(ctx context.Context, call reflection.ToolCall) context.Context {
					return context.WithValue(ctx, ctxKey("call"), call.ID)
				},
				AttemptStart: func(ctx context.Context, attempt int, _ reflection.ToolCall) context.Context {
					return context.WithValue(ctx, ctxKey("attempt"), attempt)
				},
				Ended: func(ctx context.Context, end reflection.CallEnd) {
					mu.Lock()
					defer mu.Unlock()
					ended = append(ended, fmt.Sprint(ctx.Value(ctxKey("call")), " ", end.Outcome))
				},
			}))
			dispatch := func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
				got := fmt.Sprint(ctx.Value(ctxKey("host")), " ", ctx.Value(ctxKey("call")), " ", ctx.Value(ctxKey("attempt")))
				return reflection.ToolResult{ID: call.ID, Content: got}, nil
			}
			ctx := context.WithValue(context.Background(), ctxKey("host"), "host")
			msgs, err := reflectionopenai.NewRunner(d, dispatch, opts...).Run(ctx, assistantMessage(t,
				functionCall("call_0", "work", `{}`), customCall("call_1", "run_sql", "SELECT 1"), functionCall("call_2", "work", `{}`)))
			require.NoError(t, err)
			for i, m := range msgs {
				assert.Equal(t, fmt.Sprintf("host call_%d 0", i), m.OfTool.Content.OfString.Value)
			}
			assert.ElementsMatch(t, []string{"call_0 succeeded", "call_1 succeeded", "call_2 succeeded"}, ended)
		})
	}
}
