package reflectionmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// protocols are the two ways the SDK delivers tools/list_changed: on the
// session itself (up to 2025-11-25) and on a subscriptions/listen stream
// the client opens at Connect (2026-07-28).
var protocols = []string{"2025-11-25", "2026-07-28"}

func names(schemas []reflection.ToolSchema) []string {
	var out []string
	for _, s := range schemas {
		out = append(out, s.Name)
	}
	return out
}

// TestToolsPaginated lists a server that sends one tool per page: every page
// is followed, in the server's order.
func TestToolsPaginated(t *testing.T) {
	for _, size := range []int{1, 2, 0} {
		t.Run("page size "+strconv.Itoa(size), func(t *testing.T) {
			f := newFixture(t, size)
			want := []string{"flaky", "read_file", "search_v1", "search_v2"}
			assert.Equal(t, want, names(f.tools.Catalog(context.Background())))
			for _, name := range want {
				s, ok := f.tools.Schema(name)
				assert.True(t, ok, name)
				assert.Equal(t, name, s.Name)
				assert.True(t, json.Valid(s.InputSchema), "%s: %s", name, s.InputSchema)
			}
			_, ok := f.tools.Schema("search_v3")
			assert.False(t, ok)
		})
	}
}

// TestToolsBeforeLoad checks that a Tools knows nothing before Load, so a
// Driver using it drops every ToolChange instead of guessing.
func TestToolsBeforeLoad(t *testing.T) {
	tools := reflectionmcp.NewTools()
	_, ok := tools.Schema("read_file")
	assert.False(t, ok)
	assert.Nil(t, tools.Catalog(context.Background()))
	tools.HandleListChanged(context.Background(), nil)                           // no request: ignored
	tools.HandleListChanged(context.Background(), &mcp.ToolListChangedRequest{}) // no session: ignored
	require.ErrorIs(t, tools.Load(context.Background(), nil), reflectionmcp.ErrNilSession)
}

// TestToolsFollowListChanges adds and removes tools on the server: the
// lookup picks up each change from the server's notification, and a Driver
// using it can switch to a tool that did not exist when the call began.
func TestToolsFollowListChanges(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixtureWith(t, setup{pageSize: 2, protocol: protocol})
				_, ok := f.tools.Schema("search_v3")
				require.False(t, ok)

				mcp.AddTool(f.server, &mcp.Tool{Name: "search_v3", Description: "The new search."},
					func(_ context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "v3 found " + in.Query}}}, nil, nil
					})
				<-f.listChanged
				s, ok := f.tools.Schema("search_v3")
				require.True(t, ok, "the lookup picked up the new tool")
				assert.Equal(t, "The new search.", s.Description)
				assert.Equal(t, []string{"flaky", "read_file", "search_v1", "search_v2", "search_v3"}, names(f.tools.Catalog(context.Background())))

				r := reflectiontest.NewReflector(toolChange("search_v3")).RepeatLast()
				call := reflection.ToolCall{ID: "c1", Name: "search_v1", Input: json.RawMessage(`{"query":"todo"}`)}
				res, err := f.driver(r).Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
				require.NoError(t, err)
				assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "v3 found todo"}, res)

				f.server.RemoveTools("search_v1", "search_v2")
				<-f.listChanged
				assert.Equal(t, []string{"flaky", "read_file", "search_v3"}, names(f.tools.Catalog(context.Background())))
				_, ok = f.tools.Schema("search_v2")
				assert.False(t, ok, "a removed tool is gone from the lookup")
			})
		})
	}
}

// TestToolsRefreshFailureKeepsList makes the server fail every listing after
// the first: the notification's refresh fails, the old list stays, and the
// failure goes to the logger.
func TestToolsRefreshFailureKeepsList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var lists atomic.Int64
		failLater := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" && lists.Add(1) > 1 {
					return nil, errors.New("tool registry offline")
				}
				return next(ctx, method, req)
			}
		}
		var logs bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
		f := newFixtureWith(t, setup{serverMiddle: failLater, tools: []reflectionmcp.Option{reflectionmcp.WithLogger(logger)}})
		before := f.tools.Catalog(context.Background())

		f.server.RemoveTools("flaky")
		<-f.listChanged
		assert.Equal(t, before, f.tools.Catalog(context.Background()), "the old list stays")
		assert.Contains(t, logs.String(), `level=WARN msg="reflectionmcp: tool list not refreshed; the previous list stays"`)
		assert.Contains(t, logs.String(), "tool registry offline")

		err := f.tools.Load(context.Background(), f.session)
		require.ErrorContains(t, err, "tool registry offline")
		assert.Equal(t, before, f.tools.Catalog(context.Background()), "a failed Load keeps the old list too")
	})
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// TestToolsMisbehavingPagination gives Load a server whose cursor never ends.
func TestToolsMisbehavingPagination(t *testing.T) {
	tests := []struct {
		name    string
		cursor  func(n int64) string
		wantErr string
	}{
		{"a repeated cursor", func(int64) string { return "same" }, `the server repeated the cursor "same"`},
		{"endless pages", func(n int64) string { return fmt.Sprint("page-", n) }, "more than 1000 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages atomic.Int64
			endless := func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method != "tools/list" {
						return next(ctx, method, req)
					}
					n := pages.Add(1)
					return &mcp.ListToolsResult{
						Tools:      []*mcp.Tool{{Name: fmt.Sprint("tool_", n), InputSchema: map[string]any{"type": "object"}}},
						NextCursor: tt.cursor(n),
					}, nil
				}
			}
			f := newFixtureWith(t, setup{serverMiddle: endless, noLoad: true})
			err := f.tools.Load(context.Background(), f.session)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, f.tools.Catalog(context.Background()), "nothing half-listed is served")
		})
	}
}

