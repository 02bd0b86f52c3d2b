package recovery

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
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

// dispatcher calls w's dispatch for logical call lc under key (a keyed
// tool's idempotency key; "" for none), with a record it returns.
func dispatcher(w *world, lc int, key string) (func(name, input string) (reflection.ToolResult, error), *callState) {
	st := &callState{logical: lc}
	ctx := withState(context.Background(), st)
	if key != "" {
		ctx = reflection.ContextWithIdempotencyKey(ctx, key)
	}
	return func(name, input string) (reflection.ToolResult, error) {
		return w.dispatch(ctx, reflection.ToolCall{ID: "c1", Name: name, Input: json.RawMessage(input)})
	}, st
}

func TestWorldDispatch(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-1", "class": "transient", "repeat": 2, "tools": [{"name": "pay", "effect": "non_idempotent"}, {"name": "lookup", "effect": "read_only"}], "call": {"name": "pay", "input": {"a": 1, "b": 2}}, "reject": {"error": "invalid amount", "status": 400}, "faults": [{"error": "timeout", "timeout": true, "commits": true}, {"error": "slow down", "status": 429, "retry_after": "3", "no_effect": true}], "result": "paid", "right": "succeed"}`)
	w := newWorld(sc, time.Now())
	call, st := dispatcher(w, 0, "")

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
	if st.fault != &sc.Faults[0] {
		t.Errorf("the record names fault %v, want the first", st.fault)
	}
	_, err = call("pay", `{"a":1,"b":2}`)
	var ra interface{ RetryAfter() time.Duration }
	if err == nil || !errors.As(err, &ra) || ra.RetryAfter() != 3*time.Second || !errors.Is(err, noEffectMark) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second fault: got %v, want a 429 with a 3s Retry-After and no effect", err)
	}
	res, err := call("pay", `{"a":1,"b":2}`)
	if err != nil || res.Content != "paid" || res.ID != "c1" || st.fault != nil {
		t.Errorf("success: got %+v, %v, fault %v", res, err, st.fault)
	}
	if st.dispatches != 6 || w.duplicates(0) != 1 || !w.committed(0) {
		t.Errorf("got %d dispatches, %d duplicates, committed %v; want 6, 1, true", st.dispatches, w.duplicates(0), w.committed(0))
	}

	// Another logical call: a ledger of its own, and the service has recovered.
	call2, _ := dispatcher(w, 1, "")
	if w.committed(1) {
		t.Error("logical call 1 committed before it ran")
	}
	if res, err := call2("pay", `{"a":1,"b":2}`); err != nil || res.Content != "paid" {
		t.Errorf("second call: got %+v, %v", res, err)
	}
	if w.duplicates(1) != 0 || w.duplicates(0) != 1 {
		t.Errorf("got %d and %d duplicates; want 1, 0", w.duplicates(0), w.duplicates(1))
	}
}

func TestWorldPermanent(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-2", "class": "outage", "tools": [{"name": "send", "effect": "idempotent"}], "call": {"name": "send", "input": {}}, "faults": [{"error": "502 Bad Gateway", "status": 502}, {"error": "504 Gateway Time-out", "status": 504, "commits": true}], "permanent": true, "repeat": 10, "result": "sent", "right": "no_retry"}`)
	w := newWorld(sc, time.Now())
	call, _ := dispatcher(w, 0, "")
	var texts []string
	for range 4 {
		_, err := call("send", `{}`)
		texts = append(texts, err.Error())
	}
	if want := "502 Bad Gateway|504 Gateway Time-out|504 Gateway Time-out|504 Gateway Time-out"; strings.Join(texts, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(texts, "|"), want)
	}
	// Three commits of an idempotent tool: effects, but no duplicates.
	if w.ledgers[0].effects != 3 || w.duplicates(0) != 0 {
		t.Errorf("got %d effects, %d duplicates; want 3, 0", w.ledgers[0].effects, w.duplicates(0))
	}
}

