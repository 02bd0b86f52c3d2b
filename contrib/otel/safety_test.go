package reflectionotel_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// transient analyses every failure as worth a retry.
var transient = reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
	return analysis("transient", nil), nil
})

// TestBreakerChanges runs calls through a Driver with a circuit breaker
// (WithHealth) that opens at the second failing call (a call counts once,
// however often it retries): each state change is an event on the span of
// the call whose dispatch caused it and a count in
// reflection.breaker.transitions; each call the open breaker refused ends
// with the reason circuit_open, a refusal event and a count in
// reflection.call.refusals.
func TestBreakerChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		d := h.driver(reflection.WithHealth(reflection.NewHealth(2, time.Minute)),
			reflection.WithReflector(transient),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
		down := newTool(h.tp, bad("backend down"))
		call := reflection.ToolCall{Name: "job"}

		rep, err := d.RunWithReport(context.Background(), call, down.dispatch) // four failures count once
		require.NoError(t, err)
		require.Equal(t, reflection.ReasonStrategy, rep.Reason)
		require.Len(t, rep.Attempts, 4)
		rep, err = d.RunWithReport(context.Background(), call, down.dispatch) // the second failing call opens it
		require.NoError(t, err)
		require.Equal(t, reflection.ReasonCircuitOpen, rep.Reason, "its retry is refused")
		require.Len(t, rep.Attempts, 1)
		rep, err = d.RunWithReport(context.Background(), call, down.dispatch) // refused at once
		require.NoError(t, err)
		require.Equal(t, reflection.ReasonCircuitOpen, rep.Reason)
		require.Len(t, rep.Attempts, 0)
		time.Sleep(time.Minute)
		_, err = d.Run(context.Background(), call, newTool(h.tp, ok("back")).dispatch) // the probe closes it
		require.NoError(t, err)

		calls := h.named("reflection.run job")
		require.Len(t, calls, 4)
		breaker := func(from, to string) map[string]any {
			return map[string]any{"gen_ai.tool.name": "job", "reflection.breaker.from": from, "reflection.breaker.to": to}
		}
		refusal := map[string]any{"reflection.reason": "circuit_open"}

		assert.Empty(t, eventsNamed(calls[0], "reflection.breaker"), "one failing call does not open it")
		assert.Empty(t, eventsNamed(calls[0], "reflection.refusal"))
		assert.Equal(t, []map[string]any{breaker("closed", "open")}, eventsNamed(calls[1], "reflection.breaker"))
		assert.Equal(t, []map[string]any{refusal}, eventsNamed(calls[1], "reflection.refusal"))
		assert.Empty(t, eventsNamed(calls[2], "reflection.breaker"))
		assert.Equal(t, []map[string]any{refusal}, eventsNamed(calls[2], "reflection.refusal"))
		assert.Equal(t, []map[string]any{breaker("open", "half_open"), breaker("half_open", "closed")}, eventsNamed(calls[3], "reflection.breaker"))
		assert.Empty(t, eventsNamed(calls[3], "reflection.refusal"))
		assert.Equal(t, "strategy", spanAttrs(calls[0])["reflection.reason"])
		for i, c := range calls[1:3] {
			got := spanAttrs(c)
			assert.Equal(t, "circuit_open", got["reflection.reason"], "call %d", i+1)
			assert.Equal(t, "failed", got["reflection.outcome"], "call %d", i+1)
			assert.Equal(t, codes.Error, c.Status().Code, "call %d", i+1)
		}
		assert.Equal(t, int64(4), spanAttrs(calls[0])["reflection.attempts"])
		assert.Equal(t, int64(1), spanAttrs(calls[1])["reflection.attempts"])
		assert.Equal(t, int64(0), spanAttrs(calls[2])["reflection.attempts"])
		assert.NotContains(t, spanAttrs(calls[3]), "reflection.reason", "a success has no reason")

		m := h.collect(t)
		transitions := map[[2]string]int64{}
		sum, isSum := m["reflection.breaker.transitions"].(metricdata.Sum[int64])
		require.True(t, isSum, "reflection.breaker.transitions is %T", m["reflection.breaker.transitions"])
		for _, dp := range sum.DataPoints {
			from, _ := dp.Attributes.Value("reflection.breaker.from")
			to, _ := dp.Attributes.Value("reflection.breaker.to")
			tool, _ := dp.Attributes.Value("gen_ai.tool.name")
			assert.Equal(t, "job", tool.AsString())
			transitions[[2]string{from.AsString(), to.AsString()}] += dp.Value
		}
		assert.Equal(t, map[[2]string]int64{{"closed", "open"}: 1, {"open", "half_open"}: 1, {"half_open", "closed"}: 1}, transitions)
		assert.Equal(t, map[string]int64{"circuit_open": 2}, sums(t, m["reflection.call.refusals"], "reflection.reason"))
		assert.Equal(t, map[string]int64{"strategy": 1, "circuit_open": 2, "": 1}, sums(t, m["reflection.calls"], "reflection.reason"))
	})
}

