package reflectioneino

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/loopctl-go/reflection"
)

// ErrUnknownTool matches, with errors.Is, the failure a call to a tool that
// the Toolset (or a wrapper from WrapTool) does not have: a tool name the
// model made up, or a ToolChange to a tool that is not there. Its text names
// the tool and the tools that exist, for the Reflector and the model.
var ErrUnknownTool = errors.New("reflectioneino: unknown tool")

// Toolset is the tool list of one ToolsNode, prepared once for recovery: the
// tools by name, ready to run in place of one another after a ToolChange,
// and their schemas, built once from their ToolInfo.
//
// A Toolset is immutable after NewToolset and safe for concurrent use, as
// are the middleware and handlers it returns. It knows the tools it was
// built from: a list given to one call with compose.WithToolList (or
// react.WithTools) is not seen by ToolChange and UnknownToolsHandler, which
// then know only the Toolset's own list.
type Toolset struct {
	tools   []tool.BaseTool
	members map[string]*member
	names   string // the tool names, comma separated, for ErrUnknownTool's text
}

// NewToolset builds a Toolset from the tools a ToolsNode will run, calling
// each tool's Info once. It fails for a nil tool, a tool whose Info fails or
// has no name, a tool eino could not run (neither invokable nor streamable,
// plain or enhanced), parameters that do not convert to a JSON Schema, and two
// tools with the same name (a ToolsNode would silently keep the last).
func NewToolset(ctx context.Context, tools []tool.BaseTool) (*Toolset, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Toolset{tools: slices.Clone(tools), members: make(map[string]*member, len(tools))}
	names := make([]string, 0, len(tools))
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("reflectioneino: tool %d is nil", i)
		}
		m, err := newMember(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("%w (tool %d)", err, i)
		}
		name := m.runInfo.Name
		if _, dup := s.members[name]; dup {
			return nil, fmt.Errorf("reflectioneino: two tools are named %q (tool %d)", name, i)
		}
		s.members[name] = m
		names = append(names, name)
	}
	s.names = "the tools are: " + strings.Join(names, ", ")
	if len(names) == 0 {
		s.names = "there are no tools"
	}
	return s, nil
}

// Schemas returns the Toolset's reflection.SchemaLookup, for
// reflection.WithSchemas(set.Schemas()): the schema of each tool, built once
// from its ToolInfo, and false for a tool the Toolset does not have. With it
// the Reflector sees the failing tool's schema, and a ToolChange to a tool
// that does not exist is dropped before the retry.
func (s *Toolset) Schemas() reflection.SchemaLookup { return s.schema }

// schema is the lookup Schemas returns.
func (s *Toolset) schema(name string) (reflection.ToolSchema, bool) {
	m, ok := s.members[name]
	if !ok {
		return reflection.ToolSchema{}, false
	}
	return m.schema, true
}

// Config returns a ToolsNodeConfig that runs the Toolset's tools through d:
// Tools, ToolCallMiddlewares holding Middleware(d), and UnknownToolsHandler
// set to UnknownToolsHandler(d). Set its other fields as usual; a middleware
// of your own goes before the Toolset's, which must stay last (see
// Middleware). It fits compose.NewToolNode and react.AgentConfig.ToolsConfig.
func (s *Toolset) Config(d *reflection.Driver) compose.ToolsNodeConfig {
	return compose.ToolsNodeConfig{
		Tools:               slices.Clone(s.tools),
		UnknownToolsHandler: s.UnknownToolsHandler(d),
		ToolCallMiddlewares: []compose.ToolMiddleware{s.Middleware(d)},
	}
}

// member returns the named tool, or an error matching ErrUnknownTool.
func (s *Toolset) member(name string) (*member, error) {
	if m, ok := s.members[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%w %q (%s)", ErrUnknownTool, name, s.names)
}
