package reflectiontemporal_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// TestWorkflowReflectorMatchesDriver runs every scenario with the Reflector
// in workflow code (WithWorkflowReflector): Run must still return what
// Driver.RunWithReport returns, and the Reflector activity must never run.
func TestWorkflowReflectorMatchesDriver(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var want ran
			synctest.Test(t, func(t *testing.T) {
				tool := reflectiontest.NewTool(sc.tool...)
				d := reflection.NewDriver(sc.driverOptions(sc.reflector())...)
				want.rep, want.err = d.RunWithReport(context.Background(), sc.call, tool.Dispatch)
				want.res = want.rep.Result
			})

			var activityCalls atomic.Int32
			notCalled := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				activityCalls.Add(1)
				return reflection.FailureAnalysis{}, errors.New("the Reflector activity ran")
			})
			tool := reflectiontest.NewTool(sc.tool...)
			h := newHarness(t, tool.Dispatch, notCalled)
			got := h.run(sc.call, rt.WithDriver(reflection.NewDriver(sc.driverOptions(nil)...)),
				rt.WithWorkflowReflector(sc.reflector()))

			assert.Zero(t, activityCalls.Load(), "the Reflector activity ran")
			assert.Equal(t, want.res, got.res)
			assert.Equal(t, withoutTimes(want.rep), withoutTimes(got.rep))
			if want.err == nil {
				assert.NoError(t, got.err)
			} else {
				require.Error(t, got.err)
				assert.Equal(t, want.err.Error(), errors.Unwrap(got.err).Error())
			}
			assert.Len(t, tool.Calls(), sc.calls)
		})
	}
}
