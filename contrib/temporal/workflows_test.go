package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// The workflows the dev-server tests run in a worker process, and the
// replay test replays. Their code is part of the recorded history's
// contract: change one, and the recorded history must be recorded again
// (and a real deployment would gate the change with workflow.GetVersion).
const (
	waitWorkflow     = "crash.wait"     // one call that waits 5s on a Retry-After
	questionWorkflow = "crash.question" // one call that asks a human
	historyWorkflow  = "replay.history" // two calls at once: corrections, a wait, an approval
	timeoutWorkflow  = "crash.timeout"  // one call whose first attempt outlives its timeout
	toolWorkflow     = "crash.tool"     // one call whose first attempt hangs until its worker dies
	costWorkflow     = "cost.call"      // one call that fails a given number of times
	plainWorkflow    = "cost.plain"     // one activity with a RetryPolicy, for comparison
	exhaustWorkflow  = "retry.exhaust"  // one call that never succeeds; returns Run's error
	twiceWorkflow    = "replay.twice"   // the same call, run twice in a row
)

// slowBeat is how long the tool "slow_beat" runs: past the tool
// activity's first heartbeat (half the heartbeat timeout, 5s) and its
// second (10s), which the SDK holds back (it sends at most one per 0.8
// timeout) and drops when the activity succeeds first.
const slowBeat = 12 * time.Second

// plainActivity is the activity of plainWorkflow.
const plainActivity = "cost.plain-tool"

// callOutput is what a test workflow returns for one call.
type callOutput struct {
	Result reflection.ToolResult `json:"result"`
	Report reflection.Report     `json:"report"`
	Error  string                `json:"error,omitempty"`
}

func output(res reflection.ToolResult, rep reflection.Report, err error) callOutput {
	out := callOutput{Result: res, Report: rep}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

// waitCall runs one call with the default Driver: the tool's Retry-After
// hint makes it wait.
func waitCall(ctx workflow.Context, call reflection.ToolCall) (callOutput, error) {
	return output(rt.Run(ctx, nil, call)), nil
}

// questionCall runs one call that may ask a human for ten minutes.
func questionCall(ctx workflow.Context, call reflection.ToolCall) (callOutput, error) {
	return output(rt.Run(ctx, nil, call, rt.WithAsk(10*time.Minute))), nil
}

// timeoutCall runs one call whose attempts may take a second each. The
// retry policy it asks for is overridden: one attempt per activity.
func timeoutCall(ctx workflow.Context, call reflection.ToolCall) (callOutput, error) {
	return output(rt.Run(ctx, nil, call, rt.WithToolActivity(workflow.ActivityOptions{
		StartToCloseTimeout: time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
		ActivityID:          "ignored",
	}))), nil
}

// historyCalls is the agent turn the recorded history holds.
var historyCalls = []reflection.ToolCall{
	{ID: "call_search", Name: "search_docs", Input: json.RawMessage(`{"q":"temporal retry"}`)},
	{ID: "call_fetch", Name: "fetch_page", Input: json.RawMessage(`{"url":"https://docs.temporal.io"}`)},
}

// historyAgent runs the two calls of historyCalls at once, with a jittered
// backoff drawing from the workflow's random stream, recovery notes, the
// task, and questions allowed for an hour.
func historyAgent(ctx workflow.Context, task string) ([]callOutput, error) {
	return agentWithSource(ctx, task, rt.RandSource(ctx))
}

// agentWithSource is historyAgent with the jitter drawn from src.
func agentWithSource(ctx workflow.Context, task string, src rand.Source) ([]callOutput, error) {
	backoff := reflection.NewExponentialBackoff(3).WithJitter(0.5).WithRandSource(src)
	return agentWithDriver(ctx, task, reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithRecoveryNotes()))
}

// agentWithDriver is historyAgent with the Driver d.
func agentWithDriver(ctx workflow.Context, task string, d *reflection.Driver) ([]callOutput, error) {
	outs := make([]callOutput, len(historyCalls))
	wg := workflow.NewWaitGroup(ctx)
	for i, call := range historyCalls {
		wg.Add(1)
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer wg.Done()
			outs[i] = output(rt.Run(ctx, d, call, rt.WithTask(task), rt.WithAsk(time.Hour)))
		})
	}
	wg.Wait(ctx)
	return outs, nil
}

// toolCrashCall runs one call with the default options: a worker that dies
// during the tool is noticed by the missing heartbeats.
func toolCrashCall(ctx workflow.Context, call reflection.ToolCall) (callOutput, error) {
	return output(rt.Run(ctx, nil, call)), nil
}

