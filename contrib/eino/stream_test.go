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

// streamTool is a StreamableTool (and nothing else) whose behaviour a test
// scripts; it records the arguments of every call.
type streamTool struct {
	info *schema.ToolInfo
	run  func(ctx context.Context, args string) (*schema.StreamReader[string], error)

	mu    sync.Mutex
	calls []string
}

func (t *streamTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *streamTool) StreamableRun(ctx context.Context, args string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	t.mu.Lock()
	t.calls = append(t.calls, args)
	t.mu.Unlock()
	return t.run(ctx, args)
}

func (t *streamTool) Calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.calls...)
}

// forecastTool streams the forecast of Paris, and fails before its stream
// for any other city.
func forecastTool() *streamTool {
	return &streamTool{
		info: &schema.ToolInfo{Name: "forecast", Desc: "streams a forecast"},
		run: func(_ context.Context, args string) (*schema.StreamReader[string], error) {
			c, err := city(args)
			if err != nil {
				return nil, err
			}
			if c != "Paris" {
				return nil, fmt.Errorf("no forecast for %q", c)
			}
			return schema.StreamReaderFromArray([]string{"sun ", "then ", "rain"}), nil
		},
	}
}

func TestStreamableTool(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Run("input fix before the stream starts", func(t *testing.T) {
				forecast := forecastTool()
				r := newReflector(inputFix(`{"city":"Paris"}`))
				log := &callbackLog{}
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), forecast),
					assistant(call("c1", "forecast", `{"city":"Pariss"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, []string{"sun then rain"}, contents(out))
				assert.Equal(t, []string{`{"city":"Pariss"}`, `{"city":"Paris"}`}, forecast.Calls())
				assert.Equal(t, []string{"start:forecast", "error:forecast", "start:forecast", "end:forecast"}, log.Events())
			})

			t.Run("an error inside the stream is not retried", func(t *testing.T) {
				broken := &streamTool{
					info: &schema.ToolInfo{Name: "broken"},
					run: func(context.Context, string) (*schema.StreamReader[string], error) {
						sr, sw := schema.Pipe[string](2)
						sw.Send("partial ", nil)
						sw.Send("", errors.New("connection lost mid-stream"))
						sw.Close()
						return sr, nil
					},
				}
				r := newReflector(retryAgain())
				_, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), broken),
					assistant(call("c1", "broken", `{}`)))
				require.Error(t, err, "the stream's reader gets the error, as without the adapter")
				assert.ErrorContains(t, err, "connection lost mid-stream")
				assert.Len(t, broken.Calls(), 1)
				assert.Empty(t, r.Failures())
			})

			t.Run("soft failure", func(t *testing.T) {
				out, err := m.run(context.Background(), toolsetGraph(t, reflection.NewDriver(), forecastTool()),
					assistant(call("c1", "forecast", `{"city":"Lyon"}`)))
				require.NoError(t, err)
				assert.Equal(t, []string{`no forecast for "Lyon"`}, contents(out))
			})

			t.Run("tool change to a streamable tool", func(t *testing.T) {
				forecast := forecastTool()
				log := &callbackLog{}
				r := newReflector(toolChange("forecast"))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), failingTool("old", "retired"), forecast),
					assistant(call("c1", "old", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, []string{"sun then rain"}, contents(out))
				assert.Equal(t, []string{"start:old", "error:old", "start:forecast", "end:forecast"}, log.Events())
			})

			t.Run("tool change from a streamable tool", func(t *testing.T) {
				old := &streamTool{
					info: &schema.ToolInfo{Name: "old_forecast"},
					run: func(context.Context, string) (*schema.StreamReader[string], error) {
						return nil, errors.New("old_forecast is retired")
					},
				}
				weather := weatherTool()
				log := &callbackLog{}
				r := newReflector(toolChange("weather"))
				out, err := m.run(context.Background(), toolsetGraph(t, retryingDriver(r), old, weather),
					assistant(call("c1", "old_forecast", `{"city":"Paris"}`)), compose.WithCallbacks(log.handler()))
				require.NoError(t, err)
				assert.Equal(t, []string{"sunny in Paris"}, contents(out))
				assert.Equal(t, []string{`{"city":"Paris"}`}, weather.Calls())
				assert.Equal(t, []string{"start:old_forecast", "error:old_forecast", "start:weather", "end:weather"}, log.Events())
			})
		})
	}
}
