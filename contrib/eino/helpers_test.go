package reflectioneino_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// TestMain fails the package when a test leaves a goroutine behind: neither
// the adapter nor eino's graphs may outlive the call that ran them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ---- tools

// textTool is an InvokableTool whose behaviour a test scripts; it records
// the arguments of every call.
type textTool struct {
	info *schema.ToolInfo
	run  func(ctx context.Context, args string) (string, error)

	mu    sync.Mutex
	calls []string
}

func newTextTool(name string, run func(ctx context.Context, args string) (string, error)) *textTool {
	return &textTool{
		info: &schema.ToolInfo{
			Name: name,
			Desc: "the " + name + " tool",
			ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
				"city": {Type: schema.String, Desc: "a city", Required: true},
			}),
		},
		run: run,
	}
}

func (t *textTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *textTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	t.mu.Lock()
	t.calls = append(t.calls, args)
	t.mu.Unlock()
	return t.run(ctx, args)
}

// Calls returns the arguments of every call so far.
func (t *textTool) Calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.calls...)
}

// city decodes the city argument; a tool fails on anything else.
func city(args string) (string, error) {
	var in struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", fmt.Errorf("bad arguments: %w", err)
	}
	return in.City, nil
}

// weatherTool knows the weather of Paris only.
func weatherTool() *textTool {
	return newTextTool("weather", func(_ context.Context, args string) (string, error) {
		c, err := city(args)
		if err != nil {
			return "", err
		}
		if c != "Paris" {
			return "", fmt.Errorf("no such city: %q", c)
		}
		return "sunny in Paris", nil
	})
}

// failingTool always fails with text.
func failingTool(name, text string) *textTool {
	return newTextTool(name, func(context.Context, string) (string, error) { return "", errors.New(text) })
}

// okTool answers every call with its name and arguments.
func okTool(name string) *textTool {
	return newTextTool(name, func(_ context.Context, args string) (string, error) { return name + " got " + args, nil })
}

// ---- the Driver's side

// newReflector answers with a scripted analysis per failure, the last one
// repeated, and records every Failure it was asked about.
func newReflector(answers ...reflection.FailureAnalysis) *reflectiontest.Reflector {
	return reflectiontest.NewReflector(answers...).RepeatLast()
}

func inputFix(input string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true, RootCause: "wrong input", Severity: reflection.SeverityLow,
		Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(input)},
	}
}

func toolChange(to string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true, RootCause: "wrong tool", Severity: reflection.SeverityLow,
		Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: to},
	}
}

// retryAgain says recoverable without a correction: the strategy retries the
// same call until the ceiling.
func retryAgain() reflection.FailureAnalysis {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "transient", Severity: reflection.SeverityLow}
}

// retryingDriver retries at once, as often as the ceiling allows.
func retryingDriver(r reflection.Reflector, opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append([]reflection.Option{
		reflection.WithReflector(r),
		reflection.WithStrategy(reflection.NewExponentialBackoff(reflection.MaxRecoveryAttempts + 1).WithBaseDelay(0)),
	}, opts...)...)
}

// ---- eino's side

// callbackLog records eino's tool callbacks as "start:name", "end:name" and
// "error:name", with the RunInfo types.
type callbackLog struct {
	mu     sync.Mutex
	events []string
	types  map[string]string
}

func (l *callbackLog) add(info *callbacks.RunInfo, what string) {
	if info == nil || info.Component != components.ComponentOfTool {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, what+":"+info.Name)
	if l.types == nil {
		l.types = map[string]string{}
	}
	l.types[info.Name] = info.Type
}

func (l *callbackLog) handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			l.add(info, "start")
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			l.add(info, "end")
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			out.Close()
			l.add(info, "end")
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, _ error) context.Context {
			l.add(info, "error")
			return ctx
		}).
		Build()
}

// Events returns the events so far.
func (l *callbackLog) Events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// Type returns the RunInfo type the callbacks saw for a tool.
func (l *callbackLog) Type(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.types[name]
}

