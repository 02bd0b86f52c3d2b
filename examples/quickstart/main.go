// Command quickstart runs a small simulated agent through a reflection.Driver,
// offline, and prints a trace of every attempt, analysis and decision.
//
// The Reflector is a chain: the stock rules of package rules first (they know
// timeouts and permission errors without a model), then this program's own
// pattern reflector for what only it knows (its files, its deprecated tools).
// Four tool calls show the ways recovery plays out:
//
//   - get_weather times out twice; the rules call it transient, and it is
//     retried with exponential backoff;
//   - read_file is called with a misspelled path, and the pattern reflector
//     proposes an InputFix with the right one;
//   - search_v1 is deprecated, and the pattern reflector proposes a
//     ToolChange;
//   - write_file fails with a permission error, which the rules escalate: the
//     call ends, and the model reads the failure and the guidance in a
//     recovery note.
//
// Two more show the safety that works across calls:
//
//   - charge_card takes the money and then times out. The Driver knows it is
//     not idempotent (WithEffects), so the timeout is not retried blindly.
//     Its verifier (WithVerifier) looks the charge up in the payment ledger
//     first, which has not recorded it yet and so cannot tell: the call
//     ends with a question for a human (reason ambiguous_effect), and the
//     model reads that the charge may already have gone through. The model
//     issues the same charge again, as models do. The Driver's effect memory
//     knows that call before it runs; the verifier looks again, the ledger
//     now has the charge, and the re-issue ends succeeded with what the
//     ledger found: the card is charged once. The program then runs the
//     first call without WithEffects and prints how many times the card was
//     charged;
//   - get_stock depends on a service that is down. A breaker (WithHealth)
//     counts failing calls, not failing attempts: a call adds one however
//     often it retries, so get_weather's two timeouts above left its breaker
//     closed. The first two get_stock calls fail all their attempts; the
//     third call's first failure is the third failing call, which opens the
//     tool's breaker, so its retry is refused, and the call after it is
//     refused without running the tool (reason circuit_open), with a text
//     that says when to try again.
//
// Last, it runs one call with RunWithReport and prints the report as JSON.
//
// Run it with: go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	tools := newToolbox()
	// Three failing calls in a row open a tool's breaker for 200ms. One
	// Health is shared by the calls of a process.
	health := reflection.NewHealth(3, 200*time.Millisecond)
	driver := reflection.NewDriver(
		reflection.WithReflector(reflector(tools)),
		reflection.WithRecoveryNotes(), // the model learns what recovery did
		reflection.WithStrategy(backoff()),
		reflection.WithSchemas(tools.schema),
		// What running each tool twice does: charge_card must not run again
		// after a failure that may have come after it took the money. The
		// Driver also remembers, for an hour, every call of it that ended
		// without success after such a failure.
		reflection.WithEffects(effectOf),
		// How to tell whether such a call went through: the payment ledger.
		reflection.WithVerifier(tools.verify),
		reflection.WithHealth(health),
		reflection.WithObserver(traceObserver(w)),
	)
	ctx := reflection.ContextWithTask(context.Background(), "prepare the morning report")

	calls := []reflection.ToolCall{
		{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Lisbon"}`)},
		{ID: "call_2", Name: "read_file", Input: json.RawMessage(`{"path":"notes/todo.mdd"}`)},
		{ID: "call_3", Name: "search_v1", Input: json.RawMessage(`{"query":"release notes"}`)},
		{ID: "call_4", Name: "write_file", Input: json.RawMessage(`{"path":"/etc/report.txt","text":"done"}`)},
	}
	start := time.Now()
	for _, call := range calls {
		if err := play(ctx, w, driver, call, tools.dispatch); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nfour calls recovered or handed back in %v\n", time.Since(start).Round(time.Millisecond))

	// A payment that may have gone through: the gateway takes the money,
	// then times out. The rules call a timeout transient, but charge_card is
	// not idempotent, so the Driver asks the verifier, then a human, instead
	// of retrying.
	charge := reflection.ToolCall{ID: "call_5", Name: "charge_card", Input: json.RawMessage(`{"order":"A-1042","amount":"42.00 EUR"}`)}
	if err := play(ctx, w, driver, charge, tools.dispatch); err != nil {
		return err
	}
	fmt.Fprintf(w, "   the card was charged %s\n", times(tools.charges))
	// A moment later the payment settles, and the model, which read the soft
	// error, issues the same charge again: a new call, its input equal as
	// JSON. The effect memory holds it back and the verifier answers.
	tools.settle()
	reissue := reflection.ToolCall{ID: "call_6", Name: "charge_card", Input: json.RawMessage(`{"amount":"42.00 EUR","order":"A-1042"}`)}
	if err := play(ctx, w, driver, reissue, tools.dispatch); err != nil {
		return err
	}
	fmt.Fprintf(w, "   the card was charged %s\n", times(tools.charges))
	// The same call on a Driver without WithEffects, with a fresh card.
	other := newToolbox()
	blind := reflection.NewDriver(
		reflection.WithReflector(reflector(other)),
		reflection.WithStrategy(backoff()),
		reflection.WithSchemas(other.schema),
	)
	if _, err := blind.Run(ctx, charge, other.dispatch); err != nil {
		return fmt.Errorf("%s without WithEffects: %w", charge.ID, err)
	}
	fmt.Fprintf(w, "   without WithEffects, %s's timeout is retried and a fresh card is charged %s\n", charge.ID, times(other.charges))

	// The inventory service is down. Each failing call adds one to the
	// breaker of get_stock, however often it retried: the third opens it,
	// and what comes after is refused without running.
	for _, call := range []reflection.ToolCall{
		{ID: "call_7", Name: "get_stock", Input: json.RawMessage(`{"sku":"A-1042"}`)},
		{ID: "call_8", Name: "get_stock", Input: json.RawMessage(`{"sku":"B-7"}`)},
		{ID: "call_9", Name: "get_stock", Input: json.RawMessage(`{"sku":"C-19"}`)},
		{ID: "call_10", Name: "get_stock", Input: json.RawMessage(`{"sku":"D-3"}`)},
	} {
		if err := play(ctx, w, driver, call, tools.dispatch); err != nil {
			return err
		}
		fmt.Fprintf(w, "   circuit breaker of %s: %s\n", call.Name, health.State(call.Name))
	}
	fmt.Fprintf(w, "\nget_stock ran %s for four calls: three failing calls opened its breaker, which refused the rest without running it\n",
		times(tools.stockCalls))

	// A call like call_2 once more, with a report of everything it went
	// through.
	tools.files["notes/today.md"] = "- standup at 10"
	last := reflection.ToolCall{ID: "call_11", Name: "read_file", Input: json.RawMessage(`{"path":"notes/today.mdd"}`)}
	fmt.Fprintf(w, "\n== %s %s %s, with a report\n", last.ID, last.Name, last.Input)
	rep, err := driver.RunWithReport(ctx, last, tools.dispatch)
	if err != nil {
		return fmt.Errorf("%s: %w", last.ID, err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== the report of one call (Driver.RunWithReport)\n%s\n", b)
	return nil
}

// reflector is the quickstart's Reflector: the stock rules, then the
// program's own patterns.
func reflector(tools *toolbox) reflection.Reflector {
	return reflection.Chain(
		rules.New(rules.Defaults()...),       // timeouts, 5xx, rate limits, auth: no model needed
		patternReflector{files: tools.files}, // what only this program knows
	)
}

// backoff is the quickstart's strategy: up to two retries. Short delays keep
// the demo quick: 10ms, then 20ms.
func backoff() reflection.ExponentialBackoff {
	return reflection.NewExponentialBackoff(2).WithBaseDelay(10 * time.Millisecond)
}

// play runs one call, with its trace, and prints what the model gets back
// and, when the call did not succeed, why it ended (Report.Reason).
func play(ctx context.Context, w io.Writer, driver *reflection.Driver, call reflection.ToolCall, dispatch reflection.DispatchFunc) error {
	fmt.Fprintf(w, "\n== %s %s %s\n", call.ID, call.Name, call.Input)
	rep, err := driver.RunWithReport(ctx, call, dispatch)
	if err != nil {
		return fmt.Errorf("%s: %w", call.ID, err)
	}
	status := "ok"
	if rep.Result.IsError {
		status = "soft error, handed to the model"
	}
	fmt.Fprintf(w, "   => %s: %s\n", status, indent(rep.Result.Content))
	if rep.Reason != "" {
		fmt.Fprintf(w, "   reason: %s (the tool ran %s)\n", rep.Reason, times(len(rep.Attempts)))
	}
	return nil
}

// times says n times in words.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// toolbox is the simulated agent's tool registry.
type toolbox struct {
	files        map[string]string
	weatherCalls int
	charges      int               // how many times charge_card took the money
	pending      map[string]string // charges the gateway took, by order, that the ledger has not recorded yet
	ledger       map[string]string // charges the ledger has recorded: the amount, by order
	stockCalls   int               // how many times get_stock ran
}

func newToolbox() *toolbox {
	return &toolbox{
		files:   map[string]string{"notes/todo.md": "- ship v1\n- write the changelog"},
		pending: map[string]string{},
		ledger:  map[string]string{},
	}
}

// settle records the pending charges in the ledger, as a payment provider
// does some time after it took the money.
func (t *toolbox) settle() {
	for order, amount := range t.pending {
		t.ledger[order] = amount
		delete(t.pending, order)
	}
}

// verify is the Driver's verifier (WithVerifier): it looks a charge_card
// that may have acted up in the ledger, by its order. A charge the ledger
// has went through: the call ends with what the ledger found. One it has
// not may still be pending, so the verifier cannot tell and a human is
// asked, as without a verifier.
func (t *toolbox) verify(_ context.Context, call reflection.ToolCall) (reflection.Verdict, reflection.ToolResult, error) {
	if call.Name != "charge_card" {
		return reflection.VerdictUnknown, reflection.ToolResult{}, nil
	}
	var in struct{ Order string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return reflection.VerdictUnknown, reflection.ToolResult{}, err
	}
	amount, found := t.ledger[in.Order]
	if !found {
		return reflection.VerdictUnknown, reflection.ToolResult{}, nil
	}
	return reflection.VerdictApplied, reflection.ToolResult{Content: "charged " + amount + " for order " + in.Order + " (found in the ledger)"}, nil
}

var schemas = map[string]reflection.ToolSchema{
	"get_weather": {Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","required":["city"]}`)},
	"read_file":   {Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","required":["path"]}`)},
	"search_v1":   {Name: "search_v1", Description: "deprecated: use search_v2"},
	"search_v2":   {Name: "search_v2", InputSchema: json.RawMessage(`{"type":"object","required":["query"]}`)},
	"write_file":  {Name: "write_file", InputSchema: json.RawMessage(`{"type":"object","required":["path","text"]}`)},
	"charge_card": {Name: "charge_card", InputSchema: json.RawMessage(`{"type":"object","required":["order","amount"]}`)},
	"get_stock":   {Name: "get_stock", InputSchema: json.RawMessage(`{"type":"object","required":["sku"]}`)},
}

// effects says what running each tool a second time does. A tool missing
// here is undeclared, which the Driver treats as not idempotent.
var effects = map[string]reflection.Effect{
	"get_weather": reflection.EffectReadOnly,
	"read_file":   reflection.EffectReadOnly,
	"search_v1":   reflection.EffectReadOnly,
	"search_v2":   reflection.EffectReadOnly,
	"write_file":  reflection.EffectIdempotent,    // the same text again changes nothing
	"charge_card": reflection.EffectNonIdempotent, // every run takes the money
	"get_stock":   reflection.EffectReadOnly,
}

// effectOf is the Driver's effect func (WithEffects).
func effectOf(tool string) reflection.Effect { return effects[tool] }

// schema is the Driver's SchemaLookup: it also tells which tools exist, so a
// ToolChange to anything else would be dropped.
func (t *toolbox) schema(name string) (reflection.ToolSchema, bool) {
	s, ok := schemas[name]
	return s, ok
}

// dispatch plays the host framework's dispatch: it runs one tool call.
func (t *toolbox) dispatch(_ context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	var in struct{ City, Path, Query, Text, Order, Amount, SKU string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return reflection.ToolResult{}, fmt.Errorf("bad input: %w", err)
	}
	switch call.Name {
	case "get_weather":
		t.weatherCalls++
		if t.weatherCalls <= 2 {
			return reflection.ToolResult{}, errors.New("weather service timed out after 5s")
		}
		return reflection.ToolResult{Content: in.City + ": 19°C, clear"}, nil
	case "read_file":
		body, ok := t.files[in.Path]
		if !ok {
			return reflection.ToolResult{Content: "open " + in.Path + ": no such file or directory", IsError: true}, nil
		}
		return reflection.ToolResult{Content: body}, nil
	case "search_v1":
		return reflection.ToolResult{Content: "search_v1 is deprecated; use search_v2", IsError: true}, nil
	case "search_v2":
		return reflection.ToolResult{Content: `3 results for "` + in.Query + `"`}, nil
	case "write_file":
		return reflection.ToolResult{Content: "open " + in.Path + ": permission denied", IsError: true}, nil
	case "charge_card":
		t.charges++
		t.pending[in.Order] = in.Amount
		if t.charges == 1 { // the money is taken, and then the answer is lost
			return reflection.ToolResult{}, errors.New("payment gateway timed out after 30s")
		}
		return reflection.ToolResult{Content: "charged " + in.Amount + " for order " + in.Order}, nil
	case "get_stock":
		t.stockCalls++
		return reflection.ToolResult{}, errors.New("inventory service: 503 Service Unavailable")
	}
	return reflection.ToolResult{Content: "unknown tool " + call.Name, IsError: true}, nil
}

// patternReflector knows this program's own failures: misspelled files and
// deprecated tools. Anything else it skips, for the next in the chain.
type patternReflector struct{ files map[string]string }

func (r patternReflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := reflection.FailureAnalysis{RootCause: f.Error, Severity: reflection.SeverityMedium}
	switch {
	case strings.Contains(f.Error, "no such file"):
		var in struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal(f.Input, &in)
		if fixed, ok := r.closestFile(in.Path); ok {
			a.IsRecoverable = true
			a.Correction = &reflection.Correction{
				Type:          reflection.InputFix,
				Description:   "use the existing file " + fixed,
				ModifiedInput: json.RawMessage(fmt.Sprintf(`{"path":%q}`, fixed)),
			}
		}
	case strings.Contains(f.Error, "deprecated; use "):
		alt := f.Error[strings.LastIndex(f.Error, " ")+1:]
		a.IsRecoverable = true
		a.Correction = &reflection.Correction{Type: reflection.ToolChange, Description: "switch to " + alt, AlternativeTool: alt}
	default:
		return reflection.FailureAnalysis{}, reflection.ErrSkipped
	}
	return a, nil
}

// closestFile finds a known file whose name starts like path.
func (r patternReflector) closestFile(path string) (string, bool) {
	for name := range r.files {
		if len(path) > 4 && strings.HasPrefix(name, path[:len(path)-4]) {
			return name, true
		}
	}
	return "", false
}

// traceObserver prints every step of the recovery loop.
func traceObserver(w io.Writer) reflection.Observer {
	return reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, call reflection.ToolCall) {
			fmt.Fprintf(w, "   attempt %d: %s %s\n", attempt+1, call.Name, call.Input)
		},
		DispatchDone: func(_ context.Context, _ int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(w, "     failed: %v\n", err)
			case res.IsError:
				fmt.Fprintf(w, "     failed: %s\n", res.Content)
			}
		},
		Analyzed: func(_ context.Context, _ reflection.Failure, a reflection.FailureAnalysis, err error) {
			if err != nil {
				fmt.Fprintf(w, "     analysis failed: %v\n", err)
				return
			}
			fix := "no correction"
			if c := a.Correction; c != nil {
				fix = string(c.Type)
			}
			fmt.Fprintf(w, "     analysis: recoverable=%t severity=%s, %s\n", a.IsRecoverable, a.Severity, fix)
		},
		Decided: func(_ context.Context, _ int, action reflection.RecoveryAction) {
			fmt.Fprintf(w, "     decision: %s\n", action)
		},
		Remembered: func(_ context.Context, _ reflection.ToolCall, earlier reflection.RememberedCall) {
			fmt.Fprintf(w, "   remembered: the same call, %s, may already have taken effect (%s)\n", earlier.ID, earlier.Failure)
		},
		Verified: func(_ context.Context, call reflection.ToolCall, v reflection.Verdict, err error) {
			if err != nil {
				fmt.Fprintf(w, "     verifier failed: %v\n", err)
				return
			}
			fmt.Fprintf(w, "     verified %s: %s\n", call.Name, v)
		},
		Corrected: func(_ context.Context, _ int, c reflection.Correction, applied bool, why string) {
			if applied {
				fmt.Fprintf(w, "     correction applied: %s\n", c.Description)
			} else {
				fmt.Fprintf(w, "     correction dropped: %s\n", why)
			}
		},
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }
