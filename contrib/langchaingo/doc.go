// Package reflectionlangchaingo runs the tools of a langchaingo agent
// (github.com/tmc/langchaingo) through a [reflection.Driver], so that a tool
// call that fails is analysed, corrected and retried, and a failure the
// Driver gives up on reaches the model as an observation instead of ending
// the agent.
//
// # How to wire it
//
// [WrapTools] wraps an agent's tool list, [WrapTool] one tool; the Driver
// comes first, as in every contrib module:
//
//	driver := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
//	)
//	agent := agents.NewOneShotAgent(model, reflectionlangchaingo.WrapTools(driver, myTools))
//	executor := agents.NewExecutor(agent)
//	ctx = reflection.ContextWithTask(ctx, question) // the Reflector sees the task
//	answer, err := chains.Run(ctx, executor, question)
//
// Every call of a wrapper runs through [reflection.Driver.Run] with the
// executor's ctx, so whatever the Driver is given (an Observer such as
// reflectionotel's, a Health, a RetryBudget) applies to it.
//
// # What maps to what
//
//   - A tool's Call(ctx, text) is one reflection.ToolCall named after the
//     tool, with no ID (langchaingo has none). Its input is the text as
//     {"input": "<text>"} (reflection.TextInput), since the Driver corrects
//     JSON objects; until an InputFix changes it, the tool gets the agent's
//     text exactly as given, and after one it gets the new text
//     (reflection.InputText). An InputFix of any other shape fails the
//     attempt with reflection.InputText's error, for the Reflector to correct;
//     [CheckInput] given to reflection.WithInputCheck drops it before it
//     costs a call instead.
//   - The Reflector sees the tool's name and description and [InputSchema]
//     ([Schema] of one tool, [Schemas] of several).
//   - A ToolChange cannot apply: a langchaingo tool has no way to hand its
//     call to another tool of the agent. A wrapper therefore runs its calls
//     through a copy of the given Driver (reflection.Driver.With) whose
//     schema lookup knows its own tool alone, so the Driver drops every
//     ToolChange before it costs a call. One Driver serves every wrapper.
//   - A tool that reports a failure in its output with a nil error
//     (langchaingo's own tools.Calculator does) is recognised with
//     [WithFailedOutput].
//   - The result is the observation the model reads: the tool's output, or
//     the latest failure text.
//
// # Errors
//
// langchaingo's agents.Executor stops the whole run when a tool's Call
// returns an error. A wrapper's Call returns what reflection.FrameworkError
// says every adapter returns: an error only when ctx has ended. A failure
// the Driver ends softly (Skip, AskUser, Fail), a wait refused because of
// ctx's deadline, and a sixth failed call all give the latest failure text
// as the observation, so the model reads what went wrong and can change its
// plan. A wrapper of a nil tool fails with [ErrNilTool]. Error texts start
// with "reflectionlangchaingo: ".
//
// Everything in this package is safe for concurrent use when the wrapped
// tool is.
package reflectionlangchaingo
