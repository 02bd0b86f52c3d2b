package reflection

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestCacheByteBudget: answers count by their bytes; past the budget the
// least recently used go, and an answer larger than the budget is handed
// out but not kept.
func TestCacheByteBudget(t *testing.T) {
	const budget = 64 << 10
	big := strings.Repeat("r", 10<<10) // each answer costs about 10.5 KiB
	var calls int
	r := ReflectorFunc(func(_ context.Context, f Failure) (FailureAnalysis, error) {
		calls++
		if f.Tool == "huge" {
			return FailureAnalysis{RootCause: strings.Repeat("h", budget)}, nil
		}
		return FailureAnalysis{RootCause: big, Correction: &Correction{Type: InputFix, ModifiedInput: []byte(`{"a":1}`)}}, nil
	})
	c := newCache(r, 0, 0, budget)
	ctx := context.Background()
	for i := range 20 {
		if _, err := c.Analyze(ctx, Failure{Tool: "t", Error: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
		if c.bytes > budget {
			t.Fatalf("after %d answers the cache holds %d bytes, over its budget of %d", i+1, c.bytes, budget)
		}
	}
	if n := c.order.Len(); n != budget/answerBytes(&FailureAnalysis{RootCause: big, Correction: &Correction{Type: InputFix, ModifiedInput: []byte(`{"a":1}`)}}) {
		t.Errorf("the cache holds %d answers", n)
	}
	// The most recent answers stayed; the oldest went.
	calls = 0
	c.Analyze(ctx, Failure{Tool: "t", Error: "19"})
	c.Analyze(ctx, Failure{Tool: "t", Error: "0"})
	if calls != 1 {
		t.Errorf("got %d calls, want 1: a hit for the latest answer, a miss for the first", calls)
	}

	calls = 0
	for range 2 {
		a, err := c.Analyze(ctx, Failure{Tool: "huge"})
		if err != nil || len(a.RootCause) != budget {
			t.Fatalf("a huge answer is still handed out: %d bytes, %v", len(a.RootCause), err)
		}
	}
	if calls != 2 {
		t.Errorf("got %d calls, want 2: a huge answer is not kept", calls)
	}
	total := 0
	for el := c.order.Front(); el != nil; el = el.Next() {
		total += el.Value.(*cacheEntry).bytes
	}
	if total != c.bytes {
		t.Errorf("the entries hold %d bytes, the count says %d", total, c.bytes)
	}
}
