// Package reflectionmcp runs the tool calls of an MCP client through a
// [reflection.Driver], for the official Go SDK of the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk). In this documentation, mcp.X
// names the SDK's X.
//
// # What it wraps
//
// An *mcp.ClientSession, connected to one server. [Dispatch] turns it into
// a [reflection.DispatchFunc]: each attempt of a call is one tools/call
// request. [CallTool] runs one call through a Driver and returns what the
// model should see. [Tools] keeps the server's tool list for the Driver:
// the schemas ([Tools.Schemas]), the effects its annotations declare
// ([Tools.Effect]) and the catalog a Reflector may switch tools from
// ([Tools.Catalog]).
//
// # Wiring
//
// The SDK subscribes to tools/list_changed only when the client has a
// ToolListChangedHandler at Connect time, so the host installs
// [Tools.HandleListChanged] before it connects, and loads the list once
// connected:
//
//	tools := reflectionmcp.NewTools()
//	client := mcp.NewClient(impl, &mcp.ClientOptions{
//		ToolListChangedHandler: tools.HandleListChanged,
//	})
//	session, err := client.Connect(ctx, transport, nil)
//	// ...
//	err = tools.Load(ctx, session)
//	// ...
//	driver := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithSchemas(tools.Schemas()),
//		reflection.WithEffects(tools.Effect), // for a server you trust
//	)
//	res, err := reflectionmcp.CallTool(ctx, driver, session, call)
//
// Telemetry needs nothing here: a Driver built with reflectionotel's
// Observer traces the calls CallTool and Dispatch run.
//
// # What maps to what
//
//   - A ToolCall is a tools/call request: Name is the tool, Input the
//     arguments as they are (empty or null: none). A ToolChange is a
//     tools/call under the other name.
//   - A result is a ToolResult whose Content is [ResultText] of it, capped
//     at DefaultMaxResultBytes ([WithMaxResultBytes]), and whose IsError is
//     the result's: an error result is a failure the Driver analyses.
//   - A Go error from the session is a failure too, wrapped so that
//     errors.As still reaches the SDK's *jsonrpc.Error. One that says the
//     server refused the request before running anything (an unknown tool,
//     invalid params, method not found) also matches
//     reflection.ErrInputRejected, and so reflection.ErrNoEffect, as do an
//     input that is not JSON and the SDK server's error result for
//     arguments that fail a typed tool's input schema: a breaker does not
//     count them, and the effect guard knows nothing ran.
//   - A tool's annotations are its effect: readOnlyHint is
//     reflection.EffectReadOnly, idempotentHint reflection.EffectIdempotent,
//     and anything else reflection.EffectNonIdempotent, the MCP
//     specification's default. Annotations are the server's hints: trust
//     them only from a server you trust.
//   - What the framework sees of a failure: MCP has no hard error for a
//     failed tool, and CallTool keeps it so. Its error is
//     reflection.FrameworkError's, non-nil only when ctx has ended; every
//     other end is a result with IsError set and the latest failure text,
//     which the model reads.
//
// Everything in this package is safe for concurrent use.
package reflectionmcp
