package reflectiontemporal

import (
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Defaults of Run's options.
const (
	// DefaultToolTimeout is the StartToCloseTimeout of a tool attempt when
	// WithToolActivity gives none.
	DefaultToolTimeout = 5 * time.Minute
	// DefaultReflectorTimeout is the StartToCloseTimeout of an analysis when
	// WithReflectorActivity gives none.
	DefaultReflectorTimeout = 2 * time.Minute
	// DefaultReflectorAttempts is how many times Temporal runs the Reflector
	// activity when it cannot complete (a timeout, a worker that died) and
	// WithReflectorActivity gives no retry policy. The Reflector's own
	// errors are answers, not failures: they are never retried.
	DefaultReflectorAttempts = 3
	// DefaultToolHeartbeatTimeout is the HeartbeatTimeout of a tool attempt
	// when WithToolActivity gives none. The tool activity heartbeats by
	// itself while the tool runs, so a worker that dies during the tool is
	// noticed this long after its last heartbeat, not at the end of the
	// StartToCloseTimeout.
	DefaultToolHeartbeatTimeout = 10 * time.Second
)

// Option configures one Run.
type Option func(*config)

// config is what Run's options set, and what Run makes of its Driver's
// runtime options.
type config struct {
	runtime    runtimeParts // what the Driver holds that only a runtime uses
	task       string
	askTimeout time.Duration // 0: AskUser ends the call as without an Asker
	tool       workflow.ActivityOptions
	reflector  workflow.ActivityOptions
	inWorkflow reflection.Reflector     // WithWorkflowReflector; nil: the Reflector activity
	memory     *reflection.EffectMemory // WithEffectMemory; nil: none
}

func newConfig(d *reflection.Driver, opts []Option) config {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	c.runtime = runtimePartsOf(d)
	if c.inWorkflow == nil && c.runtime.rules != nil {
		// The rules do no I/O: the Driver's own Reflector runs in workflow
		// code, as under Driver.Run, and costs no activity.
		c.inWorkflow = c.runtime.rules
	} else if c.runtime.rules != nil {
		c.runtime.ignored = append([]string{"Reflector"}, c.runtime.ignored...)
	}
	// Run names every activity itself (see activityID).
	c.tool.ActivityID, c.reflector.ActivityID = "", ""
	// The Driver's attempt timeout bounds an attempt when the tool activity
	// has no timeout of its own.
	if c.tool.StartToCloseTimeout <= 0 && c.tool.ScheduleToCloseTimeout <= 0 && c.runtime.attemptTimeout > 0 {
		c.tool.StartToCloseTimeout = c.runtime.attemptTimeout
	}
	c.tool = withTimeout(c.tool, DefaultToolTimeout)
	switch {
	case c.tool.HeartbeatTimeout == 0:
		c.tool.HeartbeatTimeout = DefaultToolHeartbeatTimeout
	case c.tool.HeartbeatTimeout < 0:
		c.tool.HeartbeatTimeout = 0 // none: a dead worker shows at the end of the attempt's timeout
	}
	// One attempt: every failure reaches the machine, and the ceiling of
	// six calls stays exact.
	c.tool.RetryPolicy = oneAttempt(c.tool.RetryPolicy)
	c.reflector = withTimeout(c.reflector, DefaultReflectorTimeout)
	if c.reflector.RetryPolicy == nil {
		c.reflector.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: DefaultReflectorAttempts}
	}
	return c
}

// withTimeout gives o a StartToCloseTimeout of d when it has no timeout
// that bounds an attempt: Temporal requires one.
func withTimeout(o workflow.ActivityOptions, d time.Duration) workflow.ActivityOptions {
	if o.StartToCloseTimeout <= 0 && o.ScheduleToCloseTimeout <= 0 {
		o.StartToCloseTimeout = d
	}
	return o
}

// oneAttempt returns a copy of p (or a new policy) that allows one attempt.
func oneAttempt(p *temporal.RetryPolicy) *temporal.RetryPolicy {
	var out temporal.RetryPolicy
	if p != nil {
		out = *p
	}
	out.MaximumAttempts = 1
	return &out
}

