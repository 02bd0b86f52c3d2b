package reflectiontest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var call = reflection.ToolCall{ID: "c1", Name: "search"}

func TestReflectorScript(t *testing.T) {
	r := reflectiontest.NewReflector(reflection.FailureAnalysis{RootCause: "one"}, reflection.FailureAnalysis{RootCause: "two"})
	for i, want := range []string{"one", "two"} {
		a, err := r.Analyze(context.Background(), reflection.Failure{Attempt: i})
		require.NoError(t, err)
		assert.Equal(t, want, a.RootCause)
	}
	_, err := r.Analyze(context.Background(), reflection.Failure{Attempt: 2})
	assert.ErrorIs(t, err, reflection.ErrInternal, "past the end of its script")
	assert.Equal(t, []reflection.Failure{{Attempt: 0}, {Attempt: 1}, {Attempt: 2}}, r.Failures())
}

func TestReflectorRepeatLast(t *testing.T) {
	one, two := reflection.FailureAnalysis{RootCause: "one"}, reflection.FailureAnalysis{RootCause: "two"}
	r := reflectiontest.NewReflector(one, two)
	assert.Same(t, r, r.RepeatLast())
	for i, want := range []string{"one", "two", "two", "two"} {
		a, err := r.Analyze(context.Background(), reflection.Failure{Attempt: i})
		require.NoError(t, err, "answer %d", i)
		assert.Equal(t, want, a.RootCause, "answer %d", i)
	}
	assert.Len(t, r.Failures(), 4)

	_, err := reflectiontest.NewReflector().RepeatLast().Analyze(context.Background(), reflection.Failure{})
	assert.ErrorIs(t, err, reflection.ErrInternal, "an empty script has nothing to repeat")
}

func TestStrategyScript(t *testing.T) {
	s := reflectiontest.NewStrategy(reflection.Retry{}, reflection.Skip{Reason: "s"})
	a := reflection.FailureAnalysis{RootCause: "x"}
	assert.Equal(t, reflection.Retry{}, s.Decide(context.Background(), a, 0, 6))
	assert.Equal(t, reflection.Skip{Reason: "s"}, s.Decide(context.Background(), a, 1, 6))
	assert.IsType(t, reflection.Fail{}, s.Decide(context.Background(), a, 2, 6), "past the end of its script")
	assert.Equal(t, []reflectiontest.Decision{{a, 0, 6}, {a, 1, 6}, {a, 2, 6}}, s.Decisions())
}

func TestToolScript(t *testing.T) {
	boom := errors.New("boom")
	tool := reflectiontest.NewTool(reflectiontest.Fail("no"), reflectiontest.Error(boom), reflectiontest.Succeed("ok"))
	ctx := context.Background()
	res, err := tool.Dispatch(ctx, call)
	assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "no", IsError: true}, res)
	assert.NoError(t, err)
	_, err = tool.Dispatch(ctx, call)
	assert.Same(t, boom, err)
	for range 2 { // the last outcome repeats
		res, err = tool.Dispatch(ctx, call)
		assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "ok"}, res)
		assert.NoError(t, err)
	}
	assert.Len(t, tool.Calls(), 4)

	res, _ = reflectiontest.NewTool().Dispatch(ctx, call)
	assert.True(t, res.IsError, "a tool without a script fails")
	assert.PanicsWithValue(t, "bug", func() { reflectiontest.NewTool(reflectiontest.Panic("bug")).Dispatch(ctx, call) })
}

func TestConcurrentUse(t *testing.T) {
	tool := reflectiontest.NewTool(reflectiontest.Fail("x"))
	r := reflectiontest.NewReflector()
	s := reflectiontest.NewStrategy()
	d := reflection.NewDriver(reflection.WithReflector(r), reflection.WithStrategy(s))
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { d.Run(context.Background(), call, tool.Dispatch) })
	}
	wg.Wait()
	assert.Len(t, tool.Calls(), 50)
	assert.Len(t, r.Failures(), 50)
}

func TestRecorderAndSummary(t *testing.T) {
	rec := reflectiontest.NewRecorder()
	fix := &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "search_v2"}
	d := reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true, Correction: fix})),
		reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})),
		reflection.WithObserver(rec.Observer()))
	tool := reflectiontest.NewTool(reflectiontest.Fail("deprecated"), reflectiontest.Succeed("hits"))
	rep, err := d.RunWithReport(context.Background(), call, tool.Dispatch)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"dispatch 0 search ",
		"failed 0: deprecated",
		"analyzed 0: recoverable low tool_change",
		"decided 0: retry after 0s",
		"waiting 0: 0s",
		"corrected 0: tool_change applied",
		"dispatch 1 search_v2 ",
		"succeeded 1",
		"finished: 2 calls, ok",
	}, rec.Events())
	assert.Equal(t, "outcome succeeded after 2 attempt(s)\n"+
		"  0. search  -> \"deprecated\"; retry after 0s; tool_change applied\n"+
		"  1. search_v2  -> ok", reflectiontest.Summary(rep))
	assert.True(t, reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded))
	assert.True(t, reflectiontest.AssertCallNames(t, tool, "search", "search_v2"))
}

// failureCatcher records what an assertion reports instead of failing.
type failureCatcher struct {
	testing.TB
	errors []string
}

func (f *failureCatcher) Helper() {}
func (f *failureCatcher) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func TestAssertionsReportMismatches(t *testing.T) {
	catch := &failureCatcher{TB: t}
	rep := reflection.Report{Outcome: reflection.OutcomeFailed}
	assert.False(t, reflectiontest.AssertOutcome(catch, rep, reflection.OutcomeSucceeded))
	tool := reflectiontest.NewTool(reflectiontest.Succeed("ok"))
	tool.Dispatch(context.Background(), call)
	assert.False(t, reflectiontest.AssertCallNames(catch, tool, "search", "search"))
	assert.False(t, reflectiontest.AssertCallNames(catch, tool))
	require.Len(t, catch.errors, 3)
	assert.Contains(t, catch.errors[0], "outcome = failed, want succeeded")
	assert.Contains(t, catch.errors[1], `tool calls = ["search"], want ["search" "search"]`)
}