// costInput says how costCall runs its call.
type costInput struct {
	Failures int    `json:"failures"`       // the tool fails this many times, then succeeds
	Rules    bool   `json:"rules"`          // the Driver's Reflector is the rules package's: it runs in workflow code
	NoWait   bool   `json:"no_wait"`        // retries without a wait
	Tool     string `json:"tool,omitempty"` // "flaky" when empty
}

// costCall runs one call of the tool "flaky", which fails in.Failures
// times, with the default backoff (waits of 100ms, 200ms, 400ms) or none,
// and the stock rules or no Reflector of the Driver's own (the Reflector
// activity analyses).
func costCall(ctx workflow.Context, in costInput) (callOutput, error) {
	backoff := reflection.NewExponentialBackoff(3)
	if in.NoWait {
		backoff = backoff.WithBaseDelay(0)
	}
	opts := []reflection.Option{reflection.WithStrategy(backoff)}
	if in.Rules {
		opts = append(opts, reflection.WithReflector(rules.New(rules.Defaults()...)))
	}
	tool := in.Tool
	if tool == "" {
		tool = "flaky"
	}
	call := reflection.ToolCall{ID: "call_cost", Name: tool, Input: json.RawMessage(fmt.Sprintf(`{"failures":%d}`, in.Failures))}
	return output(rt.Run(ctx, reflection.NewDriver(opts...), call)), nil
}

// plainCall runs plainActivity, which fails failures times, under a
// RetryPolicy: what a call costs without recovery.
func plainCall(ctx workflow.Context, failures int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 10},
	})
	return workflow.ExecuteActivity(ctx, plainActivity, failures).Get(ctx, nil)
}

// plainTool is plainActivity: it fails until its attempt passes failures.
func plainTool(ctx context.Context, failures int) error {
	if int(activity.GetInfo(ctx).Attempt) <= failures {
		return errors.New("503 service unavailable")
	}
	return nil
}

// How exhaustCall returns Run's error: the three ways a workflow does.
const (
	returnAsIs     = "as it is"
	returnWrapped  = "wrapped"    // fmt.Errorf("...: %w", err)
	returnRecreate = "re-created" // errors.New(err.Error())
)

// exhaustCall runs a call of "always_down" with a strategy that always
// retries at once, and returns Run's error as how says.
func exhaustCall(ctx workflow.Context, how string) error {
	call := reflection.ToolCall{ID: "call_down", Name: "always_down", Input: json.RawMessage(`{}`)}
	_, _, err := rt.Run(ctx, reflection.NewDriver(reflection.WithStrategy(alwaysRetry{})), call)
	if err == nil {
		return nil
	}
	switch how {
	case returnWrapped:
		return fmt.Errorf("agent: tool call %s: %w", call.ID, err)
	case returnRecreate:
		return errors.New(err.Error())
	}
	return err
}

// twiceCall runs call, then the same call again, under the same ID: as a
// host that numbers the calls of each turn from 0 does.
func twiceCall(ctx workflow.Context, call reflection.ToolCall) ([]callOutput, error) {
	first := output(rt.Run(ctx, nil, call))
	second := output(rt.Run(ctx, nil, call))
	return []callOutput{first, second}, nil
}

// registerWorkflows registers the test workflows on r.
func registerWorkflows(r interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}) {
	r.RegisterWorkflowWithOptions(waitCall, workflow.RegisterOptions{Name: waitWorkflow})
	r.RegisterWorkflowWithOptions(questionCall, workflow.RegisterOptions{Name: questionWorkflow})
	r.RegisterWorkflowWithOptions(historyAgent, workflow.RegisterOptions{Name: historyWorkflow})
	r.RegisterWorkflowWithOptions(timeoutCall, workflow.RegisterOptions{Name: timeoutWorkflow})
	r.RegisterWorkflowWithOptions(toolCrashCall, workflow.RegisterOptions{Name: toolWorkflow})
	r.RegisterWorkflowWithOptions(costCall, workflow.RegisterOptions{Name: costWorkflow})
	r.RegisterWorkflowWithOptions(plainCall, workflow.RegisterOptions{Name: plainWorkflow})
	r.RegisterWorkflowWithOptions(exhaustCall, workflow.RegisterOptions{Name: exhaustWorkflow})
	r.RegisterWorkflowWithOptions(twiceCall, workflow.RegisterOptions{Name: twiceWorkflow})
}