// assistant is a model message that calls tools.
func assistant(calls ...schema.ToolCall) *schema.Message {
	return schema.AssistantMessage("", calls)
}

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// toolsGraph compiles a graph of one ToolsNode built from conf.
func toolsGraph(t *testing.T, conf compose.ToolsNodeConfig) compose.Runnable[*schema.Message, []*schema.Message] {
	t.Helper()
	ctx := context.Background()
	node, err := compose.NewToolNode(ctx, &conf)
	require.NoError(t, err)
	r, err := compose.NewChain[*schema.Message, []*schema.Message]().AppendToolsNode(node).Compile(ctx)
	require.NoError(t, err)
	return r
}

// toolsetGraph compiles a graph of one ToolsNode that runs tools through d.
func toolsetGraph(t *testing.T, d *reflection.Driver, tools ...tool.BaseTool) compose.Runnable[*schema.Message, []*schema.Message] {
	t.Helper()
	set, err := reflectioneino.NewToolset(context.Background(), tools)
	require.NoError(t, err)
	return toolsGraph(t, set.Config(d))
}

// mode runs a graph by Invoke or by Stream, reading the stream to its end.
type mode struct {
	name string
	run  func(ctx context.Context, r compose.Runnable[*schema.Message, []*schema.Message], in *schema.Message, opts ...compose.Option) ([]*schema.Message, error)
}

var modes = []mode{
	{"invoke", func(ctx context.Context, r compose.Runnable[*schema.Message, []*schema.Message], in *schema.Message, opts ...compose.Option) ([]*schema.Message, error) {
		return r.Invoke(ctx, in, opts...)
	}},
	{"stream", func(ctx context.Context, r compose.Runnable[*schema.Message, []*schema.Message], in *schema.Message, opts ...compose.Option) ([]*schema.Message, error) {
		sr, err := r.Stream(ctx, in, opts...)
		if err != nil {
			return nil, err
		}
		var chunks [][]*schema.Message
		for {
			c, err := sr.Recv()
			if err != nil {
				sr.Close()
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, err
			}
			chunks = append(chunks, c)
		}
		return schema.ConcatMessageArray(chunks)
	}},
}

// contents returns the Content of each message.
func contents(msgs []*schema.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if m != nil {
			out[i] = m.Content
		}
	}
	return out
}

// ---- a chat model

// chatModel is a ToolCallingChatModel that answers from a script: each turn
// gets the conversation so far and returns the model's next message.
type chatModel struct {
	mu    sync.Mutex
	turns []func(msgs []*schema.Message) *schema.Message
	seen  [][]*schema.Message
	tools []*schema.ToolInfo
}

func newChatModel(turns ...func(msgs []*schema.Message) *schema.Message) *chatModel {
	return &chatModel{turns: turns}
}

func (m *chatModel) Generate(_ context.Context, msgs []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, msgs)
	if len(m.turns) == 0 {
		return nil, errors.New("chat model: no more turns")
	}
	turn := m.turns[0]
	m.turns = m.turns[1:]
	return turn(msgs), nil
}

func (m *chatModel) Stream(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, msgs, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *chatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = tools
	return m, nil
}

// lastToolMessages returns the tool messages at the end of msgs.
func lastToolMessages(msgs []*schema.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == schema.Tool; i-- {
		out = append([]string{msgs[i].Content}, out...)
	}
	return out
}

// answerWithToolResults is a final turn: the model repeats what its tools said.
func answerWithToolResults(msgs []*schema.Message) *schema.Message {
	return schema.AssistantMessage("tools said: "+strings.Join(lastToolMessages(msgs), " | "), nil)
}

// callTools is a turn that calls tools.
func callTools(calls ...schema.ToolCall) func([]*schema.Message) *schema.Message {
	return func([]*schema.Message) *schema.Message { return assistant(calls...) }
}

// dispatchErrors records the error of every dispatch the Driver made, through
// its Observer: what the Reflector's Failure.Err will carry.
type dispatchErrors struct {
	mu   sync.Mutex
	errs []error
}

func (e *dispatchErrors) option() reflection.Option {
	return reflection.WithObserver(reflection.Observer{
		DispatchDone: func(_ context.Context, _ int, _ reflection.ToolResult, err error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.errs = append(e.errs, err)
		},
	})
}

// Errors returns the dispatch errors so far, nil for a success.
func (e *dispatchErrors) Errors() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.errs...)
}
