package reflectionadk

import (
	"github.com/loopctl-go/reflection"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
)

// PluginName is the name NewPlugin gives its plugin; ADK refuses two plugins
// of one name in a runner.
const PluginName = "ReflectionPlugin"

// NewPlugin returns an ADK plugin that runs every function tool call of
// every agent of a runner through d: one line in runner.Config's
// PluginConfig.Plugins. A nil d behaves as reflection.NewDriver() does.
//
// Each call is a reflection.ToolCall whose ID is ADK's function call ID,
// whose Name is the tool's, and whose Input is the model's arguments as a
// JSON object. The plugin's copy of d (Driver.With) looks schemas up in the
// declarations of the tools the agents offer the model, so the Reflector
// and the input check see each tool's parameters; it consults each ADK
// session's loop detector (see Sessions). A ToolChange runs another tool the
// agent offered in the same request, with the same tool context.
//
// What ADK gets back: the tool's result on success; on any other end while
// ctx is alive, a *ToolError whose text is the Driver's result, which ADK
// hands to the plugins' and the agent's OnToolErrorCallbacks (such as
// retryandreflect's) and then to the model as {"error": <text>}; Run's
// error when ctx has ended. A tool's request for a human's confirmation
// (tool.ErrConfirmationRequired) and a refused confirmation
// (tool.ErrConfirmationRejected) pass through at once, unretried, for
// ADK's own confirmation flow.
//
// The plugin runs the tool itself in its BeforeToolCallback and hands ADK
// the result, so ADK does not run the tool again; the agent's own
// BeforeToolCallbacks (llmagent.Config) are then skipped, as ADK skips them
// whenever a plugin answers first. An agent that needs them to run before
// every attempt wraps its tools with WrapTools instead. Long-running tools,
// tools that answer the model by other means, streaming tools and calls
// of tools that do not exist are left to ADK, untouched.
//
// Of the options, it reads WithSessions, and those of NewSessions for the
// store it builds without one.
func NewPlugin(d *reflection.Driver, opts ...Option) (*plugin.Plugin, error) {
	c := newCaller(d, newConfig(opts), nil)
	return plugin.New(plugin.Config{
		Name:                PluginName,
		BeforeModelCallback: c.beforeModel,
		BeforeToolCallback:  c.beforeTool,
	})
}

// MustNewPlugin is NewPlugin for a plugin list written in place; it panics
// when ADK refuses the plugin.
func MustNewPlugin(d *reflection.Driver, opts ...Option) *plugin.Plugin {
	p, err := NewPlugin(d, opts...)
	if err != nil {
		panic("reflectionadk: " + err.Error())
	}
	return p
}

// beforeModel records the tools the agent offers the model, for the
// session's ToolChanges and the schema lookup. It never answers in the
// model's place.
func (c *caller) beforeModel(ctx agent.Context, req *model.LLMRequest) (*model.LLMResponse, error) {
	if req == nil || len(req.Tools) == 0 {
		return nil, nil
	}
	tools := make(map[string]tool.Tool, len(req.Tools))
	for name, v := range req.Tools {
		if t, ok := v.(tool.Tool); ok {
			tools[name] = t
			c.catalog.learn(t)
		}
	}
	c.sessions.scope(ctx).offer(ctx.AgentName(), tools)
	return nil, nil
}

// beforeTool runs the call through the Driver, or leaves it to ADK (nil,
// nil) for a tool it does not run.
func (c *caller) beforeTool(ctx agent.Context, t tool.Tool, args map[string]any) (map[string]any, error) {
	r, ok := t.(runnable)
	if !ok || t.IsLongRunning() || defersResponse(t) {
		return nil, nil
	}
	return c.call(ctx, r, args)
}

// defersResponse reports whether t answers the model by other means than
// its result (ADK's task agent tool does), so a nil result is not a result.
func defersResponse(t tool.Tool) bool {
	d, ok := t.(interface{ DefersResponse() bool })
	return ok && d.DefersResponse()
}
