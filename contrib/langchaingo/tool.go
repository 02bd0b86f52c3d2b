package langchaingo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/loopctl-go/reflection"
	"github.com/tmc/langchaingo/tools"
)

// ErrNilTool is returned by the Call of a Tool that wraps no tool.
var ErrNilTool = errors.New("langchaingo: nil tool")

// Tool is a tools.Tool that runs the tool it wraps through a
// reflection.Driver. Its Name and Description are the wrapped tool's, so an
// agent's prompt and its tool lookup stay as they were.
//
// A Tool is immutable after New, and safe for concurrent use when the
// wrapped tool is.
type Tool struct {
	tool      tools.Tool
	driver    *reflection.Driver
	schema    reflection.ToolSchema
	isFailure func(output string) bool
}

var _ tools.Tool = (*Tool)(nil)

// New wraps t so that each Call runs through d, narrowed to t: the wrapper
// uses a copy of d (Driver.With) whose schema lookup is Lookup(t), so the
// Reflector sees the {"input": "<text>"} schema and the Driver drops every
// ToolChange (a langchaingo tool cannot hand its call to another); t never
// runs under another name. A nil d behaves as reflection.NewDriver() does
// (one call, no retry). The schema is built here, once. A nil t gives a Tool
// whose Call fails with ErrNilTool.
func New(t tools.Tool, d *reflection.Driver, opts ...Option) *Tool {
	w := &Tool{tool: t, driver: d}
	for _, opt := range opts {
		if opt != nil {
			opt(w)
		}
	}
	if t != nil {
		w.schema = Schema(t)
		w.driver = d.With(reflection.WithSchemas(Lookup(t)))
	}
	return w
}

// Wrap wraps each of ts with New, in order, for an agent's tool list. Each
// gets its own copy of d, narrowed to itself.
func Wrap(ts []tools.Tool, d *reflection.Driver, opts ...Option) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = New(t, d, opts...)
	}
	return out
}

// Schema returns the schema of t as a wrapper presents it to a Reflector:
// t's name and description, and [InputSchema] as its input schema (shared:
// it must not be modified). A nil t gives the zero ToolSchema.
func Schema(t tools.Tool) reflection.ToolSchema {
	if t == nil {
		return reflection.ToolSchema{}
	}
	return reflection.ToolSchema{Name: t.Name(), Description: t.Description(), InputSchema: inputSchema}
}

// Lookup returns a reflection.SchemaLookup that knows only t, the one New
// installs in a wrapper's Driver: the Reflector sees the {"input": "<text>"}
// schema and every ToolChange is dropped before it costs a call. The schema
// is built once, here. For a nil t the lookup knows no tool.
func Lookup(t tools.Tool) reflection.SchemaLookup {
	s := Schema(t)
	return func(name string) (reflection.ToolSchema, bool) {
		if t == nil || name != s.Name {
			return reflection.ToolSchema{}, false
		}
		return s, true
	}
}

// Name returns the wrapped tool's name ("" when it wraps none).
func (w *Tool) Name() string { return w.schema.Name }

// Description returns the wrapped tool's description.
func (w *Tool) Description() string { return w.schema.Description }

// Unwrap returns the wrapped tool.
func (w *Tool) Unwrap() tools.Tool { return w.tool }

// Call runs the wrapped tool with input through the Driver, as the call
// {"input": input}, and returns the tool's output.
//
// It returns an error only when ctx has ended (the error matches ctx's) or
// the Tool wraps no tool (ErrNilTool). When the Driver ends the call
// otherwise without a success (Skip, AskUser, Fail, a wait refused because
// of ctx's deadline, the sixth failed call), Call returns the latest failure
// text as the output and a nil error: langchaingo's executor would abort
// the agent on an error, and the model should read what went wrong instead.
func (w *Tool) Call(ctx context.Context, input string) (string, error) {
	if w.tool == nil {
		return "", ErrNilTool
	}
	if ctx == nil {
		ctx = context.Background()
	}
	a := attempt{tool: w, text: input, input: TextInput(input)}
	res, err := w.driver.Run(ctx, reflection.ToolCall{Name: w.schema.Name, Input: a.input}, a.dispatch)
	if err != nil && ctx.Err() != nil {
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
// input, the tool gets the agent's text exactly as it was given.
func (a *attempt) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	w := a.tool
	text := a.text
	if !bytes.Equal(call.Input, a.input) {
		var err error
		if text, err = InputText(call.Input); err != nil {
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
