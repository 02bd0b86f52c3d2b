package reflectionlangchaingo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/loopctl-go/reflection"
	"github.com/tmc/langchaingo/tools"
)

// ErrNilTool is returned by the Call of a Tool that wraps no tool.
var ErrNilTool = errors.New("reflectionlangchaingo: nil tool")

// Tool is a tools.Tool that runs the tool it wraps through a
// reflection.Driver. Its Name and Description are the wrapped tool's, so an
// agent's prompt and its tool lookup stay as they were.
//
// A Tool is immutable after WrapTool, and safe for concurrent use when the
// wrapped tool is.
type Tool struct {
	tool   tools.Tool
	driver *reflection.Driver
	schema reflection.ToolSchema
	config
}

var _ tools.Tool = (*Tool)(nil)

// WrapTool wraps t so that each Call runs through d, narrowed to t: the
// wrapper uses a copy of d (Driver.With) whose schema lookup is
// Schemas([]tools.Tool{t}), so the Reflector sees the {"input": "<text>"}
// schema and the Driver drops every ToolChange (a langchaingo tool cannot
// hand its call to another); t never runs under another name. Everything
// else of d (its Reflector, strategy, Observer, Health, budget) applies as
// given. A nil d behaves as reflection.NewDriver() does (one call, no
// retry). The schema is built here, once. A nil t gives a Tool whose Call
// fails with ErrNilTool. Nil options are ignored.
func WrapTool(d *reflection.Driver, t tools.Tool, opts ...Option) *Tool {
	w := &Tool{tool: t, driver: d}
	for _, opt := range opts {
		if opt != nil {
			opt(&w.config)
		}
	}
	if t != nil {
		w.schema = Schema(t)
		w.driver = d.With(reflection.WithSchemas(Schemas([]tools.Tool{t})))
	}
	return w
}

// WrapTools wraps each of ts with WrapTool, in order, for an agent's tool
// list. Each gets its own copy of d, narrowed to itself.
func WrapTools(d *reflection.Driver, ts []tools.Tool, opts ...Option) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = WrapTool(d, t, opts...)
	}
	return out
}

// Name returns the wrapped tool's name ("" when it wraps none).
func (w *Tool) Name() string { return w.schema.Name }

// Description returns the wrapped tool's description.
func (w *Tool) Description() string { return w.schema.Description }

// Unwrap returns the wrapped tool.
func (w *Tool) Unwrap() tools.Tool { return w.tool }

// Call runs the wrapped tool with input through the Driver, as the call
// {"input": input} (reflection.TextInput), and returns the tool's output.
//
// It returns an error only as reflection.FrameworkError says for every
// adapter, when ctx has ended (the error matches ctx's), or when the Tool
// wraps no tool (ErrNilTool). When the Driver ends the call otherwise
// without a success (Skip, AskUser, Fail, a wait refused because of ctx's
// deadline, the sixth failed call), Call returns the latest failure text as
// the output and a nil error: langchaingo's executor would abort the agent
// on an error, and the model should read what went wrong instead.
func (w *Tool) Call(ctx context.Context, input string) (string, error) {
	if w.tool == nil {
		return "", ErrNilTool
	}
	if ctx == nil {
		ctx = context.Background()
	}
	a := attempt{tool: w, text: input, input: reflection.TextInput(input)}
	res, err := w.driver.Run(ctx, reflection.ToolCall{Name: w.schema.Name, Input: a.input}, a.dispatch)
	if err := reflection.FrameworkError(ctx, err); err != nil {
		return "", err
	}
	return res.Content, nil
}

// attempt is one Call: the text the agent gave and the input it became.
type attempt struct {
	tool  *Tool
	text  string
	input json.RawMessage
}

// dispatch runs one attempt: the wrapped tool with the text of the call's
// current input, under its own name only. Until an InputFix changes the
// input, the tool gets the agent's text exactly as it was given (invalid
// UTF-8 included); a changed input that is not {"input": "<text>"} fails
// with reflection.InputText's error, for the Reflector to correct.
func (a *attempt) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	w := a.tool
	text := a.text
	if !bytes.Equal(call.Input, a.input) {
		var err error
		if text, err = reflection.InputText(call.Input); err != nil {
			return reflection.ToolResult{}, err
		}
	}
	out, err := w.tool.Call(ctx, text)
	if err != nil {
		return reflection.ToolResult{}, err
	}
	if w.isFailure != nil && w.isFailure(out) {
		return reflection.ToolResult{Content: out, IsError: true}, nil
	}
	return reflection.ToolResult{Content: out}, nil
}
