package reflectioneino

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
)

// member is one tool of a Toolset, ready to run in place of another tool
// after a ToolChange. It runs the tool the way a ToolsNode does: under the
// tool's own callbacks.RunInfo, with eino's callbacks around the call unless
// the tool fires its own (components.IsCallbacksEnabled).
type member struct {
	runInfo      callbacks.RunInfo
	ownCallbacks bool
	schema       reflection.ToolSchema

	invokable          tool.InvokableTool
	streamable         tool.StreamableTool
	enhancedInvokable  tool.EnhancedInvokableTool
	enhancedStreamable tool.EnhancedStreamableTool
}

// newMember inspects t; it fails for a tool that eino could not run.
func newMember(ctx context.Context, t tool.BaseTool) (*member, error) {
	s, err := toolSchema(ctx, t)
	if err != nil {
		return nil, err
	}
	m := &member{
		runInfo: callbacks.RunInfo{
			Name:      s.Name,
			Type:      implType(t),
			Component: components.ComponentOfTool,
		},
		ownCallbacks: components.IsCallbacksEnabled(t),
		schema:       s,
	}
	m.invokable, _ = t.(tool.InvokableTool)
	m.streamable, _ = t.(tool.StreamableTool)
	m.enhancedInvokable, _ = t.(tool.EnhancedInvokableTool)
	m.enhancedStreamable, _ = t.(tool.EnhancedStreamableTool)
	if m.invokable == nil && m.streamable == nil && m.enhancedInvokable == nil && m.enhancedStreamable == nil {
		return nil, fmt.Errorf("reflectioneino: tool %q (%T) is not invokable, streamable, enhanced invokable or enhanced streamable", s.Name, t)
	}
	return m, nil
}

// implType is the RunInfo.Type a ToolsNode gives t: its GetType when it has
// one, else the name of its type without pointers (for a func type, the
// func's own name when it has one).
func implType(t any) string {
	if typ, ok := components.GetType(t); ok {
		return typ
	}
	v := reflect.ValueOf(t)
	typ := v.Type()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Func {
		return typ.Name()
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	name := runtime.FuncForPC(v.Pointer()).Name()
	name = name[strings.LastIndex(name, ".")+1:]
	anonymous := len(name) > 4 && strings.HasPrefix(name, "func") && name[4] >= '0' && name[4] <= '9'
	if anonymous || strings.Trim(name, "0123456789") == "" {
		return "" // an anonymous func, or a closure's numbered name
	}
	return name
}

// with returns ctx carrying the member's RunInfo and the handlers already in
// ctx, as a ToolsNode prepares the context of each tool it runs.
func (m *member) with(ctx context.Context) context.Context {
	info := m.runInfo
	return callbacks.ReuseHandlers(ctx, &info)
}

// invokeText runs the member for a text result: InvokableRun when it has it,
// else StreamableRun read to the end, else its enhanced form when every part
// of the result is text.
func (m *member) invokeText(ctx context.Context, args string, opts []tool.Option) (string, error) {
	ctx = m.with(ctx)
	switch {
	case m.invokable != nil:
		return invokeWithCallbacks(ctx, !m.ownCallbacks, args, m.invokable.InvokableRun, opts)
	case m.streamable != nil:
		sr, err := streamWithCallbacks(ctx, !m.ownCallbacks, args, m.streamable.StreamableRun, opts)
		if err != nil {
			return "", err
		}
		return concatText(sr)
	default:
		r, err := m.runEnhanced(ctx, args, opts)
		if err != nil {
			return "", err
		}
		return m.textOnly(r)
	}
}

// streamText runs the member for a stream of text: StreamableRun when it has
// it, else the text result as a stream of one chunk.
func (m *member) streamText(ctx context.Context, args string, opts []tool.Option) (*schema.StreamReader[string], error) {
	if m.streamable != nil {
		return streamWithCallbacks(m.with(ctx), !m.ownCallbacks, args, m.streamable.StreamableRun, opts)
	}
	s, err := m.invokeText(ctx, args, opts)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]string{s}), nil
}

// invokeEnhanced runs the member for a multimodal result: its enhanced form
// when it has one, else its text result as one text part.
func (m *member) invokeEnhanced(ctx context.Context, args string, opts []tool.Option) (*schema.ToolResult, error) {
	if m.enhancedInvokable == nil && m.enhancedStreamable == nil {
		s, err := m.invokeText(ctx, args, opts)
		if err != nil {
			return nil, err
		}
		return textResult(s), nil
	}
	return m.runEnhanced(m.with(ctx), args, opts)
}

