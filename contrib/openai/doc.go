// Package reflectionopenai connects the official OpenAI Go SDK,
// github.com/openai/openai-go/v3, to a [reflection.Driver]: the tool calls of
// an assistant message run through the Driver, and their results go back to
// the model as tool messages. It also lets one openai-go client serve the llm
// Reflector.
//
// Its name is not openai's, so it never shadows the SDK's own package:
//
//	import reflectionopenai "github.com/loopctl-go/reflection/contrib/openai"
//
// # How to wire it
//
// openai-go has no tool runner of its own for chat completions: the host
// runs each tool call. A [Runner], from [NewRunner], does that for a whole
// turn, through the Driver, with the host's dispatch func doing the work of
// one call:
//
//	schemas, err := reflectionopenai.Schemas(params.Tools) // once, from the request's tools
//	driver := reflection.NewDriver(
//		reflection.WithReflector(llm.New(reflectionopenai.NewClient(&client))),
//		reflection.WithSchemas(schemas),
//	)
//	runner := reflectionopenai.NewRunner(driver, dispatch)
//	for {
//		completion, err := client.Chat.Completions.New(ctx, params)
//		msg := completion.Choices[0].Message
//		params.Messages = append(params.Messages, msg.ToParam())
//		if len(msg.ToolCalls) == 0 {
//			break
//		}
//		results, err := runner.Run(ctx, msg) // one tool message per call, in order
//		params.Messages = append(params.Messages, results...)
//	}
//
// Every call runs through [reflection.Driver.Run], so whatever the Driver is
// given (an Observer such as reflectionotel's, a Health, a RetryBudget)
// applies to these calls as to any other, with the caller's ctx.
//
// # What maps to what
//
//   - A function call ([ToolCall]) keeps its name; its arguments are the
//     input as the model wrote them ({} when blank).
//   - A custom tool call's free text is the input {"input": "<text>"} of
//     reflection.TextInput, so that an InputFix can correct it like any other
//     input; the dispatch func reads it with reflection.InputText, whose
//     error, returned as a failure, lets the Reflector correct the input.
//   - A result is a tool message ([ToolMessage]): its content, for its
//     call's id. Chat completions have no error flag on a tool message, so a
//     failure is told by its text alone; [Runner.RunCalls] keeps each
//     result's IsError for a host that wants it.
//   - The request's tool definitions are the Driver's schema lookup
//     ([Schemas]): a function's parameters, and for a custom tool a generated
//     schema of its {"input": "<text>"} object, with its grammar, if any, in
//     the description.
//   - An llm.Client, written in github.com/sashabaranov/go-openai's types, is
//     one over an openai-go client ([NewClient]): the request and the answer
//     are translated field by field, a request that cannot be translated
//     faithfully is refused rather than cut, and openai-go's errors stay
//     reachable with errors.As (*openai.Error for an API error).
//
// # Errors
//
// A turn never ends in an error because a tool failed: what the framework
// sees is reflection.FrameworkError's answer, as for every adapter. A call
// the Driver gives up on, and a call still failing at the Driver's ceiling,
// answer with the latest failure text, which the model reads and can act on;
// only a ctx that has ended makes [Runner.Run] return an error. A call of a
// type [ToolCall] cannot translate is answered with an error text naming the
// type (ErrUnsupportedToolCall), without being run. Error texts start with
// "reflectionopenai: ".
//
// The calls of a turn run one after another unless [WithConcurrency] lets
// several run at once; their messages come back in the model's order either
// way, and no goroutine outlives the call.
package reflectionopenai
