// Package agent is the shared part of the Temporal example: a workflow that
// runs one agent turn's tool calls with recovery, and the simulated tools
// and Reflector its worker serves.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/loopctl-go/reflection"
	reflectiontemporal "github.com/loopctl-go/reflection/contrib/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TaskQueue is the task queue the worker polls and the starter uses.
const TaskQueue = "reflection-example"

// WorkflowName is the name the Agent workflow is registered under.
const WorkflowName = "reflection-example.Agent"

// Turn is one turn of an agent: the task and the tool calls the model made.
type Turn struct {
	Task  string                `json:"task"`
	Calls []reflection.ToolCall `json:"calls"`
}

// Result is what one call of a turn came to.
type Result struct {
	CallID   string `json:"call_id"`
	Content  string `json:"content"`  // what goes back to the model
	IsError  bool   `json:"is_error"` // a soft failure the model should see
	Outcome  string `json:"outcome"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error,omitempty"` // a cancel, a run timeout or exhaustion
}

// ExampleTurn is the turn the starter sends: a weather lookup that the
// service rate-limits once (Retry-After: 5s), and a report the agent may not
// read until a human approves the public copy.
func ExampleTurn() Turn {
	return Turn{
		Task: "write the morning brief for Lisbon",
		Calls: []reflection.ToolCall{
			{ID: "call_weather", Name: "get_weather", Input: json.RawMessage(`{"city":"Lisbon"}`)},
			{ID: "call_report", Name: "read_report", Input: json.RawMessage(`{"path":"/private/sales.txt"}`)},
		},
	}
}

// AskTimeout is how long a question waits for a human.
const AskTimeout = 24 * time.Hour

// Agent runs every call of the turn at once, each with recovery: a wait is
// durable (the server holds it), and a question waits for a human's answer
// (an Update).
func Agent(ctx workflow.Context, turn Turn) ([]Result, error) {
	// The Driver's settings run in workflow code: the jitter draws from the
	// workflow's replay-safe random stream, and the effect func is a pure
	// function of the tool's name.
	backoff := reflection.NewExponentialBackoff(3).WithJitter(0.2).WithRandSource(reflectiontemporal.RandSource(ctx))
	driver := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithRecoveryNotes(), reflection.WithEffects(Effect))

	results := make([]Result, len(turn.Calls))
	wg := workflow.NewWaitGroup(ctx)
	for i, call := range turn.Calls {
		wg.Add(1)
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer wg.Done()
			// The Reflector runs as an activity (Register's). This one only
			// checks typed errors, so it is deterministic and could run in
			// workflow code instead (reflectiontemporal.WithWorkflowReflector,
			// or the rules package's Reflector given to the Driver, which Run
			// runs there by itself), saving an activity and a workflow task
			// per retry; one that asks a model must stay an activity.
			res, rep, err := reflectiontemporal.Run(ctx, driver, call,
				reflectiontemporal.WithTask(turn.Task),
				reflectiontemporal.WithAsk(AskTimeout))
			results[i] = Result{CallID: res.ID, Content: res.Content, IsError: res.IsError,
				Outcome: rep.Outcome.String(), Attempts: len(rep.Attempts)}
			if err != nil {
				results[i].Error = err.Error()
			}
			workflow.GetLogger(ctx).Info("tool call done", "call", call.ID, "outcome", rep.Outcome, "attempts", len(rep.Attempts))
		})
	}
	wg.Wait(ctx)
	return results, nil
}

// Register registers the Agent workflow and the recovery activities, over
// the simulated tools and Reflector, on w. The worker has a circuit breaker
// of its own: its tool activity refuses a tool that keeps failing across
// calls, without running it, until the breaker lets a probe through.
func Register(w worker.Registry) error {
	w.RegisterWorkflowWithOptions(Agent, workflow.RegisterOptions{Name: WorkflowName})
	return reflectiontemporal.Register(w, Dispatch, Reflector,
		reflectiontemporal.WithWorkerHealth(reflection.NewHealth(0, 0)))
}

// Effect says what running each tool again does: both of the example's
// tools only read, so the effect guard lets them retry. A tool that sends,
// pays or creates would be reflection.EffectNonIdempotent (a retry then
// waits for a human's approval) or reflection.EffectKeyed (it honours
// reflection.IdempotencyKey).
func Effect(tool string) reflection.Effect {
	switch tool {
	case "get_weather", "read_report":
		return reflection.EffectReadOnly
	}
	return reflection.EffectUndeclared
}

// httpError is what a real HTTP client would return for a 429.
type httpError struct {
	status     int
	retryAfter time.Duration
}

func (e *httpError) Error() string {
	return fmt.Sprintf("weather API: %d Too Many Requests (Retry-After: %d)", e.status, int(e.retryAfter.Seconds()))
}
func (e *httpError) StatusCode() int           { return e.status }
func (e *httpError) RetryAfter() time.Duration { return e.retryAfter }

// Dispatch is the worker's tool registry: two simulated tools. The first
// attempt of get_weather is rate-limited; read_report refuses private paths.
func Dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	attempt, _ := reflectiontemporal.CallAttempt(ctx)
	key := reflection.IdempotencyKey(ctx) // the workflow ID and the call ID, the same on every attempt
	fmt.Printf("tool %s, attempt %d, idempotency key %s, input %s\n", call.Name, attempt, key, call.Input)
	switch call.Name {
	case "get_weather":
		if attempt == 0 {
			return reflection.ToolResult{}, &httpError{status: 429, retryAfter: 5 * time.Second}
		}
		var in struct{ City string }
		_ = json.Unmarshal(call.Input, &in)
		return reflection.ToolResult{Content: in.City + ": 17°C, light rain"}, nil
	case "read_report":
		var in struct{ Path string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return reflection.ToolResult{}, err
		}
		if in.Path != "/public/sales.txt" {
			return reflection.ToolResult{}, &os.PathError{Op: "open", Path: in.Path, Err: os.ErrPermission}
		}
		return reflection.ToolResult{Content: "Q3 sales: 1,204 units (public summary)"}, nil
	}
	return reflection.ToolResult{Content: "unknown tool " + call.Name, IsError: true}, nil
}

// Reflector analyses a failure from its typed error (rebuilt in the
// activity): a rate limit is transient; a permission error needs a human.
var Reflector = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	var hinted interface{ RetryAfter() time.Duration }
	switch {
	case errors.As(f.Err, &hinted):
		return reflection.FailureAnalysis{IsRecoverable: true, RootCause: "the weather API is rate limiting", Severity: reflection.SeverityLow}, nil
	case errors.Is(f.Err, os.ErrPermission):
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "the agent may not read private reports", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "approve reading the public summary instead"},
		}, nil
	}
	return reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}, nil
})
