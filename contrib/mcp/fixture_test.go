package reflectionmcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
)

// fixture is an MCP server and a client connected to it over the SDK's
// in-memory transports, with a Tools installed the way a host installs it.
type fixture struct {
	server  *mcp.Server
	session *mcp.ClientSession
	tools   *reflectionmcp.Tools

	// listChanged receives once per change notification, after the Tools
	// handler has returned.
	listChanged chan struct{}

	calls sync.Map // tool name -> *atomic.Int64: tools/call requests the server ran
}

// setup says how newFixtureWith builds a fixture; the zero setup is the
// SDK's defaults.
type setup struct {
	pageSize     int    // tools per list page; 0 means the SDK's default
	protocol     string // the client's protocol version; "" means the SDK's latest
	tools        []reflectionmcp.Option
	serverMiddle mcp.Middleware // on the server's receiving side, when set
	noLoad       bool           // leave Tools.Load to the test
	more         func(*fixture) // registers more tools before the client connects
}

// newFixture starts a server with the fixture's tools (pageSize tools per
// list page; 0 means the SDK's default), connects a client and loads the
// tool list.
func newFixture(t testing.TB, pageSize int) *fixture {
	t.Helper()
	return newFixtureWith(t, setup{pageSize: pageSize})
}

func newFixtureWith(t testing.TB, s setup) *fixture {
	t.Helper()
	f := &fixture{
		tools:       reflectionmcp.NewTools(s.tools...),
		listChanged: make(chan struct{}, 16),
	}
	f.server = mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, &mcp.ServerOptions{PageSize: s.pageSize})
	if s.serverMiddle != nil {
		f.server.AddReceivingMiddleware(s.serverMiddle)
	}
	f.addTools()
	if s.more != nil {
		s.more(f)
	}

	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	serverSession, err := f.server.Connect(ctx, serverEnd, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		// A host with its own handler calls the adapter's from it.
		ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			f.tools.HandleListChanged(ctx, req)
			f.listChanged <- struct{}{}
		},
	})
	f.session, err = client.Connect(ctx, clientEnd, &mcp.ClientSessionOptions{ProtocolVersion: s.protocol})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = f.session.Close()
		_ = serverSession.Wait()
	})
	if !s.noLoad {
		require.NoError(t, f.tools.Load(ctx, f.session))
	}
	return f
}

// count records one run of tool on the server.
func (f *fixture) count(tool string) {
	c, _ := f.calls.LoadOrStore(tool, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

// ran reports how many times the server ran tool.
func (f *fixture) ran(tool string) int {
	c, ok := f.calls.Load(tool)
	if !ok {
		return 0
	}
	return int(c.(*atomic.Int64).Load())
}

type readFileArgs struct {
	Path string `json:"path" jsonschema:"the path of the file to read"`
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"what to search for"`
}

type searchHits struct {
	Query string   `json:"query"`
	Hits  []string `json:"hits"`
}

var files = map[string]string{"notes/todo.md": "- ship v1"}

// addTools registers the server's tools:
//   - read_file fails for a path it does not have (a typed tool: the SDK
//     validates its arguments against the schema it infers from
//     readFileArgs, and rejects anything else before the handler runs);
//   - search_v1 always fails, naming its successor;
//   - search_v2 is a typed tool with structured output;
//   - flaky fails with an error result on every call;
//   - slow blocks until its request is cancelled.
func (f *fixture) addTools() {
	mcp.AddTool(f.server, &mcp.Tool{Name: "read_file", Description: "Read a text file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in readFileArgs) (*mcp.CallToolResult, any, error) {
			f.count("read_file")
			body, ok := files[in.Path]
			if !ok {
				return nil, nil, fmt.Errorf("open %s: no such file or directory", in.Path)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: body}}}, nil, nil
		})
	mcp.AddTool(f.server, &mcp.Tool{Name: "search_v1", Description: "Deprecated search."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ searchArgs) (*mcp.CallToolResult, any, error) {
			f.count("search_v1")
			return nil, nil, errors.New("search_v1 is deprecated; use search_v2")
		})
	mcp.AddTool(f.server, &mcp.Tool{Name: "search_v2", Description: "Search the notes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchHits, error) {
			f.count("search_v2")
			return nil, searchHits{Query: in.Query, Hits: []string{"notes/todo.md"}}, nil
		})
	mcp.AddTool(f.server, &mcp.Tool{Name: "flaky", Description: "Always fails."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			n := f.ranAndCount("flaky")
			return nil, nil, fmt.Errorf("backend unavailable (call %d)", n)
		})
}

// ranAndCount records one run of tool and returns how many there were.
func (f *fixture) ranAndCount(tool string) int {
	f.count(tool)
	return f.ran(tool)
}

// lines is a small helper for multi-line expectations.
func lines(s ...string) string { return strings.Join(s, "\n") }

// addSlowTool registers slow: it says it started, then waits until its
// request is cancelled and reports why.
func (f *fixture) addSlowTool(started chan<- struct{}, done chan<- error) {
	mcp.AddTool(f.server, &mcp.Tool{Name: "slow", Description: "Waits until cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			f.count("slow")
			close(started)
			<-ctx.Done()
			done <- ctx.Err()
			return nil, nil, ctx.Err()
		})
	<-f.listChanged // the tool list now has slow
}
