package reflectionlangchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"

	"github.com/loopctl-go/reflection"
)

// fakeModel is an llms.Model that answers with its script, in order, and
// records every prompt it was sent.
type fakeModel struct {
	mu      sync.Mutex
	script  []string
	prompts []string
}

func (m *fakeModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var prompt strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if t, ok := p.(llms.TextContent); ok {
				prompt.WriteString(t.Text)
			}
		}
	}
	m.prompts = append(m.prompts, prompt.String())
	if len(m.prompts) > len(m.script) {
		return nil, errors.New("fake model: script exhausted")
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.script[len(m.prompts)-1]}}}, nil
}

func (m *fakeModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func (m *fakeModel) sent() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts...)
}

// adder is a langchaingo tool that adds two integers written "<a> + <b>"
// and returns an error for any other input, as most of langchaingo's tools
// do. It records every input it ran with.
type adder struct {
	mu     sync.Mutex
	inputs []string
}

func (*adder) Name() string { return "adder" }

func (*adder) Description() string {
	return `Adds two integers. Input: "<a> + <b>", for example "2 + 3".`
}

func (a *adder) Call(_ context.Context, input string) (string, error) {
	a.mu.Lock()
	a.inputs = append(a.inputs, input)
	a.mu.Unlock()
	var x, y int
	if _, err := fmt.Sscanf(input, "%d + %d", &x, &y); err != nil {
		return "", fmt.Errorf("adder: cannot read %q: want \"<a> + <b>\"", input)
	}
	return fmt.Sprint(x + y), nil
}

func (a *adder) ran() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.inputs...)
}

// waiter is a tool that blocks until its ctx ends.
type waiter struct{ started chan struct{} }

func (waiter) Name() string        { return "waiter" }
func (waiter) Description() string { return "Waits." }
func (w waiter) Call(ctx context.Context, _ string) (string, error) {
	close(w.started)
	<-ctx.Done()
	return "", ctx.Err()
}

func inputFix(input json.RawMessage) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "the input is not in the tool's format",
		Correction:    &reflection.Correction{Type: reflection.InputFix, ModifiedInput: input},
	}
}

func toolChange(tool string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "another tool fits",
		Correction:    &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: tool},
	}
}

var transient = reflection.FailureAnalysis{IsRecoverable: true, RootCause: "transient"}

// retrying is a Driver that retries at once, up to its ceiling, with opts
// added.
func retrying(r reflection.Reflector, opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append([]reflection.Option{
		reflection.WithReflector(r),
		reflection.WithStrategy(reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
			return reflection.Retry{}
		})),
	}, opts...)...)
}

// backoff is a Driver with the stock strategy, no delay.
func backoff(r reflection.Reflector, opts ...reflection.Option) *reflection.Driver {
	return reflection.NewDriver(append([]reflection.Option{
		reflection.WithReflector(r),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
	}, opts...)...)
}