// WithTask sets the agent's task: the strategy receives
// reflection.ContextWithTask(context.Background(), task), and the Reflector
// sees it in Failure.Task.
func WithTask(task string) Option {
	return func(c *config) { c.task = task }
}

// WithAsk lets AskUser put its question to a human: the call waits, as
// long as timeout at most, for a reflection.Answer sent as the Update named
// UpdateName(call ID) (see SendAnswer), and the Query named QueryName(call
// ID) shows the question meanwhile. The Update's validator rejects an answer
// the machine would not use (reflection.Recovery.CheckAnswer). The wait is
// durable: it survives worker restarts. With no answer in time, the call
// ends as AskUser does without an Asker. It is also how the effect guard's
// question (reflection.WithEffects) reaches a human. timeout ≤ 0, the
// default, means no asking: AskUser ends the call at once.
func WithAsk(timeout time.Duration) Option {
	return func(c *config) { c.askTimeout = max(timeout, 0) }
}

// WithToolActivity sets the options of the tool activity (task queue,
// timeouts, heartbeat, priority, a summary for the UI). Its retry policy is
// replaced by one that runs the tool once: recovery is the loop's, and
// Temporal's own retries under it would retry too often. An ActivityID is
// ignored: Run names each attempt. Without a StartToCloseTimeout or
// ScheduleToCloseTimeout, an attempt gets the Driver's attempt timeout, or
// else DefaultToolTimeout. Without a HeartbeatTimeout it gets
// DefaultToolHeartbeatTimeout; a negative one means none. The activity
// heartbeats by itself while the tool runs (about every half of the
// timeout, so a tool that returns sooner sends none), and a cancel of the
// workflow reaches the tool's ctx with the next heartbeat. An attempt that
// outlives its StartToCloseTimeout fails as under Driver.Run's attempt
// timeout (a *reflection.AttemptTimeoutError); one whose worker stops
// heartbeating fails with a text that says so; both match
// context.DeadlineExceeded. The activity options of the ctx given to Run
// are not used.
func WithToolActivity(o workflow.ActivityOptions) Option {
	return func(c *config) { c.tool = o }
}

// WithReflectorActivity sets the options of the Reflector activity (an
// ActivityID is ignored, as for WithToolActivity). They are not used with
// WithWorkflowReflector. Without
// a StartToCloseTimeout or ScheduleToCloseTimeout, an analysis gets
// DefaultReflectorTimeout; without a retry policy, Temporal makes
// DefaultReflectorAttempts attempts when one cannot complete. An analysis
// that still fails means Fail, as a Reflector error does.
func WithReflectorActivity(o workflow.ActivityOptions) Option {
	return func(c *config) { c.reflector = o }
}

// WithWorkflowReflector runs r in workflow code, in place of the Reflector
// activity: an analysis then costs no activity, no workflow task and no
// Temporal Cloud action, and a retry without a wait costs one activity.
// r must be deterministic, as the strategy must: the same Failure must get
// the same answer on every replay, with no clock, no randomness, no I/O and
// no map iteration whose order shows in the answer. The rules package's
// Reflectors and a reflection.Chain of such Reflectors are; a Reflector
// that asks a model is not (keep it in the activity, the default), nor is
// reflection.NewCache. It must also be quick: the SDK fails a workflow
// task whose code runs for a second without yielding. r receives
// reflection.ContextWithTask(context.Background(), task), and a panic in it
// means Fail, as under Driver.Run.
//
// The choice is recorded with workflow.GetVersion (change ID
// "github.com/loopctl-go/reflection/contrib/temporal/workflow-reflector")
// the first time a call of the workflow needs an analysis. A workflow
// whose history has no such marker (it ran before the option was set)
// keeps using the Reflector activity, so turning the option on is safe for
// workflows in flight; turning it off is a change of workflow code, to be
// versioned by the host. nil means the Driver's Reflector when it is the
// rules package's (Run gives it the workflow's clock), else the Reflector
// activity. A *rules.Reflector given here reads the workflow's clock too.
func WithWorkflowReflector(r reflection.Reflector) Option {
	return func(c *config) { c.inWorkflow = r }
}
