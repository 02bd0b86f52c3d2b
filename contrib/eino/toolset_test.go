package reflectioneino_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	orderedmap "github.com/wk8/go-ordered-map/v2"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// countingTool counts the calls of Info.
type countingTool struct {
	*textTool
	infos atomic.Int32
}

func (c *countingTool) Info(ctx context.Context) (*schema.ToolInfo, error) {
	c.infos.Add(1)
	return c.textTool.Info(ctx)
}

func TestToolsetSchemas(t *testing.T) {
	props := orderedmap.New[string, *jsonschema.Schema]()
	props.Set("query", &jsonschema.Schema{Type: "string", Description: "what to look for"})
	props.Set("limit", &jsonschema.Schema{Type: "integer"})
	search := newTextTool("search", nil)
	search.info = &schema.ToolInfo{Name: "search", Desc: "searches the web",
		ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&jsonschema.Schema{Type: "object", Properties: props, Required: []string{"query"}})}
	clock := newTextTool("clock", nil)
	clock.info = &schema.ToolInfo{Name: "clock", Desc: "tells the time"}

	set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{weatherTool(), search, clock})
	require.NoError(t, err)

	tests := []struct {
		name, tool, desc, schema string
	}{
		{"from parameters", "weather", "the weather tool",
			`{"type":"object","properties":{"city":{"type":"string","description":"a city"}},"required":["city"]}`},
		{"from a JSON Schema", "search", "searches the web",
			`{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer"}},"required":["query"]}`},
		{"no parameters", "clock", "tells the time", `{"type":"object","properties":{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := set.Schemas()(tc.tool)
			require.True(t, ok)
			assert.Equal(t, tc.tool, s.Name)
			assert.Equal(t, tc.desc, s.Description)
			assert.JSONEq(t, tc.schema, string(s.InputSchema))
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		_, ok := set.Schemas()("nowhere")
		assert.False(t, ok)
	})
}

func TestToolsetBuildsSchemasOnce(t *testing.T) {
	tl := &countingTool{textTool: weatherTool()}
	set, err := reflectioneino.NewToolset(context.Background(), []tool.BaseTool{tl})
	require.NoError(t, err)
	first, ok := set.Schemas()("weather")
	require.True(t, ok)
	for range 100 {
		s, _ := set.Schemas()("weather")
		require.Same(t, &first.InputSchema[0], &s.InputSchema[0], "every lookup returns the bytes built once")
	}
	assert.Equal(t, int32(1), tl.infos.Load(), "Info is called once, by NewToolset")
}

// baseOnly has a ToolInfo but no way to run.
type baseOnly struct{}

func (baseOnly) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "idle"}, nil
}

func TestNewToolsetRefusesBadTools(t *testing.T) {
	unnamed := newTextTool("", nil)
	tests := []struct {
		name  string
		tools []tool.BaseTool
		want  string
	}{
		{"nil tool", []tool.BaseTool{weatherTool(), nil}, "reflectioneino: tool 1 is nil"},
		{"info fails", []tool.BaseTool{&brokenInfoTool{err: errors.New("registry offline")}},
			"reflectioneino: tool info: registry offline (tool 0)"},
		{"no info", []tool.BaseTool{&brokenInfoTool{}},
			"reflectioneino: *reflectioneino_test.brokenInfoTool returned no tool info (tool 0)"},
		{"no name", []tool.BaseTool{unnamed}, "reflectioneino: *reflectioneino_test.textTool has an empty tool name (tool 0)"},
		{"not runnable", []tool.BaseTool{baseOnly{}},
			`reflectioneino: tool "idle" (reflectioneino_test.baseOnly) is not invokable, streamable, enhanced invokable or enhanced streamable (tool 0)`},
		{"two tools with one name", []tool.BaseTool{weatherTool(), okTool("echo"), weatherTool()},
			`reflectioneino: two tools are named "weather" (tool 2)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := reflectioneino.NewToolset(context.Background(), tc.tools)
			assert.Nil(t, set)
			assert.EqualError(t, err, tc.want)
		})
	}
}

func TestEmptyToolset(t *testing.T) {
	set, err := reflectioneino.NewToolset(context.Background(), nil)
	require.NoError(t, err)
	handler := set.UnknownToolsHandler(nil)
	out, err := handler(context.Background(), "anything", `{}`)
	require.NoError(t, err)
	assert.Equal(t, `reflectioneino: unknown tool "anything" (there are no tools)`, out)
}
