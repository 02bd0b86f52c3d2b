package reflectiontemporal_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/loopctl-go/reflection/rules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkflowReflectorMatchesDriver runs every scenario with the Reflector
// in workflow code (WithWorkflowReflector): Run must still return what
// Driver.RunWithReport returns, and the Reflector activity must never run.
func TestWorkflowReflectorMatchesDriver(t *testing.T) { matchDriver(t, true) }

// TestDriverRulesRunInWorkflow gives Run the stock set-up, a Driver whose
// Reflector is the rules package's: the rules run in workflow code (the
// Reflector activity never runs), decide as under Driver.RunWithReport,
// and read the workflow's clock: a Retry-After stated as an HTTP date
// waits until that date on the workflow's clock, whatever clock the rules
// were given.
func TestDriverRulesRunInWorkflow(t *testing.T) {
	noActivity := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		t.Error("the Reflector activity ran")
		return reflection.FailureAnalysis{}, errors.New("the Reflector activity ran")
	})
	stock := func() *reflection.Driver {
		return reflection.NewDriver(reflection.WithReflector(rules.New(rules.Defaults()...)))
	}
	outcomes := []reflectiontest.Outcome{reflectiontest.Fail("503 service unavailable"), reflectiontest.Succeed("ok")}

	var want reflection.Report
	synctest.Test(t, func(t *testing.T) {
		var err error
		want, err = stock().RunWithReport(context.Background(), readCall, reflectiontest.NewTool(outcomes...).Dispatch)
		require.NoError(t, err)
	})
	tool := reflectiontest.NewTool(outcomes...)
	h := newHarness(t, tool.Dispatch, noActivity)
	got := h.run(stock(), readCall)
	require.NoError(t, got.err)
	assert.Equal(t, withoutTimes(want), withoutTimes(got.rep))
	require.Len(t, got.rep.Attempts, 2)
	assert.Equal(t, "the service is overloaded or briefly unavailable", got.rep.Attempts[0].Analysis.RootCause)

	// The workflow's clock starts at h.start; the date is a minute later.
	date := h.start.Add(time.Minute).Format(http.TimeFormat)
	wallClock := rules.New(rules.Defaults()...).WithClock(func() time.Time { return time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC) })
	tool = reflectiontest.NewTool(reflectiontest.Fail("503 service unavailable; Retry-After: "+date), reflectiontest.Succeed("ok"))
	h = newHarness(t, tool.Dispatch, noActivity)
	got = h.run(reflection.NewDriver(reflection.WithReflector(wallClock)), readCall)
	require.NoError(t, got.err)
	require.Len(t, got.rep.Attempts, 2)
	require.NotNil(t, got.rep.Attempts[0].Wait)
	assert.Equal(t, time.Minute, got.rep.Attempts[0].Wait.Hint, "the hint read on the workflow's clock")
}
