package reflectiontemporal_test

import (
	"errors"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// ran is what one Run returned inside a test workflow.
type ran struct {
	res reflection.ToolResult
	rep reflection.Report
	err error
}

// harness runs calls through Run in the SDK's test environment, with the
// activities registered over a scripted tool and Reflector.
type harness struct {
	t     *testing.T
	env   *testsuite.TestWorkflowEnvironment
	tool  reflection.DispatchFunc
	refl  reflection.Reflector
	start time.Time
	after func(ctx workflow.Context) // runs in the workflow after Run, when set
}

// newHarness returns a test environment with the activities registered
// over dispatch and r, with opts.
func newHarness(t *testing.T, dispatch reflection.DispatchFunc, r reflection.Reflector, opts ...rt.RegisterOption) *harness {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := newTestEnv(&suite)
	env.SetTestTimeout(30 * time.Second)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env.SetStartTime(start)
	require.NoError(t, rt.Register(env, dispatch, r, opts...))
	return &harness{t: t, env: env, tool: dispatch, refl: r, start: start}
}

// run executes a workflow that runs call with d and opts and returns what
// Run returned. The workflow must complete without an error of its own.
func (h *harness) run(d *reflection.Driver, call reflection.ToolCall, opts ...rt.Option) ran {
	h.t.Helper()
	var got ran
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		got.res, got.rep, got.err = rt.Run(ctx, d, call, opts...)
		if h.after != nil {
			h.after(ctx)
		}
		return nil
	}, workflow.RegisterOptions{Name: "one-call"})
	h.env.ExecuteWorkflow("one-call")
	require.True(h.t, h.env.IsWorkflowCompleted(), "the workflow did not complete")
	require.NoError(h.t, h.env.GetWorkflowError())
	return got
}

// query returns the Status of callID through its Query, from a test
// callback.
func (h *harness) query(callID string) rt.Status {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(rt.QueryName(callID))
	require.NoError(h.t, err)
	var s rt.Status
	require.NoError(h.t, v.Get(&s))
	return s
}

// update is what came of one Update: it is filled in as the workflow
// processes it, after the callback that sent it has returned.
type update struct {
	accepted bool
	rejected error // the validator's error
	failed   error // the handler's error
	done     bool
}

// err returns the rejection or the handler's error, nil when the Update was
// accepted and completed, and an error when it was not processed.
func (u *update) err() error {
	switch {
	case u.rejected != nil:
		return u.rejected
	case u.failed != nil:
		return u.failed
	case !u.accepted || !u.done:
		return errors.New("the update was not processed")
	}
	return nil
}

// answer sends ans as callID's Update, from a test callback.
func (h *harness) answer(callID string, ans reflection.Answer) *update {
	u := &update{}
	h.env.UpdateWorkflow(rt.UpdateName(callID), "", &testsuite.TestUpdateCallback{
		OnAccept:   func() { u.accepted = true },
		OnReject:   func(err error) { u.rejected, u.done = err, true },
		OnComplete: func(_ any, err error) { u.failed, u.done = err, true },
	}, ans)
	return u
}

// at runs f when the workflow's clock reads d after the start.
func (h *harness) at(d time.Duration, f func()) { h.env.RegisterDelayedCallback(f, d) }

// script is one scenario: what the tool does on each call, what the
// Reflector answers, and the Driver the loop follows.
type script struct {
	tool     []reflectiontest.Outcome
	analyses []reflection.FailureAnalysis
	driver   func() *reflection.Driver // nil: reflection.NewDriver()
}

func (s script) newDriver() *reflection.Driver {
	if s.driver == nil {
		return reflection.NewDriver()
	}
	return s.driver()
}

// recoverable is a transient failure's analysis.
func recoverable(cause string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: cause, Severity: reflection.SeverityLow}
}

// withStrategy is a Driver whose strategy answers actions in order.
func withStrategy(actions ...reflection.RecoveryAction) func() *reflection.Driver {
	return func() *reflection.Driver {
		return reflection.NewDriver(reflection.WithStrategy(reflectiontest.NewStrategy(actions...)))
	}
}

// withoutTimes returns rep with every attempt's times zeroed: the two
// runtimes read different clocks.
func withoutTimes(rep reflection.Report) reflection.Report {
	rep.Attempts = append([]reflection.Attempt(nil), rep.Attempts...)
	for i := range rep.Attempts {
		rep.Attempts[i].Start, rep.Attempts[i].End = time.Time{}, time.Time{}
	}
	return rep
}
