package reflectionadk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/tool"
)

// runnable is a tool ADK runs with arguments: every function tool.
type runnable interface {
	tool.Tool
	Run(ctx agent.Context, args any) (map[string]any, error)
}

// errHeld is the cause with which a Run is ended when the tool asked for a
// human's confirmation, or was refused one: it shows in the Driver's logs and
// observer hooks.
var errHeld = errors.New("reflectionadk: the tool asked for ADK's confirmation")

// caller runs ADK tool calls through a Driver; the plugin and the wrappers
// share it.
type caller struct {
	driver   *reflection.Driver // the host's, with the lookup of catalog
	sessions *Sessions
	catalog  *catalog
	// own, for WrapTools: the tools a ToolChange may pick; nil for the
	// plugin, which picks from what the session's agent offered the model.
	own map[string]runnable
}

// newCaller builds the Driver the calls run through: d, its schema lookup
// replaced by the tools' declarations, and told to consult each session's
// loop detector when the store gives sessions one.
func newCaller(d *reflection.Driver, c config, own map[string]runnable) *caller {
	s := c.sessions
	if s == nil {
		s = newSessions(c)
	}
	cat := newCatalog()
	opts := []reflection.Option{reflection.WithSchemas(cat.lookup)}
	if s.detect {
		opts = append(opts, reflection.WithLoopDetection())
	}
	return &caller{driver: d.With(opts...), sessions: s, catalog: cat, own: own}
}

// call runs one function call of ADK, the model's call of t with args,
// through the Driver, and returns what ADK should make of it: the tool's
// result on success; the tool's own error when it asked for (or was refused)
// ADK's confirmation; Run's error when ctx has ended; and a *ToolError for
// every other end.
func (c *caller) call(ctx agent.Context, t runnable, args map[string]any) (map[string]any, error) {
	c.catalog.learn(t)
	sc := c.sessions.scope(ctx)
	input, err := encodeArgs(args)
	if err != nil { // a map from the model's JSON always encodes
		return nil, fmt.Errorf("reflectionadk: tool %q: %w", t.Name(), err)
	}
	call := reflection.ToolCall{ID: ctx.FunctionCallID(), Name: t.Name(), Input: input}

	runCtx, cancel := context.WithCancelCause(sc.bind(ctx))
	defer cancel(nil)
	a := attempts{caller: c, adk: ctx, agent: ctx.AgentName(), scope: sc, first: t, args: args, input: input, cancel: cancel}
	res, err := c.driver.Run(runCtx, call, a.dispatch)
	switch {
	case a.held != nil:
		return nil, a.held
	case reflection.FrameworkError(ctx, err) != nil:
		return nil, err
	case !res.IsError && a.out != nil:
		return a.out, nil
	case !res.IsError:
		// A success no dispatch made (a verifier's): its text is the result.
		return map[string]any{"result": res.Content}, nil
	}
	if err == nil {
		err = a.lastErr
	}
	return nil, &ToolError{ID: call.ID, Tool: call.Name, Content: res.Content, Err: err}
}

// attempts is the dispatch of one call: each attempt runs a tool with ADK's
// tool context, under the ctx the Driver gives the attempt. The Driver calls
// it on Run's goroutine, one attempt at a time, so its fields need no lock.
type attempts struct {
	caller *caller
	adk    agent.Context
	agent  string
	scope  *scope
	first  runnable
	args   map[string]any // the model's, for the first dispatch
	input  []byte         // args as JSON
	cancel context.CancelCauseFunc

	n       int            // dispatches so far
	out     map[string]any // the result of the dispatch that succeeded
	lastErr error          // the latest attempt's error
	held    error          // a confirmation error, passed through
}

func (a *attempts) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	a.n++
	t := a.first
	if call.Name != t.Name() {
		other, ok := a.tool(call.Name)
		if !ok {
			a.lastErr = notRun(fmt.Errorf("reflectionadk: tool %q: %w", call.Name, ErrUnknownTool))
			return reflection.ToolResult{}, a.lastErr
		}
		t = other
	}
	args := a.args
	if a.n > 1 || !bytes.Equal(call.Input, a.input) {
		// A retry gets arguments of its own: the tool may have changed the
		// map it was given.
		m, err := decodeArgs(call.Input)
		if err != nil {
			a.lastErr = notRun(fmt.Errorf("reflectionadk: tool %q: %w", call.Name, err))
			return reflection.ToolResult{}, a.lastErr
		}
		args = m
	}
	out, err := t.Run(attemptContext{Context: a.adk, ctx: ctx}, args)
	if err != nil {
		switch {
		case errors.Is(err, tool.ErrConfirmationRequired) || errors.Is(err, tool.ErrConfirmationRejected):
			a.held = err
			a.cancel(errHeld)
		case inputRejected(t, args):
			err = notRun(err)
		}
		a.lastErr = err
		return reflection.ToolResult{}, err
	}
	if text, failed := resultError(out); failed {
		a.lastErr = nil
		return reflection.ToolResult{Content: text, IsError: true}, nil
	}
	a.out = out
	if a.out == nil {
		a.out = map[string]any{}
	}
	return reflection.ToolResult{Content: resultText(out)}, nil
}

// tool returns the tool a ToolChange names: one of the wrapped tools, or
// one the agent offered the model in its latest request.
func (a *attempts) tool(name string) (runnable, bool) {
	if a.caller.own != nil {
		t, ok := a.caller.own[name]
		return t, ok
	}
	t, ok := a.scope.tool(a.agent, name)
	if !ok {
		return nil, false
	}
	r, ok := t.(runnable)
	if ok {
		a.caller.catalog.learn(t)
	}
	return r, ok
}

// encodeArgs returns the model's arguments as the call's JSON input: an
// object, {} for none.
func encodeArgs(args map[string]any) ([]byte, error) {
	if len(args) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(args)
}

// decodeArgs returns a call's input as the arguments ADK gives a tool: a
// JSON object, which is all the Driver lets an InputFix put in.
func decodeArgs(input []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return nil, errors.New("arguments are not a JSON object")
	}
	return m, nil
}

// resultError reports whether a tool's result is a failure: a non-nil
// "error" key (an empty string is none), which is how ADK itself writes a
// tool's error for the model and what its tool span records as one. The text is the key's string, or
// the whole result as JSON when it is not a string.
func resultError(out map[string]any) (string, bool) {
	v, ok := out["error"]
	if !ok || v == nil {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, s != ""
	}
	return resultText(out), true
}

// resultText is a result as the model reads it: JSON.
func resultText(out map[string]any) string {
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Sprint(out)
	}
	return string(b)
}
