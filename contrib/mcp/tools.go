package reflectionmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxToolListPages caps the pages of one tool listing: a server whose cursor
// never ends cannot keep a Load or a refresh going forever.
const MaxToolListPages = 1000

// Tools is the tool list of one MCP server session, kept for a
// reflection.Driver: [Tools.Schemas] is its reflection.SchemaLookup,
// [Tools.Effect] its effect func (reflection.WithEffects), and
// [Tools.Catalog] the list a Reflector may choose a ToolChange from.
//
// [Tools.Load] lists the tools once, following every page, and builds each
// tool's schema and effect then, so a lookup marshals nothing. When the
// server says its list changed, [Tools.HandleListChanged] lists them again
// and swaps the new list in whole; lookups never wait for a listing and see
// either the old list or the new one. A listing that fails keeps the list
// it would have replaced.
//
// A Tools is safe for concurrent use. Use one per session: it follows the
// session last given to Load and ignores notifications from any other.
type Tools struct {
	logger *slog.Logger

	list atomic.Pointer[toolList] // nil until the first listing succeeds

	mu      sync.Mutex
	session *mcp.ClientSession // the session Load was last given

	// listing holds one token; whoever holds it lists the tools, so
	// listings run one at a time and the last one started is the last one
	// stored. A channel rather than a mutex lets a waiting Load give up
	// when its ctx ends.
	listing chan struct{}
}

// toolList is one listing of the server's tools; it never changes once
// stored.
type toolList struct {
	ordered []reflection.ToolSchema // in the server's order
	effects []reflection.Effect     // of ordered[i], from its annotations
	byName  map[string]int          // index into ordered
}

// NewTools returns an empty Tools: it knows no tool until Load succeeds.
// Of the options, it reads WithLogger.
func NewTools(opts ...Option) *Tools {
	return &Tools{logger: newConfig(opts).logger, listing: make(chan struct{}, 1)}
}

// Load lists the tools of session, every page, and makes that list the one
// the lookups serve. From then on, HandleListChanged follows session. Call it
// after Connect and before the first call runs; call it again with the new
// session after a reconnect.
//
// On error the list served before stays (none, on a first Load). ctx bounds
// the listing, and the wait for a listing already running.
func (t *Tools) Load(ctx context.Context, session *mcp.ClientSession) error {
	if session == nil {
		return fmt.Errorf("reflectionmcp: load tools: %w", ErrNilSession)
	}
	t.mu.Lock()
	t.session = session
	t.mu.Unlock()
	return t.refresh(ctx, session)
}

// HandleListChanged lists the tools again. It has the signature of
// mcp.ClientOptions.ToolListChangedHandler: install it there before Connect,
// since the SDK subscribes to tools/list_changed only for a client that has
// such a handler. A host with its own handler calls this one from it.
//
// It runs on the session's notification goroutine and returns when the new
// list is stored or the listing failed (the old list then stays, and the
// failure goes to the logger of WithLogger). A notification for a session
// other than the one given to Load, or before any Load, is ignored: Load
// lists the tools anyway.
func (t *Tools) HandleListChanged(ctx context.Context, req *mcp.ToolListChangedRequest) {
	if req == nil || req.Session == nil {
		return
	}
	t.mu.Lock()
	ours := req.Session == t.session
	t.mu.Unlock()
	if !ours {
		return
	}
	if err := t.refresh(ctx, req.Session); err != nil && t.logger != nil {
		t.logger.LogAttrs(ctx, slog.LevelWarn, "reflectionmcp: tool list not refreshed; the previous list stays",
			slog.Any("error", err))
	}
}

// refresh lists the tools of session and stores the list, unless Load has
// moved to another session meanwhile.
func (t *Tools) refresh(ctx context.Context, session *mcp.ClientSession) error {
	select {
	case t.listing <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("reflectionmcp: list tools: %w", context.Cause(ctx))
	}
	defer func() { <-t.listing }()

	l, err := listTools(ctx, session)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == session {
		t.list.Store(l)
	}
	return nil
}

// listTools fetches every page of session's tool list and builds the schemas.
func listTools(ctx context.Context, session *mcp.ClientSession) (*toolList, error) {
	l := &toolList{byName: make(map[string]int)}
	params := &mcp.ListToolsParams{}
	seen := make(map[string]bool)
	for page := 0; ; page++ {
		if page == MaxToolListPages {
			return nil, fmt.Errorf("reflectionmcp: list tools: more than %d pages", MaxToolListPages)
		}
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("reflectionmcp: list tools: %w", err)
		}
		for _, tool := range res.Tools {
			if tool != nil {
				l.add(tool)
			}
		}
		next := res.NextCursor
		if next == "" {
			return l, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("reflectionmcp: list tools: the server repeated the cursor %q", next)
		}
		seen[next] = true
		params = &mcp.ListToolsParams{Cursor: next}
	}
}

// add stores tool's schema and effect; a later tool of the same name
// replaces it.
func (l *toolList) add(tool *mcp.Tool) {
	s := reflection.ToolSchema{Name: tool.Name, Description: tool.Description}
	if tool.InputSchema != nil {
		if b, err := json.Marshal(tool.InputSchema); err == nil && string(b) != "null" {
			s.InputSchema = b
		}
	}
	e := annotatedEffect(tool.Annotations)
	if i, ok := l.byName[tool.Name]; ok {
		l.ordered[i], l.effects[i] = s, e
		return
	}
	l.byName[tool.Name] = len(l.ordered)
	l.ordered = append(l.ordered, s)
	l.effects = append(l.effects, e)
}
