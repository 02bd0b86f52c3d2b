package reflectionadk

import (
	"errors"
	"fmt"
	"iter"

	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolutils"
	"google.golang.org/genai"
)

// WrapTool returns t with every call run through d, for an agent's Tools
// list. It is WrapTools for one tool: a ToolChange can only name t itself.
// It fails for a nil tool, a tool ADK does not run with arguments (a
// streaming tool, a model's built-in tool) and a long-running tool.
func WrapTool(d *reflection.Driver, t tool.Tool, opts ...Option) (tool.Tool, error) {
	if t == nil {
		return nil, errors.New("reflectionadk: WrapTool: nil tool")
	}
	r, ok := wrappable(t)
	if !ok {
		return nil, fmt.Errorf("reflectionadk: WrapTool: tool %q is not a function tool ADK runs with arguments", t.Name())
	}
	c := newCaller(d, newConfig(opts), map[string]runnable{t.Name(): r})
	return &wrappedTool{inner: r, caller: c}, nil
}

// WrapTools returns tools with every function tool wrapped so that its calls
// run through d, in the same order; a ToolChange may pick any of the
// wrapped tools. Tools the adapter does not run (streaming tools, a model's
// built-in tools, long-running tools) are kept as they are. A nil d behaves
// as reflection.NewDriver() does.
//
// Use it in place of NewPlugin when the agent's own BeforeToolCallbacks
// must run before the tool (a wrapper is the tool, so ADK runs them first,
// once per call of the model), or to guard some tools only. What maps to
// what, and what ADK gets back, is as NewPlugin says. Do not use both for
// one tool: each would run the other's attempts through its Driver.
//
// Of the options, it reads WithSessions, and those of NewSessions for the
// store it builds without one.
func WrapTools(d *reflection.Driver, tools []tool.Tool, opts ...Option) ([]tool.Tool, error) {
	own := make(map[string]runnable, len(tools))
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("reflectionadk: WrapTools: tool %d is nil", i)
		}
		if r, ok := wrappable(t); ok {
			own[t.Name()] = r
		}
	}
	c := newCaller(d, newConfig(opts), own)
	out := make([]tool.Tool, len(tools))
	for i, t := range tools {
		if r, ok := own[t.Name()]; ok && same(r, t) {
			out[i] = &wrappedTool{inner: r, caller: c}
			c.catalog.learn(r)
		} else {
			out[i] = t
		}
	}
	return out, nil
}

// function is what a wrapper needs of a tool: ADK runs it with arguments,
// and it declares itself to the model.
type function interface {
	runnable
	declarer
}

// wrappable returns t as a runnable tool the adapter may wrap.
func wrappable(t tool.Tool) (runnable, bool) {
	f, ok := t.(function)
	if !ok || t.IsLongRunning() {
		return nil, false
	}
	if _, streams := t.(interface {
		RunStream(agent.Context, any) iter.Seq2[string, error]
	}); streams { // ADK streams such a tool rather than running it
		return nil, false
	}
	return f, true
}

// wrappedTool is a tool whose calls run through a Driver.
type wrappedTool struct {
	inner  runnable
	caller *caller
}

// Name returns the wrapped tool's name.
func (w *wrappedTool) Name() string { return w.inner.Name() }

// Description returns the wrapped tool's description.
func (w *wrappedTool) Description() string { return w.inner.Description() }

// IsLongRunning returns false: long-running tools are not wrapped.
func (w *wrappedTool) IsLongRunning() bool { return false }

// Declaration returns the wrapped tool's declaration.
func (w *wrappedTool) Declaration() *genai.FunctionDeclaration {
	return w.inner.(declarer).Declaration()
}

// ProcessRequest adds the tool to the model's request as the wrapped tool
// would, with the wrapper in its place, so that ADK runs the wrapper.
func (w *wrappedTool) ProcessRequest(ctx agent.Context, req *model.LLMRequest) error {
	if p, ok := w.inner.(interface {
		ProcessRequest(agent.Context, *model.LLMRequest) error
	}); ok {
		_, before := req.Tools[w.Name()]
		if err := p.ProcessRequest(ctx, req); err != nil {
			return err
		}
		if !before && req.Tools[w.Name()] != nil {
			req.Tools[w.Name()] = w
			return nil
		}
	}
	return toolutils.PackTool(req, w)
}

// Run runs the call through the Driver.
func (w *wrappedTool) Run(ctx agent.Context, args any) (map[string]any, error) {
	var m map[string]any
	if args != nil {
		var ok bool
		if m, ok = args.(map[string]any); !ok {
			return nil, fmt.Errorf("reflectionadk: tool %q: unexpected arguments of type %T", w.Name(), args)
		}
	}
	return w.caller.call(ctx, w.inner, m)
}
