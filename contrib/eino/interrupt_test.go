package reflectioneino_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reflectioneino "github.com/loopctl-go/reflection/contrib/eino"
)

// interruptPoint is what a caller of eino reads from an interrupt error
// (the ID, a random UUID, aside).
type interruptPoint struct {
	Address   string
	Info      any
	RootCause bool
}

func interruptPoints(t *testing.T, err error) []interruptPoint {
	t.Helper()
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok, "not an interrupt: %v", err)
	var out []interruptPoint
	for _, c := range info.InterruptContexts {
		out = append(out, interruptPoint{Address: c.Address.String(), Info: c.Info, RootCause: c.IsRootCause})
	}
	return out
}

func TestInterruptPassesThrough(t *testing.T) {
	interrupts := []struct {
		name string
		err  func(ctx context.Context) error
	}{
		{"tool.Interrupt", func(ctx context.Context) error { return tool.Interrupt(ctx, "approve the payment?") }},
		{"tool.StatefulInterrupt", func(ctx context.Context) error {
			return tool.StatefulInterrupt(ctx, "approve the payment?", "step 1")
		}},
		{"compose.InterruptAndRerun", func(context.Context) error { return compose.InterruptAndRerun }},
		{"compose.NewInterruptAndRerunErr", func(context.Context) error { return compose.NewInterruptAndRerunErr("approve") }},
	}
	for _, m := range modes {
		for _, tc := range interrupts {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				pay := func() *textTool {
					return newTextTool("pay", func(ctx context.Context, _ string) (string, error) { return "", tc.err(ctx) })
				}
				in := assistant(call("c1", "pay", `{"city":"Paris"}`), call("c2", "echo", `{}`))

				// What eino does without the adapter.
				plain := toolsGraph(t, compose.ToolsNodeConfig{Tools: []tool.BaseTool{pay(), okTool("echo")}})
				_, plainErr := m.run(context.Background(), plain, in)
				require.Error(t, plainErr)

				// The same through a Driver that would retry anything.
				r := newReflector(retryAgain())
				var finished error
				d := retryingDriver(r, reflection.WithObserver(reflection.Observer{
					Finished: func(_ context.Context, _ int, _ reflection.ToolResult, err error) {
						if err != nil {
							finished = err
						}
					},
				}))
				tl := pay()
				_, err := m.run(context.Background(), toolsetGraph(t, d, tl, okTool("echo")), in)
				require.Error(t, err)

				assert.Equal(t, interruptPoints(t, plainErr), interruptPoints(t, err),
					"the interrupt reaches eino as without the adapter")
				assert.Empty(t, r.Failures(), "the Reflector is not asked about an interrupt")
				assert.Len(t, tl.Calls(), 1)
				assert.ErrorIs(t, finished, context.Canceled, "the Driver was stopped, not left to decide")
				assert.ErrorContains(t, finished, "interrupted")
			})
		}
	}
}

// memoryStore is an in-memory compose.CheckPointStore.
type memoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memoryStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = b
	return nil
}

// An agent graph with a checkpoint store interrupts in a tool for a human's
// approval and resumes with it, with the adapter in between.
func TestInterruptAndResume(t *testing.T) {
	ctx := context.Background()
	pay := newTextTool("pay", func(ctx context.Context, _ string) (string, error) {
		if was, _, _ := tool.GetInterruptState[any](ctx); !was {
			return "", tool.Interrupt(ctx, "approve the payment?")
		}
		if target, has, who := tool.GetResumeContext[string](ctx); target && has {
			return "paid, approved by " + who, nil
		}
		return "", tool.Interrupt(ctx, "approve the payment?")
	})
	set, err := reflectioneino.NewToolset(ctx, []tool.BaseTool{pay})
	require.NoError(t, err)
	r := newReflector(retryAgain())
	conf := set.Config(retryingDriver(r))
	node, err := compose.NewToolNode(ctx, &conf)
	require.NoError(t, err)

	cm := newChatModel(callTools(call("c1", "pay", `{"city":"Paris"}`)), answerWithToolResults)
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	require.NoError(t, g.AddChatModelNode("model", cm))
	require.NoError(t, g.AddToolsNode("tools", node))
	require.NoError(t, g.AddEdge(compose.START, "model"))
	require.NoError(t, g.AddBranch("model", compose.NewGraphBranch(func(_ context.Context, msg *schema.Message) (string, error) {
		if len(msg.ToolCalls) > 0 {
			return "tools", nil
		}
		return compose.END, nil
	}, map[string]bool{"tools": true, compose.END: true})))
	require.NoError(t, g.AddEdge("tools", "model"))
	runnable, err := g.Compile(ctx, compose.WithCheckPointStore(&memoryStore{}))
	require.NoError(t, err)

	input := []*schema.Message{schema.UserMessage("pay the invoice")}
	_, err = runnable.Invoke(ctx, input, compose.WithCheckPointID("run-1"))
	require.Error(t, err)
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok)
	require.Len(t, info.InterruptContexts, 1)
	point := info.InterruptContexts[0]
	assert.Equal(t, "approve the payment?", point.Info)
	assert.Equal(t, "runnable:;node:tools;tool:pay:c1", point.Address.String())

	out, err := runnable.Invoke(compose.ResumeWithData(ctx, point.ID, "ada"), input, compose.WithCheckPointID("run-1"))
	require.NoError(t, err)
	assert.Equal(t, "tools said: paid, approved by ada", out.Content)
	assert.Len(t, pay.Calls(), 2)
	assert.Empty(t, r.Failures())
}

// An interrupt on a retry, from the same tool after an InputFix or from the
// tool a ToolChange switched to, passes through like one on the first call.
func TestInterruptOnARetry(t *testing.T) {
	tests := []struct {
		name     string
		analysis reflection.FailureAnalysis
		tool     string
	}{
		{"after an input fix", inputFix(`{"city":"Paris"}`), "pay"},
		{"after a tool change", toolChange("pay_v2"), "pay_v2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pay := newTextTool("pay", func(ctx context.Context, args string) (string, error) {
				if c, _ := city(args); c == "Paris" {
					return "", tool.Interrupt(ctx, "approve the payment?")
				}
				return "", errors.New("pay: unknown city")
			})
			payV2 := newTextTool("pay_v2", func(ctx context.Context, _ string) (string, error) {
				return "", tool.Interrupt(ctx, "approve the payment?")
			})
			r := newReflector(tc.analysis)
			_, err := toolsetGraph(t, retryingDriver(r), pay, payV2).Invoke(context.Background(),
				assistant(call("c1", "pay", `{"city":"Pariss"}`)))
			require.Error(t, err)
			points := interruptPoints(t, err)
			require.Len(t, points, 1)
			assert.Equal(t, "approve the payment?", points[0].Info)
			assert.Equal(t, "runnable:;node:node_0;tool:pay:c1", points[0].Address,
				"eino addresses the interrupt by the model's call")
			assert.Len(t, r.Failures(), 1, "the Reflector was asked about the failure, not about the interrupt")
		})
	}
}
