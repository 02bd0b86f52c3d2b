// Package reflectioneino runs the tool calls of a cloudwego/eino agent
// through a [reflection.Driver], so that a failing tool call is analysed,
// corrected and retried instead of aborting the graph.
//
// # What changes for the agent
//
// Without it, a tool's error ends the whole graph run: a ToolsNode returns it,
// and a ReAct agent stops. With it, every failure goes to the Driver: its
// Reflector says what went wrong and its strategy what to do. An InputFix
// reruns the tool with corrected arguments, a ToolChange runs another tool in
// its place, and when the Driver gives up (Skip, AskUser, Fail, or the ceiling
// of six calls) the failure text becomes the tool's output: a soft result the
// model sees and can act on. Only a context that has ended still ends the
// run with an error, and eino's own interrupts (tool.Interrupt and its kin)
// pass through untouched, for eino's checkpoint and resume.
//
// # The pieces
//
// A [Toolset] is built once from a ToolsNode's tool list. [Toolset.Config]
// returns the ToolsNodeConfig that wires it in, for compose.NewToolNode or a
// ReAct agent's ToolsConfig:
//
//	tools := []tool.BaseTool{search, weather}
//	set, err := reflectioneino.NewToolset(ctx, tools)
//	// handle err
//	driver := reflection.NewDriver(
//		reflection.WithReflector(myReflector),
//		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
//		reflection.WithSchemas(set.Schema),
//	)
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig:      set.Config(driver),
//	})
//
// It is made of [Toolset.Middleware], a compose.ToolMiddleware for plain and
// enhanced, invokable and streamable tools, and [Toolset.UnknownToolsHandler],
// which sends a call to a tool that does not exist through the Driver too.
// [Toolset.Schema] is the Driver's schema lookup. [WrapTool] wraps one
// tool.InvokableTool on its own.
//
// The adapter adds no rule of recovery: every decision is the Driver's.
package reflectioneino