// TestBudgetRefusal runs a call whose second retry the retry budget refuses:
// the reason budget_exhausted on the span, a refusal event, and a count in
// reflection.call.refusals.
func TestBudgetRefusal(t *testing.T) {
	h := newHarness(t)
	budget := reflection.NewRetryBudget(5) // one retry's worth
	d := h.driver(reflection.WithRetryBudget(budget), reflection.WithReflector(transient),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	rep, err := d.RunWithReport(context.Background(), reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom")).dispatch)
	require.NoError(t, err)
	require.Equal(t, reflection.ReasonBudgetExhausted, rep.Reason)

	span := h.one(t, "reflection.run job")
	assert.Equal(t, "budget_exhausted", spanAttrs(span)["reflection.reason"])
	assert.Equal(t, int64(2), spanAttrs(span)["reflection.attempts"])
	assert.Equal(t, []map[string]any{{"reflection.reason": "budget_exhausted"}}, eventsNamed(span, "reflection.refusal"))
	assert.Equal(t, codes.Error, span.Status().Code)
	m := h.collect(t)
	assert.Equal(t, map[string]int64{"budget_exhausted": 1}, sums(t, m["reflection.call.refusals"], "reflection.reason"))
	_, has := m["reflection.breaker.transitions"]
	assert.False(t, has, "no breaker, no transition")
}

// TestRefusedWait runs a call whose wait the Driver refuses because ctx's
// deadline comes first: the call's span says which wait, under the name the
// wait event gives it, and no wait is measured.
func TestRefusedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		d := h.driver(reflection.WithReflector(transient),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{Delay: time.Hour})))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := d.Run(ctx, reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom")).dispatch)
		require.ErrorIs(t, err, context.DeadlineExceeded)

		span := h.one(t, "reflection.run job")
		got := spanAttrs(span)
		assert.Equal(t, "deadline", got["reflection.reason"])
		assert.Equal(t, "stopped", got["reflection.outcome"])
		assert.Equal(t, 3600.0, got["reflection.wait.delay"])
		assert.Equal(t, []map[string]any{{"reflection.attempt": int64(0), "reflection.wait.delay": 3600.0}}, eventsNamed(span, "reflection.wait"))
		_, measured := h.collect(t)["reflection.wait.duration"]
		assert.False(t, measured, "a refused wait is no wait")
	})
}

// TestReasonOnEveryEnd checks the reason of each way a call ends on the
// span and in both call metrics.
func TestReasonOnEveryEnd(t *testing.T) {
	h := newHarness(t)
	run := func(ctx context.Context, opts ...reflection.Option) {
		t.Helper()
		d := h.driver(opts...)
		_, _ = d.Run(ctx, reflection.ToolCall{Name: "job"}, newTool(h.tp, bad("boom")).dispatch)
	}
	run(context.Background(), reflection.WithReflector(transient), reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Skip{})))
	run(context.Background(), reflection.WithReflector(reflectiontest.NewReflector())) // the reflector fails
	run(context.Background(), reflection.WithReflector(transient), reflection.WithStrategy(always))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	run(cancelled)

	var reasons []string
	for _, s := range h.named("reflection.run job") {
		reasons = append(reasons, spanAttrs(s)["reflection.reason"].(string))
	}
	assert.Equal(t, []string{"strategy", "reflector_error", "ceiling", "canceled"}, reasons)
	m := h.collect(t)
	assert.Equal(t, map[string]int64{"strategy": 1, "reflector_error": 1, "ceiling": 1, "canceled": 1},
		sums(t, m["reflection.calls"], "reflection.reason"))
	hist, isHist := m["reflection.call.attempts"].(metricdata.Histogram[int64])
	require.True(t, isHist)
	byReason := map[string]int64{}
	for _, dp := range hist.DataPoints {
		v, _ := dp.Attributes.Value(attribute.Key("reflection.reason"))
		byReason[v.AsString()] += dp.Sum
	}
	assert.Equal(t, map[string]int64{"strategy": 1, "reflector_error": 1, "ceiling": 6, "canceled": 0}, byReason)
}
