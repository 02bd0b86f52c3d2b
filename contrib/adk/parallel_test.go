package reflectionadk_test

import (
	"context"
	"iter"
	"sort"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// parallelModel calls the stock tool for several items in one response,
// which ADK runs at once, then answers.
type parallelModel struct {
	items []string

	mu        sync.Mutex
	responses []map[string]any
}

func (*parallelModel) Name() string { return "parallel" }

func (m *parallelModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		last := req.Contents[len(req.Contents)-1]
		if last.Parts[0].FunctionResponse == nil {
			c := &genai.Content{Role: genai.RoleModel}
			for _, item := range m.items {
				c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: "call-" + item, Name: "stock", Args: map[string]any{"item": item}}})
			}
			yield(&model.LLMResponse{Content: c, TurnComplete: true}, nil)
			return
		}
		m.mu.Lock()
		for _, p := range last.Parts {
			m.responses = append(m.responses, p.FunctionResponse.Response)
		}
		m.mu.Unlock()
		yield(&model.LLMResponse{Content: genai.NewContentFromText("done", genai.RoleModel), TurnComplete: true}, nil)
	}
}

// TestParallelCalls: the calls of one model response run at once, each
// through the Driver on its own, sharing the session's state.
func TestParallelCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		items := []string{"a", "b", "c", "d"}
		body := &flaky{fails: []error{errUnavailable, errUnavailable, errUnavailable, errUnavailable}}
		var mu sync.Mutex
		var ends []reflection.CallEnd
		d := reflection.NewDriver(
			reflection.WithReflector(rules.New(rules.Defaults()...)),
			reflection.WithObserver(reflection.Observer{Ended: func(_ context.Context, e reflection.CallEnd) {
				mu.Lock()
				defer mu.Unlock()
				ends = append(ends, e)
			}}),
		)
		m := &parallelModel{items: items}
		r := newRunner(t, agentSetup{model: m, tools: []tool.Tool{newTool(t, "stock", body.run)}, plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(d)}})

		ask(t.Context(), t, r, "s1", "how many of each?")

		assert.Equal(t, 8, body.count(), "each call failed once and was retried")
		require.Len(t, m.responses, len(items))
		var ids []string
		for _, e := range ends {
			assert.Equal(t, reflection.OutcomeSucceeded, e.Outcome)
			ids = append(ids, e.Result.ID)
		}
		sort.Strings(ids)
		assert.Equal(t, []string{"call-a", "call-b", "call-c", "call-d"}, ids)
		for _, r := range m.responses {
			assert.Equal(t, float64(7), r["stock"])
		}
	})
}
