package reflectiontemporal_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/loopctl-go/reflection"
	rt "github.com/loopctl-go/reflection/contrib/temporal"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestReflectorActivityOptions: the Reflector runs in an activity with the
// options given by WithReflectorActivity, or DefaultReflectorTimeout.
func TestReflectorActivityOptions(t *testing.T) {
	tests := []struct {
		name string
		opts []rt.Option
		want time.Duration
	}{
		{name: "default", want: rt.DefaultReflectorTimeout},
		{name: "WithReflectorActivity", opts: []rt.Option{rt.WithReflectorActivity(workflow.ActivityOptions{
			StartToCloseTimeout: 7 * time.Minute,
		})}, want: 7 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []time.Duration
			refl := reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
				seen = append(seen, activity.GetInfo(ctx).StartToCloseTimeout)
				return reflection.FailureAnalysis{RootCause: "no"}, nil
			})
			h := newHarness(t, reflectiontest.NewTool(reflectiontest.Fail("boom")).Dispatch, refl)
			got := h.run(nil, reflection.ToolCall{ID: "c1", Name: "search"}, tt.opts...)
			require.NoError(t, got.err)
			assert.Equal(t, reflection.OutcomeFailed, got.rep.Outcome)
			assert.Equal(t, []time.Duration{tt.want}, seen)
		})
	}
}
