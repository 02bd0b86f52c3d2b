package recovery

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

// mustScenario reads one scenario line or fails the test.
func mustScenario(t *testing.T, line string) *scenario {
	t.Helper()
	scs, err := readScenarios(strings.NewReader(line), "test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return scs[0]
}

func TestWorldDispatch(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-1", "class": "transient", "tools": [{"name": "pay", "effect": "non_idempotent"}, {"name": "lookup", "effect": "read_only"}], "call": {"name": "pay", "input": {"a": 1, "b": 2}}, "reject": {"error": "invalid amount", "status": 400}, "faults": [{"error": "timeout", "timeout": true, "commits": true}, {"error": "slow down", "status": 429, "retry_after": "3", "no_effect": true}], "result": "paid", "right": "succeed"}`)
	w := newWorld(sc)
	w.beginCall()
	ctx := context.Background()
	call := func(name, input string) (reflection.ToolResult, error) {
		return w.dispatch(ctx, reflection.ToolCall{ID: "c1", Name: name, Input: json.RawMessage(input)})
	}

	if _, err := call("refund", `{"a": 1, "b": 2}`); err == nil || err.Error() != "unknown tool: refund" || !errors.Is(err, noEffectMark) {
		t.Errorf("unknown tool: got %v, want unknown tool: refund, marked as no effect", err)
	}
	_, err := call("lookup", `{"a": 1, "b": 2}`)
	var sc400 interface{ StatusCode() int }
	if err == nil || err.Error() != "invalid amount" || !errors.Is(err, noEffectMark) || !errors.As(err, &sc400) || sc400.StatusCode() != 400 {
		t.Errorf("another tool: got %v, want the reject with status 400, marked as no effect", err)
	}
	if _, err := call("pay", `{"a": 1, "b": 3}`); err == nil || err.Error() != "invalid amount" {
		t.Errorf("another input: got %v, want the reject", err)
	}

	// The accepted call, its input as another text of the same JSON value.
	_, err = call("pay", `{ "b": 2.0, "a": 1 }`)
	if err == nil || err.Error() != "timeout" || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, noEffectMark) {
		t.Errorf("first fault: got %v, want a timeout that may have had an effect", err)
	}
	_, err = call("pay", `{"a":1,"b":2}`)
	var ra interface{ RetryAfter() time.Duration }
	if err == nil || !errors.As(err, &ra) || ra.RetryAfter() != 3*time.Second || !errors.Is(err, noEffectMark) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second fault: got %v, want a 429 with a 3s Retry-After and no effect", err)
	}
	res, err := call("pay", `{"a":1,"b":2}`)
	if err != nil || res.Content != "paid" || res.ID != "c1" {
		t.Errorf("success: got %+v, %v", res, err)
	}
	if w.dispatches != 6 || w.effects != 2 || w.duplicates() != 1 {
		t.Errorf("got %d dispatches, %d effects, %d duplicates; want 6, 2, 1", w.dispatches, w.effects, w.duplicates())
	}

	// A new call of the run: a fresh ledger, and the service has recovered.
	w.beginCall()
	if res, err := call("pay", `{"a":1,"b":2}`); err != nil || res.Content != "paid" {
		t.Errorf("second call: got %+v, %v", res, err)
	}
	if w.dispatches != 1 || w.duplicates() != 0 {
		t.Errorf("second call: got %d dispatches, %d duplicates; want 1, 0", w.dispatches, w.duplicates())
	}
}

func TestWorldPermanent(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-2", "class": "outage", "tools": [{"name": "send", "effect": "keyed"}], "call": {"name": "send", "input": {}}, "faults": [{"error": "502 Bad Gateway", "status": 502}, {"error": "504 Gateway Time-out", "status": 504, "commits": true}], "permanent": true, "repeat": 10, "result": "sent", "right": "no_retry"}`)
	w := newWorld(sc)
	w.beginCall()
	var texts []string
	for range 4 {
		_, err := w.dispatch(context.Background(), reflection.ToolCall{Name: "send", Input: json.RawMessage(`{}`)})
		texts = append(texts, err.Error())
	}
	if want := "502 Bad Gateway|504 Gateway Time-out|504 Gateway Time-out|504 Gateway Time-out"; strings.Join(texts, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(texts, "|"), want)
	}
	// Three commits of a keyed tool: effects, but no duplicates.
	if w.effects != 3 || w.duplicates() != 0 {
		t.Errorf("got %d effects, %d duplicates; want 3, 0", w.effects, w.duplicates())
	}
}

func TestEndsRight(t *testing.T) {
	tests := []struct {
		right      string
		succeeded  bool
		dispatches int
		want       bool
	}{
		{rightSucceed, true, 3, true},
		{rightSucceed, false, 1, false},
		{rightNoRetry, false, 1, true},
		{rightNoRetry, false, 0, true}, // refused by a breaker
		{rightNoRetry, false, 2, false},
		{rightNoRetry, true, 1, false},
	}
	for _, tt := range tests {
		if got := endsRight(tt.right, tt.succeeded, tt.dispatches); got != tt.want {
			t.Errorf("endsRight(%s, %v, %d) = %v, want %v", tt.right, tt.succeeded, tt.dispatches, got, tt.want)
		}
	}
}