// TestWorldKeys checks the key-aware ledger: a keyed tool's commit under a
// key that has committed adds nothing; under another key, or none, it is a
// new effect.
func TestWorldKeys(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-3", "class": "reissue", "tools": [{"name": "charge", "effect": "keyed"}], "call": {"name": "charge", "input": {}}, "faults": [{"error": "read tcp: i/o timeout", "timeout": true, "commits": true}], "result": "charged", "right": "succeed"}`)
	w := newWorld(sc, time.Now())
	call, _ := dispatcher(w, 0, "key-1")
	if _, err := call("charge", `{}`); err == nil {
		t.Fatal("the first dispatch succeeded, want the timeout")
	}
	if res, err := call("charge", `{}`); err != nil || res.Content != "charged" {
		t.Fatalf("retry under the same key: got %+v, %v", res, err)
	}
	if w.duplicates(0) != 0 || w.ledgers[0].effects != 1 {
		t.Errorf("same key: got %d effects, %d duplicates; want 1, 0", w.ledgers[0].effects, w.duplicates(0))
	}
	other, _ := dispatcher(w, 0, "key-2")
	other("charge", `{}`)
	none, _ := dispatcher(w, 0, "")
	none("charge", `{}`)
	none("charge", `{}`)
	if w.duplicates(0) != 3 {
		t.Errorf("another key, then none twice: got %d duplicates, want 3", w.duplicates(0))
	}
}

// TestWorldTime checks the faults that depend on time: one held for a
// while (for_s), and an outage that recovers (recovers_after_s).
func TestWorldTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := mustScenario(t, `{"id": "w-4", "class": "rate_limited_body", "tools": [{"name": "ask", "effect": "read_only"}], "call": {"name": "ask", "input": {}}, "faults": [{"error": "Please try again in 2.5s.", "status": 429, "for_s": 2.5}], "result": "ok", "right": "succeed"}`)
		w := newWorld(sc, time.Now())
		call, _ := dispatcher(w, 0, "")
		for i := range 3 {
			if _, err := call("ask", `{}`); err == nil {
				t.Fatalf("dispatch %d at %v succeeded, want the 429", i, time.Since(w.t0))
			}
			time.Sleep(time.Second)
		}
		if _, err := call("ask", `{}`); err != nil {
			t.Errorf("at 3s: got %v, want the success", err)
		}

		sc = mustScenario(t, `{"id": "w-5", "class": "outage_recovers", "tools": [{"name": "ask", "effect": "read_only"}], "call": {"name": "ask", "input": {}}, "faults": [{"error": "503 Service Unavailable", "status": 503}], "permanent": true, "recovers_after_s": 20, "repeat": 10, "gap_s": 5, "result": "ok", "right": "no_retry"}`)
		w = newWorld(sc, time.Now())
		call, _ = dispatcher(w, 0, "")
		time.Sleep(19 * time.Second)
		if _, err := call("ask", `{}`); err == nil {
			t.Error("at 19s: succeeded, want the outage")
		}
		time.Sleep(time.Second)
		if _, err := call("ask", `{}`); err != nil {
			t.Errorf("at 20s: got %v, want the success", err)
		}
	})
}

func TestWorldAsResult(t *testing.T) {
	sc := mustScenario(t, `{"id": "w-6", "class": "transient", "as_result": true, "tools": [{"name": "ask", "effect": "read_only"}], "call": {"name": "ask", "input": {"q": 1}}, "reject": {"error": "bad q"}, "faults": [{"error": "upstream timed out"}], "result": "ok", "right": "succeed"}`)
	w := newWorld(sc, time.Now())
	call, _ := dispatcher(w, 0, "")
	if res, err := call("ask", `{"q": 1}`); err != nil || !res.IsError || res.Content != "upstream timed out" {
		t.Errorf("fault: got %+v, %v; want a failure result", res, err)
	}
	if _, err := call("ask", `{"q": 2}`); err == nil || !errors.Is(err, noEffectMark) {
		t.Errorf("reject: got %v, want an error marked as no effect", err)
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
