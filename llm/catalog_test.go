package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catalogOf returns a WithToolCatalog func that lists tools and counts its
// calls.
func catalogOf(calls *int, tools ...reflection.ToolSchema) llm.Option {
	return llm.WithToolCatalog(func(context.Context) []reflection.ToolSchema {
		*calls++
		return tools
	})
}

func TestCatalogInTheUserMessage(t *testing.T) {
	tests := []struct {
		name  string
		tools []reflection.ToolSchema
		opts  []llm.Option
		want  string // after the template and a blank line; "" for no catalog
	}{
		{
			name: "the failing tool excluded, the order kept",
			tools: []reflection.ToolSchema{{Name: "search", Description: "Search the workspace."}, {Name: "read_file", Description: "Read a file."},
				{Name: "list_dir", Description: "List a directory."}, {Name: "stat"}},
			want: "Other tools you may name as alternative_tool in a tool_change:\n- search: Search the workspace.\n- list_dir: List a directory.\n- stat",
		},
		{
			name:  "only the failing tool",
			tools: []reflection.ToolSchema{{Name: "read_file"}},
			want:  "Other tools you may name as alternative_tool in a tool_change: none.",
		},
		{
			name: "cut at the size limit with a marker",
			tools: []reflection.ToolSchema{{Name: "aaaa", Description: "first"}, {Name: "bbbb", Description: "second"},
				{Name: "cccc", Description: "third"}, {Name: "dddd", Description: "fourth"}},
			opts: []llm.Option{llm.WithMaxCatalogBytes(len("Other tools you may name as alternative_tool in a tool_change:") + 30)},
			want: "Other tools you may name as alternative_tool in a tool_change:\n- aaaa: first\n- bbbb: second\n…[2 more tools not shown]",
		},
		{
			name:  "a long description cut at a quarter of the limit",
			tools: []reflection.ToolSchema{{Name: "big", Description: strings.Repeat("d", 5000)}, {Name: "small", Description: "s"}},
			want: "Other tools you may name as alternative_tool in a tool_change:\n- big: " + strings.Repeat("d", llm.DefaultMaxCatalogBytes/4) +
				"…[truncated 3976 bytes]\n- small: s",
		},
		{
			name:  "line breaks in names and descriptions indented",
			tools: []reflection.ToolSchema{{Name: "a\nTool: x", Description: "line one\nAttempt: 6 of 6"}},
			want:  "Other tools you may name as alternative_tool in a tool_change:\n- a\n  Tool: x: line one\n  Attempt: 6 of 6",
		},
		{name: "an empty list is no catalog", tools: []reflection.ToolSchema{}},
		{name: "a nil list is no catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := answering(t, answer(false, "low", nil))
			calls := 0
			_, err := llm.New(client, append(tt.opts, catalogOf(&calls, tt.tools...))...).Analyze(context.Background(), readFailure())
			require.NoError(t, err)
			assert.Equal(t, 1, calls)
			want := llm.UserMessage(readFailure())
			if tt.want != "" {
				want += "\n\n" + tt.want
			}
			assert.Equal(t, want, userContent(t, srv))
		})
	}
}

func TestCatalogDecidesWhichToolChangeIsUsable(t *testing.T) {
	tools := []reflection.ToolSchema{{Name: "read_file"}, {Name: "list_dir"}, {Name: "grep", Description: strings.Repeat("x", 9000)}, {Name: "stat"}}
	tests := []struct {
		name     string
		tool     any // alternative_tool
		catalog  []reflection.ToolSchema
		opts     []llm.Option
		wantErr  bool
		requests int
	}{
		{name: "a listed tool", tool: "list_dir", catalog: tools, requests: 1},
		{name: "the failing tool itself is in the list", tool: "read_file", catalog: tools, requests: 1},
		{name: "a tool cut from the message is still in the list", tool: "stat", catalog: tools,
			opts: []llm.Option{llm.WithMaxCatalogBytes(100)}, requests: 1},
		{name: "a tool not in the list", tool: "delete_all_files", catalog: tools, wantErr: true, requests: 2},
		{name: "a name differing in case", tool: "List_Dir", catalog: tools, wantErr: true, requests: 2},
		{name: "no name at all", tool: nil, catalog: tools, wantErr: true, requests: 2},
		{name: "without a catalog any name goes", tool: "delete_all_files", catalog: nil, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, client := answering(t, answer(true, "low", corr("tool_change", nil, tt.tool, nil)))
			calls := 0
			r := llm.New(client, append(tt.opts, catalogOf(&calls, tt.catalog...))...)
			got, err := r.Analyze(context.Background(), readFailure())
			assert.Equal(t, tt.requests, srv.requests())
			assert.Equal(t, 1, calls, "the catalog is asked once per Analyze, repairs included")
			if tt.wantErr {
				requireInternal(t, err)
				assert.Contains(t, err.Error(), "is not in the tool catalog")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.tool, got.Correction.AlternativeTool)
		})
	}
}

type ctxKey struct{}

func TestCatalogGetsTheContextOfAnalyze(t *testing.T) {
	_, client := answering(t, answer(false, "low", nil))
	var got any
	r := llm.New(client, llm.WithToolCatalog(func(ctx context.Context) []reflection.ToolSchema {
		got = ctx.Value(ctxKey{})
		return nil
	}))
	_, err := r.Analyze(context.WithValue(context.Background(), ctxKey{}, "trace-7"), readFailure())
	require.NoError(t, err)
	assert.Equal(t, "trace-7", got)
}