// streamEnhanced runs the member for a stream of multimodal results.
func (m *member) streamEnhanced(ctx context.Context, args string, opts []tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
	if m.enhancedStreamable != nil {
		return streamWithCallbacks(m.with(ctx), !m.ownCallbacks, &schema.ToolArgument{Text: args}, m.enhancedStreamable.StreamableRun, opts)
	}
	r, err := m.invokeEnhanced(ctx, args, opts)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.ToolResult{r}), nil
}

// runEnhanced runs an enhanced member, whose RunInfo ctx already carries.
func (m *member) runEnhanced(ctx context.Context, args string, opts []tool.Option) (*schema.ToolResult, error) {
	arg := &schema.ToolArgument{Text: args}
	if m.enhancedInvokable != nil {
		return invokeWithCallbacks(ctx, !m.ownCallbacks, arg, m.enhancedInvokable.InvokableRun, opts)
	}
	sr, err := streamWithCallbacks(ctx, !m.ownCallbacks, arg, m.enhancedStreamable.StreamableRun, opts)
	if err != nil {
		return nil, err
	}
	return concatResults(sr)
}

// textOnly returns the text of r, or an error when r holds anything a text
// result cannot carry.
func (m *member) textOnly(r *schema.ToolResult) (string, error) {
	if r == nil {
		return "", nil
	}
	var b strings.Builder
	for _, p := range r.Parts {
		if p.Type != schema.ToolPartTypeText {
			return "", fmt.Errorf("reflectioneino: tool %q returned %s content, which a text result cannot carry", m.runInfo.Name, p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// invokeWithCallbacks calls run, firing eino's OnStart and OnEnd or OnError
// around it when on is set, as a ToolsNode does for a tool that does not fire
// its own callbacks.
func invokeWithCallbacks[I, O any](ctx context.Context, on bool, in I,
	run func(context.Context, I, ...tool.Option) (O, error), opts []tool.Option) (O, error) {
	if !on {
		return run(ctx, in, opts...)
	}
	ctx = callbacks.OnStart(ctx, in)
	out, err := run(ctx, in, opts...)
	if err != nil {
		callbacks.OnError(ctx, err)
		return out, err
	}
	callbacks.OnEnd(ctx, out)
	return out, nil
}

// streamWithCallbacks is invokeWithCallbacks for a call that returns a
// stream: the handlers get a copy of the stream, the caller the other.
func streamWithCallbacks[I, O any](ctx context.Context, on bool, in I,
	run func(context.Context, I, ...tool.Option) (*schema.StreamReader[O], error), opts []tool.Option) (*schema.StreamReader[O], error) {
	if !on {
		return run(ctx, in, opts...)
	}
	ctx = callbacks.OnStart(ctx, in)
	out, err := run(ctx, in, opts...)
	if err != nil {
		callbacks.OnError(ctx, err)
		return nil, err
	}
	_, out = callbacks.OnEndWithStreamOutput(ctx, out)
	return out, nil
}

// concatText reads sr to its end and closes it.
func concatText(sr *schema.StreamReader[string]) (string, error) {
	if sr == nil {
		return "", nil
	}
	defer sr.Close()
	var b strings.Builder
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		b.WriteString(chunk)
	}
}

// concatResults reads sr to its end, closes it, and joins the chunks as eino
// does.
func concatResults(sr *schema.StreamReader[*schema.ToolResult]) (*schema.ToolResult, error) {
	if sr == nil {
		return &schema.ToolResult{}, nil
	}
	defer sr.Close()
	var chunks []*schema.ToolResult
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return schema.ConcatToolResults(chunks)
		}
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, chunk)
	}
}

// textResult is s as a multimodal result of one text part.
func textResult(s string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: s}}}
}

// resultText is what the Driver and its observers see of a multimodal
// result: its text parts, and a bracketed type for each other part.
func resultText(r *schema.ToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Parts {
		if p.Type == schema.ToolPartTypeText {
			b.WriteString(p.Text)
			continue
		}
		b.WriteString("[" + string(p.Type) + "]")
	}
	return b.String()
}
