package reflectiontemporal

import (
	"errors"
	"strconv"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// activityFailure turns the error of a tool activity that did not complete
// into the failure of the attempt. A timeout reads as Driver.Run's attempt
// timeout does (`tool "<name>" timed out after <d>`) and matches
// context.DeadlineExceeded: it is how a worker that died mid-call shows
// (after a HeartbeatTimeout, the activity heartbeating by itself while the
// tool runs), so the Reflector can call it transient. Anything else says the tool could not
// run, with Temporal's words.
func activityFailure(tool string, err error, o workflow.ActivityOptions) *ErrorData {
	name := strconv.Quote(tool)
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		var text string
		switch te.TimeoutType() {
		case enumspb.TIMEOUT_TYPE_HEARTBEAT:
			// The activity heartbeats by itself while the tool runs: its
			// worker died or hung.
			text = "tool " + name + " timed out: no heartbeat from its worker for " + o.HeartbeatTimeout.String()
		case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
			text = "tool " + name + " did not start within " + o.ScheduleToStartTimeout.String()
		case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
			text = "tool " + name + " timed out after " + o.ScheduleToCloseTimeout.String()
		default:
			text = "tool " + name + " timed out after " + o.StartToCloseTimeout.String()
		}
		return &ErrorData{Text: text, Timeout: true, Is: []string{"deadline_exceeded"}}
	}
	d := NewErrorData(err)
	cause := err
	var ae *temporal.ActivityError
	if errors.As(err, &ae) && ae.Unwrap() != nil {
		cause = ae.Unwrap()
	}
	d.Text = "tool " + name + " could not run: " + errorText(cause)
	return d
}
