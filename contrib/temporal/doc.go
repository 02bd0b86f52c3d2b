// Package reflectiontemporal runs the recovery loop of
// github.com/loopctl-go/reflection inside a Temporal workflow, so that a call
// that waits on a Retry-After, or for a human to approve a retry, survives
// the restart of the process that runs it.
//
// The loop's rules live once, in [reflection.Recovery], a state machine that
// performs no I/O. [reflection.Driver.Run] is one runtime for it; [Run] is a
// second one, and follows the same rules (the ceiling of six calls, the
// corrections and their guards, the AskUser text, the exhaustion error): no
// rule of recovery is written in this package. It performs each step the
// machine asks for the Temporal way:
//
//   - the tool runs as an activity ([DispatchActivity]) that runs it once,
//     so every failure reaches the machine and the ceiling stays exact
//     (Temporal's own retries under the loop would retry too often); the
//     activity heartbeats while the tool runs, so a worker that dies during
//     the tool is noticed in seconds ([DefaultToolHeartbeatTimeout]);
//   - the Reflector runs as an activity ([AnalyzeActivity]): its answer is
//     recorded in the workflow's history, so a replay never asks the model
//     again; a deterministic Reflector (the rules package's) can run in
//     workflow code instead ([WithWorkflowReflector]), at no cost;
//   - a wait between attempts is durable: the next tool activity takes it
//     as the delay of its retry, which the server holds, and a cancel
//     interrupts it;
//   - with [WithAsk], AskUser waits for a human's [reflection.Answer], sent as
//     a workflow Update, for as long as the timeout allows.
//
// # Worker and workflow
//
// The worker registers the activities over the host's own dispatch and a
// Reflector:
//
//	w := worker.New(c, "agent", worker.Options{})
//	w.RegisterWorkflow(AgentWorkflow)
//	if err := reflectiontemporal.Register(w, registry.Dispatch, reflector); err != nil {
//		return err
//	}
//
// The workflow runs each tool call the model made through Run:
//
//	func AgentWorkflow(ctx workflow.Context, task string) error {
//		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.2).
//			WithRandSource(reflectiontemporal.RandSource(ctx))
//		driver := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithSchemas(schemas))
//		// ... for each tool call tc of the model's answer:
//		res, report, err := reflectiontemporal.Run(ctx, tc,
//			reflectiontemporal.WithDriver(driver),
//			reflectiontemporal.WithTask(task),
//			reflectiontemporal.WithAsk(24*time.Hour))
//		if err != nil {
//			return err // a cancel, a run timeout or exhaustion: the workflow ends for good
//		}
//		workflow.GetLogger(ctx).Info("tool call", "outcome", report.Outcome, "attempts", len(report.Attempts))
//		// ... res goes back to the model
//	}
//
// Several calls may run at once (workflow.Go), each under its own call ID.
//
// # What a retry costs
//
// Temporal Cloud bills actions: a workflow's start, each activity attempt,
// each timer, each side effect, each Update, each heartbeat that reaches
// the server. A call that succeeds at once costs the workflow task of its
// activity and one action, as an activity does. A retry costs, in history
// events and actions: 12 and 3 with the defaults (the tool activity, which
// takes the wait as the delay of its retry, and the Reflector activity); 6
// and 2 with [WithWorkflowReflector]; 6 and 1 with WithWorkflowReflector
// and no wait. A plain activity with a RetryPolicy costs 0 and 1, and
// recovers from nothing. The module's README has the measured table.
//
// # Determinism
//
// Workflow code must make the same decisions on every replay. The machine
// does; what it consults must too. The Driver given to [WithDriver] runs in
// workflow code: its strategy, schema lookup, tool-change filter and input
// check must be deterministic functions of their arguments (no clock, no
// global state, no I/O, no map iteration whose order matters). So must a
// Reflector given to [WithWorkflowReflector]. A jittered
// [reflection.ExponentialBackoff] must draw from [RandSource] (the
// workflow's replay-safe random stream), not from the default source: build
// it inside the workflow function, as above. The strategy's ctx, and an
// in-workflow Reflector's, is reflection.ContextWithTask(context.Background(),
// task), with task from [WithTask]: they must not depend on any other ctx
// value, nor on ctx's cancellation.
//
// The rules package is deterministic but for one case: a Retry-After that
// the failure's text states as an HTTP date is measured from the wall
// clock. In workflow code that analysis can come out otherwise on a replay,
// which then fails (see Deployments). Give such hints through a
// RetryAfter() time.Duration method on the tool's error, which the rules
// read first, or keep the rules in the Reflector activity.
//
// # Deployments
//
// A deployment that changes a setting which shapes recovery (the backoff,
// its jitter, the recovery notes, the input check, a cap, the in-workflow
// Reflector) changes what workflow code decides, and a workflow in flight
// replays its history with the new code. Temporal compares an activity's
// type and ID on replay, not its input nor a timer's duration, so Run makes
// the decisions part of what Temporal compares: every activity it schedules
// is named after the call, the attempt and a digest of the decisions so
// far ("call_1/2/tool/9f86d081884c7d65"), and where no activity follows a
// decision (a question, the end of a call that needed recovery) the digest
// is recorded with workflow.SideEffect. A replay that decides otherwise
// fails its workflow task with a nondeterminism error, and the workflow
// waits, unchanged, for a worker that decides as it did: it never replays
// into a report of waits, corrections or results that did not happen. The
// digest covers decisions, not wording: a new text in a root cause, a
// prompt or a note changes nothing.
//
// To change such a setting safely, version it, as any change of workflow
// code, with workflow.GetVersion; workflows in flight keep the setting they
// started with:
//
//	v := workflow.GetVersion(ctx, "agent-backoff", workflow.DefaultVersion, 1)
//	backoff := reflection.NewExponentialBackoff(3).WithRandSource(reflectiontemporal.RandSource(ctx))
//	if v == 1 {
//		backoff = backoff.WithBaseDelay(time.Second) // the new setting, for new workflows
//	}
//
// worker.Options.PreferredVersionProvider lets the workers of a rolling
// deployment keep recording the old version until every worker runs the new
// code.
//
// # Errors that end a call
//
// Run's error is nil but for a cancel of the workflow, a wait that would
// end past the run's timeout, and exhaustion (and a call that cannot go on:
// see [ErrorTypeStopped]). Returned from the workflow as it is, each ends
// the workflow for good: a cancel stays workflow.ErrCanceled (the workflow
// ends canceled), and the others are non-retryable application errors
// ([ErrorTypeExhausted], [ErrorTypeDeadline], [ErrorTypeStopped]) that
// errors.Is and errors.As still see through. A workflow RetryPolicy
// therefore never runs a call's recovery again, and the ceiling of six tool
// executions per call holds.
//
// An operator can still run a call again: `temporal workflow reset` to a
// point before the call replays the history up to it and runs the rest
// anew, its tool executions included, with the same idempotency key (the
// workflow ID does not change). The tool's defence is [IdempotencyKey].
//
// # Crashes and idempotency
//
// A timed-out attempt is a failure whose text reads as Driver.Run's attempt
// timeout (`tool "<name>" timed out after <d>`, or `tool "<name>" timed
// out: no heartbeat from its worker for <d>`) and whose error matches
// context.DeadlineExceeded: it is how a worker that died during the tool
// shows, a HeartbeatTimeout after its last heartbeat (the next workflow
// task then waits the worker's sticky schedule-to-start timeout, 5 s by
// default, before another worker takes it). That attempt may have done its
// work before its completion was lost, so a tool with side effects should
// use [IdempotencyKey] (the workflow ID and the call ID, the same for every
// attempt) to recognise a repeat; [CallAttempt] says which attempt runs.
//
// # The Driver's own parts
//
// [WithDriver] maps the Driver's attempt timeout to the tool activity's
// StartToCloseTimeout. Its Reflector, Asker, Observer and logger belong to
// Driver.Run: workflow code must not do I/O, so Run calls none of them, and
// says so in a warning through workflow.GetLogger. The Reflector is
// Register's (or WithWorkflowReflector's), a question goes to a human
// through WithAsk, and the Report, the Query and the history record what
// happened.
//
// # Errors as data
//
// A payload converter cannot carry an error interface, so [reflection.Failure]
// and [reflection.Question] cross Temporal as [Failure] and [Question], whose
// error is [ErrorData]: its text, the Retry-After hint of a RetryAfter method
// in its chain, the status of a StatusCode or HTTPStatusCode method, a
// timeout flag, which of context.DeadlineExceeded, context.Canceled,
// os.ErrPermission, fs.ErrNotExist, reflection.ErrPanicked,
// reflection.ErrSkipped, reflection.ErrInternal, io.EOF and
// io.ErrUnexpectedEOF it matched, the connection errno in it, and its
// *net.DNSError and *url.Error. Each side rebuilds a [*RemoteError] that
// answers the same checks, so a Reflector's errors.Is and errors.As work in
// its activity and in workflow code (the rules package's typed rules give
// the verdicts they give under Driver.Run), and a hint set by the tool sets
// the wait. The analysis crosses as FailureAnalysis' own JSON.
//
// # Questions, and what a call is doing
//
// While a call runs, the Query named [QueryName](call ID) returns its
// [Status]: the attempt, and the wait and its end, or the question
// ([Question.Rebuild] gives the [reflection.Question]) and its timeout. The
// Update named [UpdateName](call ID) answers the question; its validator
// rejects an answer when no question is waiting ([ErrNoQuestion]), an
// approved input that is not a JSON object ([ErrInputNotObject]), and an
// input without an approval ([ErrInputWithoutApproval]). [QueryStatus] and
// [SendAnswer] are the client's side; a worker takes the answer, so bound
// SendAnswer with a ctx deadline for when none runs. A question nobody
// answers in time ends the call as AskUser does without an Asker.
//
// # Versions
//
// Run records, with workflow.GetVersion (change ID
// "github.com/loopctl-go/reflection/contrib/temporal"), the version of the
// steps it writes to history: version 1, the first release (timers for
// waits, the Reflector activity after every failure, activities numbered by
// Temporal, no check of the decisions), or version 2, today's. A workflow
// replays with the steps it was recorded with: histories of version 1 keep
// replaying as they ran (without the check of the decisions). The package's
// tests replay a history of each version, recorded on a real server.
package reflectiontemporal
