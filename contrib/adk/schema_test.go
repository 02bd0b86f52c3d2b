package reflectionadk_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// declared is a function tool declared with a genai.Schema, as hand-written
// tools and older toolsets declare themselves.
type declared struct {
	notAFunction
	decl *genai.FunctionDeclaration
}

func (d declared) Name() string { return d.decl.Name }

func (d declared) Declaration() *genai.FunctionDeclaration { return d.decl }

func (d declared) Run(agent.Context, any) (map[string]any, error) { return map[string]any{}, nil }

func (d declared) ProcessRequest(agent.Context, *model.LLMRequest) error { return nil }

func TestSchema(t *testing.T) {
	one, ten := int64(1), int64(10)
	yes := true
	tests := []struct {
		name string
		tool tool.Tool
		want string // "" for no schema
	}{
		{
			name: "functiontool's inferred JSON Schema, as it is",
			tool: newTool(t, "stock", (&flaky{}).run),
			want: `{"type":"object","required":["item"],"properties":{"item":{"type":"string","description":"the item to look up"}},"additionalProperties":false}`,
		},
		{
			name: "a genai.Schema, as the JSON Schema it stands for",
			tool: declared{decl: &genai.FunctionDeclaration{Name: "search", Description: "searches", Parameters: &genai.Schema{
				Type:     genai.TypeObject,
				Required: []string{"q"},
				Properties: map[string]*genai.Schema{
					"q":     {Type: genai.TypeString, MinLength: &one, Description: "the query"},
					"limit": {Type: genai.TypeInteger, Nullable: &yes, Maximum: ptr(100.0)},
					"tags":  {Type: genai.TypeArray, Items: &genai.Schema{Type: genai.TypeString, Enum: []string{"a", "b"}}, MaxItems: &ten},
					"any":   {AnyOf: []*genai.Schema{{Type: genai.TypeString}, {Type: genai.TypeNumber}}},
				},
			}}},
			want: `{"type":"object","required":["q"],"properties":{
				"q":{"type":"string","minLength":1,"description":"the query"},
				"limit":{"type":["integer","null"],"maximum":100},
				"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":10},
				"any":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`,
		},
		{
			name: "no parameters",
			tool: declared{decl: &genai.FunctionDeclaration{Name: "now"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := reflectionadk.Schema(tt.tool)
			require.True(t, ok)
			assert.Equal(t, tt.tool.Name(), s.Name)
			if tt.want == "" {
				assert.Nil(t, s.InputSchema)
				return
			}
			assert.JSONEq(t, tt.want, string(s.InputSchema))
		})
	}

	_, ok := reflectionadk.Schema(notAFunction{})
	assert.False(t, ok, "a tool that declares no function has no schema")

	lookup := reflectionadk.Schemas(newTool(t, "stock", (&flaky{}).run), notAFunction{})
	_, ok = lookup("stock")
	assert.True(t, ok)
	_, ok = lookup("search")
	assert.False(t, ok)
}

func ptr[T any](v T) *T { return &v }

// TestToolChangeToAToolTheAgentDoesNotOffer: the plugin's schema lookup
// knows every tool it has seen, across agents; a ToolChange to one the
// calling agent does not offer fails without running anything.
func TestToolChangeToAToolTheAgentDoesNotOffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var failures []reflection.Failure
		d := reflection.NewDriver(reflection.WithReflector(reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
			failures = append(failures, f)
			return reflection.FailureAnalysis{IsRecoverable: len(failures) == 1, Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "stock_v2"}}, nil
		})))
		p := reflectionadk.MustNewPlugin(d)
		v2 := &flaky{}
		first := newRunner(t, agentSetup{
			model:   &scriptedModel{tool: "stock_v2", args: map[string]any{"item": "widget"}},
			tools:   []tool.Tool{newTool(t, "stock_v2", v2.run)},
			plugins: []*plugin.Plugin{p},
		})
		ask(t.Context(), t, first, "s1", "how many widgets?")

		old := &flaky{fails: []error{errUnavailable}}
		second := newRunner(t, agentSetup{
			model:   &scriptedModel{tool: "stock", args: map[string]any{"item": "widget"}},
			tools:   []tool.Tool{newTool(t, "stock", old.run)},
			plugins: []*plugin.Plugin{p},
		})
		ask(t.Context(), t, second, "s2", "how many widgets?")

		assert.Equal(t, 1, v2.count(), "only the first agent's own call")
		require.Len(t, failures, 2)
		assert.Equal(t, "stock_v2", failures[1].Tool)
		assert.ErrorIs(t, failures[1].Err, reflectionadk.ErrUnknownTool)
		assert.ErrorIs(t, failures[1].Err, reflection.ErrInputRejected)
	})
}
