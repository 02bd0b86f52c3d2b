// Package openai connects the official OpenAI Go SDK,
// github.com/openai/openai-go/v3, to a [reflection.Driver]: the tool calls of
// an assistant message run through the Driver, and their results go back to
// the model as tool messages. It also lets one openai-go client serve the llm
// Reflector.
//
// Both OpenAI SDKs for Go name their package openai, and so does this one;
// import it under another name:
//
//	import reflectopenai "github.com/loopctl-go/reflection/contrib/openai"
//
// # An agent loop
//
// openai-go has no tool runner of its own for chat completions: the host
// runs each tool call. A [Runner] does that for a whole turn, through the
// Driver, with the host's dispatch func doing the work of one call:
//
//	schemas, err := reflectopenai.Schemas(params.Tools) // once, from the request's tools
//	driver := reflection.NewDriver(
//		reflection.WithReflector(llm.New(reflectopenai.NewClient(&client))),
//		reflection.WithSchemas(schemas),
//	)
//	runner := reflectopenai.NewRunner(driver, dispatch)
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
// A turn never ends in an error because a tool failed: a call the Driver
// gives up on, and a call still failing at the Driver's ceiling, answer with
// the latest failure text, which the model reads and can act on. Only a
// context that has ended makes [Runner.Run] return an error. Chat completions
// have no error flag on a tool message; [Runner.RunCalls] keeps each result's
// IsError for a host that wants it.
//
// The calls of a turn run one after another unless [WithConcurrency] lets
// several run at once; their messages come back in the model's order either
// way, and no goroutine outlives the call.
//
// # Custom tools
//
// A custom tool takes free text rather than JSON arguments. So that an
// InputFix can correct it like any other input, its text travels through the
// Driver as the JSON object {"input": "<text>"}, and [Schemas] gives the tool
// a generated schema that says so (with its grammar, if it has one, in the
// description). The dispatch func reads the text back with [CustomInput].
//
// # Schemas
//
// [Schemas] builds a [reflection.SchemaLookup] once from the tool definitions
// of the request: each schema is marshalled then, not on each lookup. The
// Reflector sees the failing tool's schema, and a ToolChange can only switch
// to a tool the request declared.
//
// # One client for the agent and the Reflector
//
// The llm Reflector talks through an llm.Client, written in the types of
// github.com/sashabaranov/go-openai. [NewClient] is one over an openai-go
// client: it translates the request and the answer field by field, refuses a
// request it cannot translate faithfully rather than drop a part of it, and
// keeps openai-go's errors reachable with errors.As (*openai.Error for an
// API error).
package openai
