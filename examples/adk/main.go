// Command adk runs an agent of Google's Agent Development Kit for Go whose
// tool calls go through a reflection.Driver, offline: the model is a script
// that plays the part of an LLM, the Reflector the stock rules, and the
// runner, the session service and the agent are ADK's own.
//
// One conversation shows what the adapter changes:
//
//   - get_order fails with a 503; the rules call it transient, the Driver
//     retries after a short backoff, and the model reads the order as if
//     nothing had happened;
//   - charge_card charges the card, and then its gateway times out: the
//     call may have acted, so the Driver does not run it again, and the
//     model reads that the charge may already have taken effect;
//   - the model re-issues the same charge anyway, as models do after an
//     error: the session's effect memory holds it back before it runs, and
//     the card is charged once. ADK's retry-and-reflect plugin alone would
//     have charged it on every re-issue.
//
// Run it with: go run ./examples/adk (from the repository root).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
	reflectionadk "github.com/loopctl-go/reflection/contrib/adk"
	"github.com/loopctl-go/reflection/rules"
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

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "adk example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	shop := &shop{orderFailures: 1}
	tools, err := shop.tools()
	if err != nil {
		return err
	}

	// The glue: a Driver, and one plugin in the runner's configuration.
	driver := reflection.NewDriver(
		reflection.WithReflector(rules.New(rules.Defaults()...)),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(10*time.Millisecond)),
		reflection.WithEffects(effects),
		reflection.WithObserver(narrate(w)),
	)
	a, err := llmagent.New(llmagent.Config{
		Name:        "shop",
		Model:       &script{},
		Instruction: "Pay the user's order.",
		Tools:       tools,
	})
	if err != nil {
		return err
	}
	r, err := runner.New(runner.Config{
		AppName:           "shop",
		Agent:             a,
		SessionService:    session.InMemoryService(),
		PluginConfig:      runner.PluginConfig{Plugins: []*plugin.Plugin{reflectionadk.MustNewPlugin(driver)}},
		AutoCreateSession: true,
	})
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "user: please pay order 42")
	msg := genai.NewContentFromText("please pay order 42", genai.RoleUser)
	for ev, err := range r.Run(ctx, "ana", "session-1", msg, agent.RunConfig{}) {
		if err != nil {
			return err
		}
		show(w, ev)
	}
	fmt.Fprintf(w, "card charged %d time(s)\n", shop.charged())
	return nil
}

// effects says which tools may be retried blindly: get_order only reads,
// charge_card is not idempotent.
func effects(name string) reflection.Effect {
	if name == "get_order" {
		return reflection.EffectReadOnly
	}
	return reflection.EffectNonIdempotent
}

// narrate prints what the Driver does with each call.
func narrate(w io.Writer) reflection.Observer {
	return reflection.Observer{
		DispatchDone: func(_ context.Context, attempt int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(w, "  [driver] attempt %d failed: %v\n", attempt+1, err)
			case res.IsError:
				fmt.Fprintf(w, "  [driver] attempt %d failed: %s\n", attempt+1, res.Content)
			default:
				fmt.Fprintf(w, "  [driver] attempt %d succeeded\n", attempt+1)
			}
		},
		Waiting: func(_ context.Context, _ int, delay time.Duration) {
			fmt.Fprintf(w, "  [driver] transient: retrying in %v\n", delay)
		},
		Ended: func(_ context.Context, e reflection.CallEnd) {
			if e.Reason != "" {
				fmt.Fprintf(w, "  [driver] %s ended: %s after %d dispatch(es)\n", e.Result.ID, e.Reason, e.Calls)
			}
		},
	}
}

// show prints an event of the run: the model's calls and text, and the
// responses it reads.
func show(w io.Writer, ev *session.Event) {
	if ev.Content == nil {
		return
	}
	for _, p := range ev.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			fmt.Fprintf(w, "model: calls %s %v (%s)\n", p.FunctionCall.Name, p.FunctionCall.Args, p.FunctionCall.ID)
		case p.FunctionResponse != nil:
			fmt.Fprintf(w, "tool: %s answers %v\n", p.FunctionResponse.Name, p.FunctionResponse.Response)
		case p.Text != "":
			fmt.Fprintf(w, "model: %s\n", p.Text)
		}
	}
}

// shop is the tools' back end: an order service that fails orderFailures
// times with a 503, and a payment gateway that charges, then times out.
type shop struct {
	mu            sync.Mutex
	orderFailures int
	charges       int
}

type orderArgs struct {
	Order int `json:"order"`
}

type chargeArgs struct {
	Order  int `json:"order"`
	Amount int `json:"amount"`
}

func (s *shop) tools() ([]tool.Tool, error) {
	getOrder, err := functiontool.New(functiontool.Config{Name: "get_order", Description: "looks an order up"},
		func(_ agent.Context, a orderArgs) (map[string]any, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.orderFailures > 0 {
				s.orderFailures--
				return nil, errors.New("orders: 503 Service Unavailable")
			}
			return map[string]any{"order": a.Order, "amount": 30, "status": "unpaid"}, nil
		})
	if err != nil {
		return nil, err
	}
	charge, err := functiontool.New(functiontool.Config{Name: "charge_card", Description: "charges the card on file"},
		func(_ agent.Context, a chargeArgs) (map[string]any, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.charges++
			return nil, errors.New("payment gateway: 504 Gateway Timeout")
		})
	if err != nil {
		return nil, err
	}
	return []tool.Tool{getOrder, charge}, nil
}

func (s *shop) charged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charges
}

// script is the model: it looks the order up, charges it, re-issues the
// charge once after an error, and then tells the user.
type script struct {
	mu   sync.Mutex
	step int
}

func (*script) Name() string { return "script" }

func (s *script) GenerateContent(_ context.Context, _ *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		s.mu.Lock()
		s.step++
		step := s.step
		s.mu.Unlock()
		var c *genai.Content
		switch step {
		case 1:
			c = calls("call-1", "get_order", map[string]any{"order": 42})
		case 2:
			c = calls("call-2", "charge_card", map[string]any{"order": 42, "amount": 30})
		case 3:
			c = calls("call-3", "charge_card", map[string]any{"order": 42, "amount": 30})
		default:
			c = genai.NewContentFromText("The payment may have gone through; I will not charge again. Please check your statement.", genai.RoleModel)
		}
		yield(&model.LLMResponse{Content: c, TurnComplete: true}, nil)
	}
}

// calls is the model's call of one tool.
func calls(id, name string, args map[string]any) *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: args}}}}
}
