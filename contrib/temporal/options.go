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
)

// Option configures one Run.
type Option func(*config)

// config is what Run's options set.
type config struct {
	driver     *reflection.Driver
	task       string
	askTimeout time.Duration // 0: AskUser ends the call as without an Asker
	tool       workflow.ActivityOptions
	reflector  workflow.ActivityOptions
}

func newConfig(opts []Option) config {
	c := config{
		tool:      workflow.ActivityOptions{StartToCloseTimeout: DefaultToolTimeout},
		reflector: workflow.ActivityOptions{StartToCloseTimeout: DefaultReflectorTimeout},
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	// Every attempt and every call is an activity of its own: Temporal
	// numbers them.
	c.tool.ActivityID, c.reflector.ActivityID = "", ""
	c.tool = withTimeout(c.tool, DefaultToolTimeout)
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

// WithDriver sets the Driver whose settings the loop follows: its strategy,
// schema lookup, tool-change filter, input check, corrected-input cap,
// rate-limit cap and recovery notes. All of them run in workflow code and
// must be deterministic (see the package documentation). Its Reflector,
// Asker, Observer, logger and attempt timeout are Driver.Run's and are not
// used: the Reflector is the one given to Register, and an attempt is
// bounded by the tool activity's timeout. nil means reflection.NewDriver().
func WithDriver(d *reflection.Driver) Option {
	return func(c *config) { c.driver = d }
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
// ID) shows the question meanwhile. The wait is durable: it survives worker
// restarts. With no answer in time, the call ends as AskUser does without an
// Asker. timeout ≤ 0, the default, means no asking: AskUser ends the call at
// once.
func WithAsk(timeout time.Duration) Option {
	return func(c *config) { c.askTimeout = max(timeout, 0) }
}

// WithToolActivity sets the options of the tool activity (task queue,
// timeouts, heartbeat, priority, a summary for the UI). Its retry policy is
// replaced by one that allows a single attempt: recovery is the loop's, and
// Temporal's own retries under it would retry too often. An ActivityID is
// ignored: each attempt is an activity of its own. Without a StartToCloseTimeout or
// ScheduleToCloseTimeout, an attempt gets DefaultToolTimeout. A timed-out
// attempt is a failure like any other: its text says the tool timed out,
// and its error matches context.DeadlineExceeded. The activity options of
// the ctx given to Run are not used.
func WithToolActivity(o workflow.ActivityOptions) Option {
	return func(c *config) { c.tool = o }
}

// WithReflectorActivity sets the options of the Reflector activity (an
// ActivityID is ignored, as for WithToolActivity). Without
// a StartToCloseTimeout or ScheduleToCloseTimeout, an analysis gets
// DefaultReflectorTimeout; without a retry policy, Temporal makes
// DefaultReflectorAttempts attempts when one cannot complete. An analysis
// that still fails means Fail, as a Reflector error does.
func WithReflectorActivity(o workflow.ActivityOptions) Option {
	return func(c *config) { c.reflector = o }
}
