// Package reflectionadk runs the tool calls of an agent built with Google's
// Agent Development Kit for Go (google.golang.org/adk/v2) through a
// [reflection.Driver]. In this documentation, adk's names are written with
// their package: runner.Config, plugin.Plugin, tool.Tool.
//
// # What it wraps
//
// Every function tool call ADK makes: [NewPlugin] is an ADK plugin that runs
// the calls of every agent of a runner, toolsets included; [WrapTools] and
// [WrapTool] wrap an agent's tools one by one. Each call runs through
// Driver.Run: the Reflector says what went wrong, the strategy what to do,
// and the Driver retries with corrections, waits, guards effects and keeps
// breakers and budgets, before ADK and the model see anything. ADK's own
// retry-and-reflect plugin (plugin/retryandreflect) hands every failure
// back to the model; this package recovers what can be recovered without
// the model, and tells the model the rest.
//
// # Wiring
//
// One line in the runner's configuration:
//
//	driver := reflection.NewDriver(
//		reflection.WithReflector(rules.New(rules.Defaults()...)),
//		reflection.WithEffects(effects), // charge_card: reflection.EffectNonIdempotent, ...
//	)
//	r, err := runner.New(runner.Config{
//		AppName:        "shop",
//		Agent:          agent,
//		SessionService: session.InMemoryService(),
//		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{
//			reflectionadk.MustNewPlugin(driver),
//		}},
//	})
//
// A plugin is what ADK users add for behaviour across all tools (ADK's
// retry-and-reflect and logging plugins are plugins), and it reaches tools
// that toolsets make at run time. It runs the tool itself and answers ADK
// first, so the agent's own BeforeToolCallbacks do not run for the calls it
// answers: an agent that needs them before every call wraps its tools with
// WrapTools instead (ADK then runs the callbacks, once per call of the
// model, and the wrapper retries inside).
//
// Telemetry needs nothing here: a Driver built with reflectionotel's
// Observer traces every call, and its spans nest under ADK's own
// execute_tool span of the call.
//
// # What maps to what
//
//   - A function call of the model is a reflection.ToolCall: its ID is ADK's
//     function call ID, its Name the tool's, its Input the model's arguments
//     as a JSON object.
//   - A tool's declaration is its reflection.ToolSchema ([Schema]): the
//     plugin's (or the wrappers') copy of the Driver looks schemas up in the
//     declarations of the tools the agents offer the model, in place of
//     the Driver's own WithSchemas, so the
//     Reflector and the Driver's input check see each tool's parameters,
//     and a ToolChange to a tool never offered is dropped. A ToolChange runs
//     another tool the calling agent offered, with the same tool context.
//   - An ADK session is the scope of what recovery remembers across calls
//     ([Sessions]): each session has its own reflection.EffectMemory and
//     reflection.LoopDetector, put in the ctx of its calls, so a model's
//     re-issue of a charge that may have acted is held back in its own
//     session and never in another, and a session that keeps making the
//     same call for the same result is stopped.
//   - A tool's Go error is a failure; so is a result with a non-nil
//     "error" key, which is how ADK writes a tool's error and what its span
//     records as one. A function tool's (functiontool's) refusal of
//     arguments that do not match its schema is also
//     reflection.ErrInputRejected: its handler never ran.
//
// # What ADK gets back
//
// A success is the tool's result. Any other end, while ctx is alive, is a
// [*ToolError] whose text is the Driver's result (the latest failure and,
// when the call may have acted, the warning): ADK hands it to the
// plugins' and the agent's OnToolErrorCallbacks, then to the model as
// {"error": <text>}, as for any tool error. In ADK a tool's error is the
// model's to read, not the end of the run, and keeping it an error lets
// retryandreflect and the agent's own handlers see it. When ctx has ended,
// Run's error is returned, which matches ctx's. A tool's request for a
// human's confirmation (tool.ErrConfirmationRequired) and a refused
// confirmation pass through at once, unanalysed, for ADK's own flow.
//
// Everything in this package is safe for concurrent use.
package reflectionadk
