package reflectiontemporal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/stretchr/testify/assert"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// TestActivityFailure checks what each way a tool activity cannot complete
// means for the attempt: Temporal's timeouts read as Driver.Run's attempt
// timeout where they are one, and an attempt no worker started had no
// effect, which the effect guard reads.
func TestActivityFailure(t *testing.T) {
	opts := workflow.ActivityOptions{
		StartToCloseTimeout: 3 * time.Second, ScheduleToCloseTimeout: time.Minute,
		ScheduleToStartTimeout: 20 * time.Second, HeartbeatTimeout: 10 * time.Second,
	}
	tests := []struct {
		name     string
		err      error
		text     string
		timeout  bool // matches context.DeadlineExceeded
		noEffect bool // matches reflection.ErrNoEffect
		attempt  bool // a *reflection.AttemptTimeoutError
	}{
		{"start to close", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil),
			`tool "pay" timed out after 3s`, true, false, true},
		{"schedule to close", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil),
			`tool "pay" timed out after 1m0s`, true, false, true},
		{"heartbeat", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil),
			`tool "pay" timed out: no heartbeat from its worker for 10s`, true, false, false},
		{"schedule to start", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil),
			`tool "pay" did not start within 20s`, true, true, false},
		{"anything else", temporal.NewApplicationError("payload too large", "BadPayload"),
			`tool "pay" could not run: payload too large (type: BadPayload, retryable: true)`, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := activityFailure("pay", tt.err, opts)
			assert.EqualError(t, got, tt.text)
			assert.Equal(t, tt.timeout, errors.Is(got, context.DeadlineExceeded), "matches context.DeadlineExceeded")
			assert.Equal(t, tt.noEffect, errors.Is(got, reflection.ErrNoEffect), "matches reflection.ErrNoEffect")
			var at *reflection.AttemptTimeoutError
			assert.Equal(t, tt.attempt, errors.As(got, &at), "a *reflection.AttemptTimeoutError")
		})
	}
}
