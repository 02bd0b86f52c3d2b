// Package reflectioneino runs the tool calls of a cloudwego/eino agent
// through a [reflection.Driver], so that a failing tool call is analysed,
// corrected and retried instead of aborting the graph.
//
// Without it, a tool's error ends the whole graph run: a ToolsNode returns
// it, and a ReAct agent stops. With it, every failure goes to the Driver:
// its Reflector says what went wrong and its strategy what to do, and when
// the Driver gives up the failure text becomes the tool's output, a soft
// result the model sees and can act on.
//
// # How to wire it
//
// A [Toolset] is built once from a ToolsNode's tool list ([NewToolset]).
// [Toolset.Schemas] is the Driver's schema lookup, and [Toolset.Config]
// returns the ToolsNodeConfig that runs the tools through the Driver, for
// compose.NewToolNode or a ReAct agent's ToolsConfig:
//
//	tools := []tool.BaseTool{search, weather}
//	set, err := reflectioneino.NewToolset(ctx, tools)
//	// handle err
//	driver := reflection.NewDriver(
//		reflection.WithReflector(myReflector),
//		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
//		reflection.WithSchemas(set.Schemas()),
//	)
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig:      set.Config(driver),
//	})
//
// Config is made of [Toolset.Middleware], a compose.ToolMiddleware for
// plain and enhanced, invokable and streamable tools, and
// [Toolset.UnknownToolsHandler], which sends a call to a tool that does not
// exist through the Driver too. [WrapTool] wraps one tool.InvokableTool on
// its own. Every one of them runs each call through
// [reflection.Driver.Run] with eino's ctx, so whatever the Driver is given
// (an Observer such as reflectionotel's, a Health, a RetryBudget) applies to
// it, and the ctx its Observer returns reaches the tool.
//
// # What maps to what
//
//   - A tool call of a ToolsNode is a reflection.ToolCall: eino's call id,
//     the tool's name, its JSON arguments as the input.
//   - A tool's ToolInfo is its reflection.ToolSchema, built once.
//   - An InputFix reruns the tool with the new arguments through the same
//     endpoint; a ToolChange runs another tool of the Toolset in its place,
//     under that tool's own RunInfo and with eino's callbacks around it, as
//     the ToolsNode would run it.
//   - A success is the tool's output; a soft end (Skip, AskUser, Fail, the
//     ceiling, a wait ctx's deadline cannot fit) is the failure text as the
//     output (one text part for an enhanced tool, a stream of one chunk for
//     a streamable one).
//   - eino's interrupts (tool.Interrupt and its kin) pass through untouched,
//     at once and without asking the Reflector, for eino's checkpoint and
//     resume.
//
// # Errors
//
// What eino sees of a failure is what reflection.FrameworkError says every
// adapter returns: only a ctx that has ended still ends the run with an
// error (the Driver's, which matches ctx.Err()). A call to a tool the
// Toolset does not have fails, for the Driver, with an error matching
// [ErrUnknownTool] whose text lists the tools that exist. NewToolset and
// WrapTool refuse a tool they could not run. Error texts start with
// "reflectioneino: ".
//
// The adapter adds no rule of recovery: every decision is the Driver's.
package reflectioneino
