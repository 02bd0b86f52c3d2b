package reflectionadk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

// reflectionGuidance is the response_type retryandreflect writes into the
// result it hands the model in place of a tool's error.
const reflectionGuidance = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"

// scriptedModel is a model.LLM that plays an agent's model without a
// network: on the user's message it calls one tool, and after each function
// response it reads, it either calls the tool again with the same arguments
// (a re-issue, with a new function call ID) or answers in text. It records
// every function response it read.
type scriptedModel struct {
	tool string
	args map[string]any
	// reissues is how many times the model calls the tool again, with the
	// same arguments, after a response that reads as a failure.
	reissues int

	mu        sync.Mutex
	calls     int
	responses []map[string]any
}

func (m *scriptedModel) Name() string { return "scripted" }

func (m *scriptedModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: m.next(req), TurnComplete: true}, nil)
	}
}

// next is the model's answer to req.
func (m *scriptedModel) next(req *model.LLMRequest) *genai.Content {
	m.mu.Lock()
	defer m.mu.Unlock()
	var last map[string]any
	if n := len(req.Contents); n > 0 {
		for _, p := range req.Contents[n-1].Parts {
			if p.FunctionResponse != nil {
				last = p.FunctionResponse.Response
			}
		}
	}
	switch {
	case last == nil && m.calls == 0, last != nil && failed(last) && m.calls <= m.reissues:
		if last != nil {
			m.responses = append(m.responses, last)
		}
		m.calls++
		return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
			ID: fmt.Sprintf("call-%d", m.calls), Name: m.tool, Args: m.args,
		}}}}
	case last != nil:
		m.responses = append(m.responses, last)
	}
	return genai.NewContentFromText("done", genai.RoleModel)
}

// seen returns the function responses the model read, in order.
func (m *scriptedModel) seen() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.responses...)
}

// failed reports whether a function response reads as a failure to a
// model: ADK's {"error": ...}, or retryandreflect's guidance.
func failed(r map[string]any) bool {
	if _, ok := r["error"]; ok {
		return true
	}
	return r["response_type"] == reflectionGuidance
}

// agentSetup is what one test's agent is made of.
type agentSetup struct {
	model     model.LLM
	tools     []tool.Tool
	plugins   []*plugin.Plugin
	callbacks llmagent.Config // only its callback lists are used
}

// newRunner builds a real ADK runner over an in-memory session service.
func newRunner(t *testing.T, s agentSetup) *runner.Runner {
	t.Helper()
	a, err := llmagent.New(llmagent.Config{
		Name:                 "agent",
		Model:                s.model,
		Instruction:          "Use the tools.",
		Tools:                s.tools,
		BeforeToolCallbacks:  s.callbacks.BeforeToolCallbacks,
		AfterToolCallbacks:   s.callbacks.AfterToolCallbacks,
		OnToolErrorCallbacks: s.callbacks.OnToolErrorCallbacks,
	})
	require.NoError(t, err)
	r, err := runner.New(runner.Config{
		AppName:           "app",
		Agent:             a,
		SessionService:    session.InMemoryService(),
		PluginConfig:      runner.PluginConfig{Plugins: s.plugins},
		AutoCreateSession: true,
	})
	require.NoError(t, err)
	return r
}

// ask sends one user message in a session and returns the events, failing
// the test on an error of the run.
func ask(ctx context.Context, t *testing.T, r *runner.Runner, sessionID, text string) []*session.Event {
	t.Helper()
	var events []*session.Event
	for ev, err := range r.Run(ctx, "user", sessionID, genai.NewContentFromText(text, genai.RoleUser), agent.RunConfig{}) {
		require.NoError(t, err)
		events = append(events, ev)
	}
	return events
}

// flakyArgs are the arguments of the test tools.
type flakyArgs struct {
	Item string `json:"item" jsonschema:"the item to look up"`
}

// flaky is a tool body that fails with the errors in fails, one per call,
// then succeeds; it counts its calls and records their function call IDs.
type flaky struct {
	mu    sync.Mutex
	fails []error
	calls int
	ids   []string
	items []string
}

func (f *flaky) run(ctx agent.Context, a flakyArgs) (map[string]any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.ids = append(f.ids, ctx.FunctionCallID())
	f.items = append(f.items, a.Item)
	if len(f.fails) > 0 {
		err := f.fails[0]
		f.fails = f.fails[1:]
		return nil, err
	}
	return map[string]any{"stock": 7, "item": a.Item}, nil
}

func (f *flaky) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// newTool builds a functiontool.
func newTool[A any](t *testing.T, name string, fn functiontool.Func[A, map[string]any]) tool.Tool {
	t.Helper()
	tl, err := functiontool.New(functiontool.Config{Name: name, Description: "the " + name + " tool"}, fn)
	require.NoError(t, err)
	return tl
}

// errUnavailable is a failure the stock rules call transient.
var errUnavailable = errors.New("inventory: 503 Service Unavailable")