// TestToolsOddLists gives Load a list with a name twice and a tool without
// an input schema: the later tool of a name wins, in the first one's place,
// and a missing schema is a nil InputSchema.
func TestToolsOddLists(t *testing.T) {
	odd := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{
				{Name: "a", Description: "first", InputSchema: map[string]any{"type": "object"}},
				{Name: "b", Description: "no schema"},
				{Name: "a", Description: "second", InputSchema: map[string]any{"type": "object", "required": []string{"x"}}},
			}}, nil
		}
	}
	f := newFixtureWith(t, setup{serverMiddle: odd})
	assert.Equal(t, []reflection.ToolSchema{
		{Name: "a", Description: "second", InputSchema: json.RawMessage(`{"required":["x"],"type":"object"}`)},
		{Name: "b", Description: "no schema"},
	}, f.tools.Catalog(context.Background()))
}

// TestToolsFollowOneSession checks that a Tools follows the session Load was
// last given: a notification from another session of the same client is
// ignored, and after a Load with a new session (a reconnect) the old one's
// notifications are.
func TestToolsFollowOneSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newFixture(t, 0)
		b := newFixture(t, 0)
		mcp.AddTool(b.server, &mcp.Tool{Name: "only_on_b"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
		<-b.listChanged

		// b's session, notifying a's Tools: ignored.
		a.tools.HandleListChanged(context.Background(), &mcp.ToolListChangedRequest{Session: b.session})
		_, ok := a.tools.Schema("only_on_b")
		assert.False(t, ok)

		// a's Tools moves to b's session; a's own notifications no longer count.
		require.NoError(t, a.tools.Load(context.Background(), b.session))
		_, ok = a.tools.Schema("only_on_b")
		assert.True(t, ok)
		a.server.RemoveTools("flaky")
		<-a.listChanged
		_, ok = a.tools.Schema("flaky")
		assert.True(t, ok, "b still has flaky; a's change is not b's")
	})
}

// TestToolsConcurrentUse runs lookups, calls and list changes at once, for
// the race detector.
func TestToolsConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		d := f.driver(reflectiontest.NewReflector(inputFix(`{"path":"notes/todo.md"}`)).RepeatLast())
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				call := reflection.ToolCall{ID: strconv.Itoa(i), Name: "read_file", Input: json.RawMessage(`{"path":"x"}`)}
				res, err := d.Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
				assert.NoError(t, err)
				assert.Equal(t, reflection.ToolResult{ID: call.ID, Content: "- ship v1"}, res)
				_, ok := f.tools.Schema("read_file")
				assert.True(t, ok)
				_ = f.tools.Catalog(context.Background())
			})
		}
		for i := range 4 {
			mcp.AddTool(f.server, &mcp.Tool{Name: fmt.Sprint("extra_", i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
			wg.Go(func() { assert.NoError(t, f.tools.Load(context.Background(), f.session)) })
		}
		wg.Wait()
		synctest.Wait()
		for len(f.listChanged) > 0 {
			<-f.listChanged
		}
		assert.Len(t, f.tools.Catalog(context.Background()), 8)
	})
}

// TestLoadWaitHonoursContext checks that a Load waiting behind a listing
// already running gives up when its ctx ends.
func TestLoadWaitHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var lists atomic.Int64
		stall := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" && lists.Add(1) == 1 {
					<-release
				}
				return next(ctx, method, req)
			}
		}
		f := newFixtureWith(t, setup{serverMiddle: stall, noLoad: true})
		first := make(chan error, 1)
		go func() { first <- f.tools.Load(context.Background(), f.session) }()
		synctest.Wait() // the first Load is now waiting for its listing

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := f.tools.Load(ctx, f.session)
		require.ErrorIs(t, err, context.Canceled)

		close(release)
		require.NoError(t, <-first)
		assert.Len(t, f.tools.Catalog(context.Background()), 4)
	})
}
