// Package langchaingo runs the tools of a langchaingo agent
// (github.com/tmc/langchaingo) through a [reflection.Driver], so that a tool
// call that fails is analysed, corrected and retried, and a failure the
// Driver gives up on reaches the model as an observation instead of ending
// the agent.
//
// # Why a wrapper
//
// langchaingo's agents.Executor stops the whole run when a tool's Call
// returns an error. [Tool] wraps a tools.Tool so that its Call runs through
// the Driver and returns an error only when ctx has ended: a success gives
// the tool's output, and a failure the Driver ends softly (Skip, AskUser,
// Fail), a wait refused because of ctx's deadline, and a sixth failed call
// all give the latest failure text as the observation, so the model reads
// what went wrong and can change its plan.
//
// # Text input
//
// A langchaingo tool takes one string. The Driver corrects JSON objects, so
// the text travels as {"input": "<text>"} ([TextInput]), with a schema that
// says so ([InputSchema], [Schema]); an InputFix that gives {"input": "<new text>"}
// runs the wrapped tool with the new text ([InputText]).
//
// # One tool, one name
//
// A wrapper runs only the tool it wraps, under its own name. A ToolChange
// cannot apply: a langchaingo tool has no way to hand its call to another
// tool of the agent. [New] therefore runs the calls through a copy of the
// given Driver (reflection.Driver.With) whose schema lookup is [Lookup] of
// the tool, which knows that tool alone: the Reflector sees the
// {"input": "<text>"} schema, and the Driver drops every ToolChange before it
// costs a call. One Driver can be given to every wrapper of an agent.
//
// # Failures reported as output
//
// A tool that reports a failure in its output with a nil error (langchaingo's
// own tools.Calculator does) is recognised with [WithFailedOutput].
//
// # Usage
//
//	driver := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
//	)
//	agent := agents.NewOneShotAgent(model, langchaingo.Wrap(myTools, driver))
//	executor := agents.NewExecutor(agent)
//	ctx = reflection.ContextWithTask(ctx, question) // the Reflector sees the task
//	answer, err := chains.Run(ctx, executor, question)
//
// Everything in this package is safe for concurrent use when the wrapped
// tool is.
package langchaingo