// The fixed inputs of the dev-server tests.
var (
	quoteCall = reflection.ToolCall{ID: "call_quote", Name: "fetch_quote", Input: json.RawMessage(`{"symbol":"TMPRL"}`)}
	slowCall  = reflection.ToolCall{ID: "call_slow", Name: "charge_card", Input: json.RawMessage(`{"cents":1200}`)}
	hangCall  = reflection.ToolCall{ID: "call_hang", Name: "slow_report", Input: json.RawMessage(`{"quarter":"Q3"}`)}
	fileCall  = reflection.ToolCall{ID: "call_file", Name: "read_file", Input: json.RawMessage(`{"path":"/srv/report.txt"}`)}
	humanFix  = json.RawMessage(`{"path":"/srv/public/report.txt"}`)
	searchFix = json.RawMessage(`{"q":"temporal durable timers","limit":5}`)
	scopeFix  = json.RawMessage(`{"q":"temporal durable timers","limit":5,"scope":"public"}`)
)

// workerTool is the tool of the worker process: each tool fails as its test
// needs on attempt 0 (and search_docs on attempt 1 too), then succeeds.
// Every execution appends a line to the file named by log: the worker's
// process ID, the tool, the idempotency key and the attempt.
func workerTool(log string) reflection.DispatchFunc {
	return func(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
		key := reflection.IdempotencyKey(ctx)
		attempt, _ := rt.CallAttempt(ctx)
		if err := appendLine(log, fmt.Sprintf("%d %s %s %d", os.Getpid(), call.Name, key, attempt)); err != nil {
			return reflection.ToolResult{}, err
		}
		switch {
		case call.Name == "fetch_quote" && attempt == 0:
			return reflection.ToolResult{}, rateLimited{after: 5 * time.Second}
		case call.Name == "fetch_quote":
			return reflection.ToolResult{Content: "TMPRL 42.00"}, nil
		case call.Name == "read_file" && attempt == 0:
			return reflection.ToolResult{}, &os.PathError{Op: "open", Path: "/srv/report.txt", Err: os.ErrPermission}
		case call.Name == "read_file":
			return reflection.ToolResult{Content: "report for " + string(call.Input)}, nil
		case call.Name == "search_docs" && attempt == 0:
			return reflection.ToolResult{}, rateLimited{after: 2 * time.Second}
		case call.Name == "search_docs" && attempt == 1:
			return reflection.ToolResult{Content: "403 forbidden: private index", IsError: true}, nil
		case call.Name == "search_docs":
			return reflection.ToolResult{Content: "3 results for " + string(call.Input)}, nil
		case call.Name == "charge_card" && attempt == 0:
			// The charge goes through, but the answer comes too late: the
			// attempt times out and its completion is lost.
			time.Sleep(3 * time.Second)
			return reflection.ToolResult{Content: "charged (too late to tell)"}, nil
		case call.Name == "charge_card":
			return reflection.ToolResult{Content: "charge " + key + " already made; nothing charged twice"}, nil
		case call.Name == "fetch_page" && attempt == 0:
			return reflection.ToolResult{Content: "connection reset by peer", IsError: true}, nil
		case call.Name == "flaky":
			var in struct{ Failures int }
			_ = json.Unmarshal(call.Input, &in)
			if attempt < in.Failures {
				return reflection.ToolResult{}, errors.New("503 service unavailable")
			}
			return reflection.ToolResult{Content: "ok after " + strconv.Itoa(attempt) + " retries"}, nil
		case call.Name == "slow_beat":
			time.Sleep(slowBeat) // long enough for the activity to heartbeat
			return reflection.ToolResult{Content: "done"}, nil
		case call.Name == "always_down":
			return reflection.ToolResult{}, errors.New("503 service unavailable")
		case call.Name == "slow_report" && attempt == 0:
			// The worker is killed while this runs.
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Minute):
			}
			return reflection.ToolResult{}, errors.New("interrupted")
		case call.Name == "slow_report":
			return reflection.ToolResult{Content: "Q3 report ready"}, nil
		}
		return reflection.ToolResult{Content: "page of " + string(call.Input)}, nil
	}
}

// appendLine appends line and a newline to the file name.
func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	return errors.Join(err, f.Close())
}

// workerReflector answers by tool and attempt, as a rules table would.
var workerReflector = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	switch {
	case f.Tool == "read_file":
		return permissionDenied, nil
	case f.Tool == "search_docs" && f.Attempt == 0:
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "rate limited; the query was too broad", Severity: reflection.SeverityLow,
			Correction: &reflection.Correction{Type: reflection.InputFix, Description: "narrow the query", ModifiedInput: searchFix},
		}, nil
	case f.Tool == "search_docs":
		return reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "the private index needs a human's consent", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "search the public index"},
		}, nil
	}
	return recoverable(f.Error), nil
})

// alwaysRetry is a strategy that retries every failure at once: with it a
// call that keeps failing is exhausted.
type alwaysRetry struct{}

func (alwaysRetry) Decide(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
	return reflection.Retry{}
}
