package rules_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// The errors below break the contract of Unwrap the way a careless host
// type can: they return themselves. errors.Is and errors.As never return on
// the first, and on the second they recurse until the stack runs out. The
// text says "connection reset", so the stock rules call the failure
// transient and a Driver retries it.
const cyclicText = "read tcp 10.0.0.2:51234->10.0.0.5:443: read: connection reset by peer"

// unwrapTrip is how many Unwrap calls an Analyze may make before a tripped
// error panics: far above what bounded walks need (each stops after 1000
// errors), far below "forever". The panic lets a walk that does not end
// fail the test instead of hanging it.
const unwrapTrip = 100_000

// selfLoop is an error whose Unwrap returns itself. With trip set, Unwrap
// panics once it has been called trip times.
type selfLoop struct {
	calls atomic.Int64
	trip  int64
}

func (e *selfLoop) Error() string { return cyclicText }
func (e *selfLoop) Unwrap() error {
	if n := e.calls.Add(1); e.trip > 0 && n > e.trip {
		panic("selfLoop: a walk of the error chain did not end")
	}
	return e
}

// selfFan is an error whose Unwrap returns itself twice.
type selfFan struct {
	calls atomic.Int64
	trip  int64
}

func (e *selfFan) Error() string { return cyclicText }
func (e *selfFan) Unwrap() []error {
	if n := e.calls.Add(1); e.trip > 0 && n > e.trip {
		panic("selfFan: a walk of the error chain did not end")
	}
	return []error{e, e}
}

// TestCyclicErrorChainAnalyze: Analyze walks a chain that loops only a
// bounded number of steps, and still answers from the text.
func TestCyclicErrorChainAnalyze(t *testing.T) {
	loop := &selfLoop{trip: unwrapTrip}
	fan := &selfFan{trip: unwrapTrip}
	tests := []struct {
		name  string
		err   error
		calls func() int64
	}{
		{"Unwrap returns itself", loop, loop.calls.Load},
		{"Unwrap returns []error{self, self}", fan, fan.calls.Load},
	}
	r := rules.New(append(rules.Defaults(), rules.UnknownTool("fetch", "search"))...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Tool: "fetch", Err: tt.err, Error: cyclicText})
			calls := tt.calls()
			require.Less(t, calls, int64(unwrapTrip), "Unwrap was called %d times: a walk of the chain did not end", calls)
			require.NoError(t, err)
			assert.True(t, a.IsRecoverable, "the text still counts")
			assert.Equal(t, "rules: network", a.Context)
			t.Logf("Unwrap calls in one Analyze: %d", calls)
		})
	}
}

// TestCyclicErrorChainDriver: a Driver whose tool returns such an error, with
// the stock rules as its Reflector, returns by its 100 ms deadline. (Before
// the rules' walks were bounded, Run never returned.)
func TestCyclicErrorChainDriver(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
	}{
		{"Unwrap returns itself", func() error { return &selfLoop{} }},
		{"Unwrap returns []error{self, self}", func() error { return &selfFan{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				var analyses []reflection.FailureAnalysis
				d := reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)),
					reflection.WithObserver(reflection.Observer{Analyzed: func(_ context.Context, _ reflection.Failure, a reflection.FailureAnalysis, _ error) {
						analyses = append(analyses, a)
					}}))
				calls := 0
				start := time.Now()
				res, err := d.Run(ctx, reflection.ToolCall{ID: "call-1", Name: "fetch", Input: json.RawMessage(`{"url":"https://example.com"}`)},
					func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
						calls++
						return reflection.ToolResult{}, tt.err()
					})
				assert.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "Run returned by the deadline")
				assert.Equal(t, "call-1", res.ID)
				require.Error(t, err)
				// The rules answered "transient"; the Driver then refused the
				// first backoff (100 ms), which would end past the deadline.
				require.Len(t, analyses, 1)
				assert.True(t, analyses[0].IsRecoverable)
				assert.Equal(t, "rules: network", analyses[0].Context)
				t.Logf("Run returned after %v and %d calls: %v", time.Since(start), calls, err)
			})
		})
	}
}
