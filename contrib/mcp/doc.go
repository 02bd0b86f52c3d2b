// Package mcp runs the tool calls of an MCP client through a
// [reflection.Driver], for the official Go SDK of the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk).
//
// The SDK's package is named mcp too, and a host imports both: import this
// one under another name,
//
//	import reflectmcp "github.com/loopctl-go/reflection/contrib/mcp"
//
// In this documentation, mcp.X names the SDK's X.
//
// # Two pieces
//
// [Dispatch] turns a *mcp.ClientSession into a [reflection.DispatchFunc]: each
// attempt of a call is one tools/call request. A result with IsError set is a
// failure whose text is the result's content, and so is a Go error from the
// session (the SDK reports an unknown tool that way), so the Driver analyses
// both like any other failure. [ResultText] says how a result's content
// becomes the text the model reads.
//
// [Tools] is the server's tool list as a [reflection.SchemaLookup]: the
// Reflector sees each tool's input schema, and a ToolChange to a tool the
// server does not list is dropped by the Driver. The list is fetched once,
// every page of it, and fetched again when the server says it changed. The
// SDK subscribes to that notification only when the client has a
// ToolListChangedHandler at Connect time, so the host installs
// [Tools.HandleListChanged] in its ClientOptions before it connects:
//
//	tools := reflectmcp.NewTools()
//	client := mcp.NewClient(impl, &mcp.ClientOptions{
//		ToolListChangedHandler: tools.HandleListChanged,
//	})
//	session, err := client.Connect(ctx, transport, nil)
//	// ...
//	err = tools.Load(ctx, session)
//	// ...
//	driver := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithSchemas(tools.Lookup),
//	)
//	res, err := driver.Run(ctx, call, reflectmcp.Dispatch(session))
//
// # What the model sees
//
// MCP has no hard error for a failed tool: a result with IsError is a soft
// error the model reads. With the Driver it stays one: Skip, AskUser and
// Fail end in a result with IsError set and the tool's own failure text.
// Driver.Run returns an error only when ctx ends, a wait cannot end before
// ctx's deadline, or the sixth call fails and the strategy still says
// Retry; even then its result carries the latest failure text, which a host
// should hand to the model unless ctx has ended.
//
// Everything in this package is safe for concurrent use.
package mcp
