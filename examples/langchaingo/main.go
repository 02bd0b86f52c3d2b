// Command langchaingo runs a langchaingo agent, offline, whose tools go
// through a reflection.Driver. A scripted model stands in for a real one,
// and a rule-based Reflector for the llm one.
//
// The model makes two tool calls:
//
//   - calculator (langchaingo's own) with an expression written in words;
//     the Reflector rewrites it as digits (an InputFix of {"input": ...})
//     and the retry gives the result;
//   - exchange_rate, whose service refuses the call; the Reflector calls
//     that unrecoverable, and the failure reaches the model as the
//     observation: without the wrapper, langchaingo's executor would have
//     ended the run at that error.
//
// Run it with: go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "langchaingo example:", err)
		os.Exit(1)
	}
}

const question = "How much is six times seven euros in dollars?"

func run(ctx context.Context, w io.Writer) error {
	driver := reflection.NewDriver(
		reflection.WithReflector(rules{}),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)),
		reflection.WithObserver(trace(w)),
	)
	// langchaingo's Calculator reports a bad expression in its output, not as
	// an error: say how to tell.
	calculatorFailed := reflectionlangchaingo.WithFailedOutput(func(out string) bool {
		return strings.HasPrefix(out, "error from evaluator:")
	})
	agentTools := []tools.Tool{
		reflectionlangchaingo.WrapTool(driver, tools.Calculator{}, calculatorFailed),
		reflectionlangchaingo.WrapTool(driver, exchangeRate{}),
	}

	model := &scriptedModel{script: []string{
		"Thought: first the product.\nAction: calculator\nAction Input: six times seven",
		"Thought: now the rate.\nAction: exchange_rate\nAction Input: EUR to USD",
		"Thought: the rate service is down.\nFinal Answer: 6 × 7 = 42 euros; I could not get today's rate to convert it.",
	}}
	executor := agents.NewExecutor(agents.NewOneShotAgent(model, agentTools), agents.WithReturnIntermediateSteps())

	ctx = reflection.ContextWithTask(ctx, question) // the Reflector sees the task
	out, err := executor.Call(ctx, map[string]any{"input": question})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nwhat the model read:")
	steps, _ := out["intermediateSteps"].([]schema.AgentStep)
	for _, s := range steps {
		fmt.Fprintf(w, "   %s(%s) -> %s\n", s.Action.Tool, s.Action.ToolInput, s.Observation)
	}
	fmt.Fprintf(w, "\nanswer: %s\n", out["output"])
	return nil
}

// exchangeRate is a tool whose service always refuses: it returns an error,
// which ends a langchaingo run unless the tool is wrapped.
type exchangeRate struct{}

func (exchangeRate) Name() string        { return "exchange_rate" }
func (exchangeRate) Description() string { return `Today's exchange rate. Input: "<FROM> to <TO>".` }
func (exchangeRate) Call(context.Context, string) (string, error) {
	return "", errors.New("rate service: 403 Forbidden: API key expired")
}

// rules is a Reflector that reads the failure text: no model needed.
type rules struct{}

var digits = strings.NewReplacer("six", "6", "seven", "7", "times", "*", "plus", "+")

func (rules) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}
	switch {
	case strings.HasPrefix(f.Error, "error from evaluator:"):
		text, err := reflection.InputText(f.Input)
		if err != nil {
			return a, fmt.Errorf("%w: %w", reflection.ErrSkipped, err)
		}
		if fixed := digits.Replace(text); fixed != text {
			a.IsRecoverable = true
			a.Correction = &reflection.Correction{
				Type:          reflection.InputFix,
				Description:   "write the expression with digits and operators",
				ModifiedInput: reflection.TextInput(fixed),
			}
		}
	case strings.Contains(f.Error, "403"):
		a.Severity = reflection.SeverityHigh // an expired key: retrying cannot help
	}
	return a, nil
}

// scriptedModel is an llms.Model that answers with its script, in order.
type scriptedModel struct {
	script []string
	next   int
}

func (m *scriptedModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	if m.next == len(m.script) {
		return nil, errors.New("scripted model: no more answers")
	}
	m.next++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.script[m.next-1]}}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// trace prints every step of the recovery loop.
func trace(w io.Writer) reflection.Observer {
	return reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, call reflection.ToolCall) {
			fmt.Fprintf(w, "attempt %d: %s %s\n", attempt+1, call.Name, call.Input)
		},
		DispatchDone: func(_ context.Context, _ int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(w, "   failed: %v\n", err)
			case res.IsError:
				fmt.Fprintf(w, "   failed: %s\n", res.Content)
			default:
				fmt.Fprintf(w, "   ok: %s\n", res.Content)
			}
		},
		Decided: func(_ context.Context, _ int, action reflection.RecoveryAction) {
			fmt.Fprintf(w, "   decision: %s\n", action)
		},
		Corrected: func(_ context.Context, _ int, c reflection.Correction, applied bool, why string) {
			if applied {
				fmt.Fprintf(w, "   correction applied: %s\n", c.Description)
			} else {
				fmt.Fprintf(w, "   correction dropped: %s\n", why)
			}
		},
	}
}
