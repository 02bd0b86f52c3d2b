package reflectioneino_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chartTool is an EnhancedInvokableTool: it draws the chart of Paris (a text
// part and an image part) and fails for any other city.
type chartTool struct {
	mu    sync.Mutex
	calls []string
}

func (t *chartTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "chart", Desc: "draws a chart"}, nil
}

func (t *chartTool) InvokableRun(_ context.Context, arg *schema.ToolArgument, _ ...tool.Option) (*schema.ToolResult, error) {
	t.mu.Lock()
	t.calls = append(t.calls, arg.Text)
	t.mu.Unlock()
	c, err := city(arg.Text)
	if err != nil {
		return nil, err
	}
	if c != "Paris" {
		return nil, fmt.Errorf("no chart for %q", c)
	}
	return chartOfParis(), nil
}

func (t *chartTool) Calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.calls...)
}

func chartOfParis() *schema.ToolResult {
	url := "https://charts.example/paris.png"
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{
		{Type: schema.ToolPartTypeText, Text: "rain chart of Paris"},
		{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}},
	}}
}

// chartStreamTool is an EnhancedStreamableTool that streams the chart of
// Paris in two chunks and fails before its stream for any other city.
// With down set it always fails.
type chartStreamTool struct {
	down  bool
	calls int
}

func (t *chartStreamTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "chart_stream"}, nil
}

func (t *chartStreamTool) StreamableRun(_ context.Context, arg *schema.ToolArgument, _ ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
	t.calls++
	if t.down {
		return nil, errors.New("the chart service is down")
	}
	c, err := city(arg.Text)
	if err != nil {
		return nil, err
	}
	if c != "Paris" {
		return nil, fmt.Errorf("no chart for %q", c)
	}
	parts := chartOfParis().Parts
	return schema.StreamReaderFromArray([]*schema.ToolResult{{Parts: parts[:1]}, {Parts: parts[1:]}}), nil
}

// multimodal is a tool message's parts as "type:text-or-url" strings.
func multimodal(msgs []*schema.Message) [][]string {
	var out [][]string
	for _, m := range msgs {
		var parts []string
		for _, p := range m.UserInputMultiContent {
			switch {
			case p.Image != nil && p.Image.URL != nil:
				parts = append(parts, string(p.Type)+":"+*p.Image.URL)
			default:
				parts = append(parts, string(p.Type)+":"+p.Text)
			}
		}
		out = append(out, parts)
	}
	return out
}

func TestEnhancedTools(t *testing.T) {
	chartParts := []string{"text:rain chart of Paris", "image_url:https://charts.example/paris.png"}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("enhanced invokable recovers by input fix", func(t *testing.T) {
				chart := &chartTool{}
				log := &callbackLog{}
				r := newReflector(inputFix(`{"city":"Paris"}`))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), chart),
					assistant(call("c1", "chart", `{"city":"Pariss"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, [][]string{chartParts}, multimodal(out), "every part of the result reaches the model")
				assert.Equal(t, []string{`{"city":"Pariss"}`, `{"city":"Paris"}`}, chart.Calls())
				assert.Equal(t, []string{"start:chart", "error:chart", "start:chart", "end:chart"}, log.Events())
			})

			t.Run("enhanced streamable recovers by input fix", func(t *testing.T) {
				chart := &chartStreamTool{}
				r := newReflector(inputFix(`{"city":"Paris"}`))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), chart),
					assistant(call("c1", "chart_stream", `{"city":"Pariss"}`)))
				require.NoError(t, err)
				assert.Equal(t, [][]string{chartParts}, multimodal(out))
				assert.Equal(t, 2, chart.calls)
			})

			// One call per run: eino's ToolsNode.Stream races on two enhanced
			// results in one message (a shared error variable in its converter),
			// with or without the adapter.
			t.Run("soft failure is one text part", func(t *testing.T) {
				for _, c := range []struct {
					tool tool.BaseTool
					call string
				}{{&chartTool{}, "chart"}, {&chartStreamTool{}, "chart_stream"}} {
					out, err := m.run(context.Background(), toolsetGraph(t, reflection.NewDriver(), c.tool),
						assistant(call("c1", c.call, `{"city":"Lyon"}`)))
					require.NoError(t, err)
					assert.Equal(t, [][]string{{`text:no chart for "Lyon"`}}, multimodal(out), c.call)
				}
			})

			t.Run("tool change from a text tool to an enhanced tool", func(t *testing.T) {
				chart := &chartTool{}
				log := &callbackLog{}
				r := newReflector(toolChange("chart"), reflection.FailureAnalysis{RootCause: "give up"})
				errs := &dispatchErrors{}
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r, errs.option()), failingTool("old_chart", "retired"), chart),
					assistant(call("c1", "old_chart", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, []string{`reflectioneino: tool "chart" returned image content, which a text result cannot carry`}, contents(out),
					"a text result cannot carry an image: the switch fails and the model is told")
				require.Len(t, errs.Errors(), 2)
				assert.ErrorContains(t, errs.Errors()[1], "cannot carry")
				assert.Equal(t, []string{`{"city":"Paris"}`}, chart.Calls())
				assert.Equal(t, []string{"start:old_chart", "error:old_chart", "start:chart", "end:chart"}, log.Events())
			})

			t.Run("tool change from an enhanced tool to a text tool", func(t *testing.T) {
				weather := weatherTool()
				log := &callbackLog{}
				r := newReflector(toolChange("weather"))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), &chartStreamTool{down: true}, weather),
					assistant(call("c1", "chart_stream", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, [][]string{{"text:sunny in Paris"}}, multimodal(out), "the text result travels as one text part")
				assert.Equal(t, []string{`{"city":"Paris"}`}, weather.Calls())
				assert.Equal(t, []string{"start:chart_stream", "error:chart_stream", "start:weather", "end:weather"}, log.Events())
			})
		})
	}
}
