// Package reflectiontemporal runs the recovery loop of
// github.com/loopctl-go/reflection inside a Temporal workflow, so that a call
// that waits on a Retry-After, or for a human to approve a retry, survives
// the restart of the process that runs it.
//
// The loop's rules live once, in [reflection.Recovery], a state machine that
// performs no I/O. [reflection.Driver.Run] is one runtime for it; [Run] is a
// second one, and follows the same rules (the ceiling of six calls, the
// corrections and their guards, the effect and loop guards, the AskUser
// text, the exhaustion error, the Reason a call ends with): no rule of
// recovery is written in this package. What a runtime must reproduce
// (an error's text, hint and status, a panic's words, an attempt timeout's,
// the deadline refusal, whether an answer would be used) it takes from the
// root package's exports.
//
// # Wiring it
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
// The workflow runs each tool call the model made through Run, with a
// Driver built in workflow code:
//
//	func AgentWorkflow(ctx workflow.Context, task string) error {
//		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.2).
//			WithRandSource(reflectiontemporal.RandSource(ctx))
//		driver := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithSchemas(schemas))
//		// ... for each tool call tc of the model's answer:
//		res, report, err := reflectiontemporal.Run(ctx, driver, tc,
//			reflectiontemporal.WithTask(task),
//			reflectiontemporal.WithAsk(24*time.Hour))
//		if err != nil && ctx.Err() != nil {
//			return err // cancelled: the workflow ends canceled
//		}
//		workflow.GetLogger(ctx).Info("tool call", "outcome", report.Outcome, "reason", report.Reason)
//		// ... res goes back to the model, whatever err says
//	}
//
// Several calls may run at once (workflow.Go), each under its own call ID.
//
// # What maps to what
//
// Run performs each step the machine asks for the Temporal way:
//
//   - a dispatch is the tool activity ([DispatchActivity]), which runs the
//     tool once, so every failure reaches the machine and the ceiling stays
//     exact (Temporal's own retries under the loop would retry too often);
//     it heartbeats while the tool runs, so a worker that dies during the
//     tool is noticed in seconds ([DefaultToolHeartbeatTimeout]);
//   - an analysis is the Reflector activity ([AnalyzeActivity]): its answer
//     is recorded in the workflow's history, so a replay never asks the
//     model again; a deterministic Reflector (the rules package's) can run
//     in workflow code instead ([WithWorkflowReflector]), at no cost;
//   - a wait is durable: the next tool activity takes it as the delay of
//     its retry, which the server holds, and a cancel interrupts it; a wait
//     that would end past the workflow run's timeout is refused at once
//     with [reflection.WaitPastDeadline]'s error;
//   - a question, with [WithAsk], waits for a human's [reflection.Answer],
//     sent as a workflow Update, for as long as the timeout allows.
//
// The Driver given to Run decides as under Driver.Run: its strategy, schema
// lookup, tool-change filter, input check, effect func, caps, recovery notes
// and loop guard run in workflow code. Its attempt timeout becomes the tool
// activity's StartToCloseTimeout. Its Reflector, Asker, Observer, logger
// and redactor ([reflection.Driver.RuntimeOptions]) belong to Driver.Run:
// workflow code must not do I/O, so Run calls none of them, and says so in
// a warning through workflow.GetLogger. The Reflector is Register's (or
// WithWorkflowReflector's), a question goes to a human through WithAsk, and
// the Report, the Query and the history record what happened; Temporal's
// own interceptors trace activities.
//
// A panic in the tool or the Reflector reads as under Driver.Run
// ([reflection.ToolPanic], [reflection.PanicError]). An attempt that
// outlives the tool activity's StartToCloseTimeout is Driver.Run's attempt
// timeout, a [reflection.AttemptTimeoutError] that reads
// `tool "<name>" timed out after <d>`; the SDK drops what the tool returns
// after that, so a late success is lost, where Driver.Run keeps it. A
// worker that stops heartbeating (it died) fails the attempt with
// `tool "<name>" timed out: no heartbeat from its worker for <d>`, and an
// attempt no worker started within a ScheduleToStartTimeout never ran the
// tool, and says so (its error matches [reflection.ErrNoEffect]).
//
// # Safety across calls
//
// The rules that depend on one call's own history are the machine's, and
// run in workflow code unchanged:
//
//   - [reflection.WithEffects]: after a failure that may have come after the
//     tool acted, a tool that is not idempotent is not retried blindly; the
//     retry becomes a question (answered through WithAsk: an approval
//     retries, a refusal or no WithAsk ends the call with
//     reflection.ReasonAmbiguousEffect), and a keyed tool is retried only
//     unchanged. The effect func runs in workflow code and must be
//     deterministic: a pure function of the tool's name. A tool's error that
//     matches reflection.ErrNoEffect keeps that match across Temporal
//     ([ErrorData]); an attempt lost with its worker is ambiguous.
//   - The idempotency key: the tool activity puts the call's key in the
//     tool's ctx with [reflection.ContextWithIdempotencyKey], so a tool reads
//     [reflection.IdempotencyKey] as under Driver.Run. It is the workflow ID
//     and the call ID, joined by "/", for every tool (Driver.Run mints one
//     only for a keyed tool): the same on every attempt, after a crash, and
//     after `temporal workflow reset` to a point before the call. Keep call
//     IDs unique in a workflow, across continue-as-new too, or two calls
//     share a key.
//   - [reflection.WithLoopGuard]: a call whose corrections go back to a call
//     that already failed ends with reflection.ReasonCorrectionLoop.
//
// What calls share, [reflection.WithHealth]'s circuit breakers,
// [reflection.WithRetryBudget]'s tokens and [reflection.WithLoopDetection]'s
// session detector, is state of a process: a replay, in another process
// perhaps, would read other state and decide otherwise. Workflow code must
// not consult it, so Run refuses a Driver that has any of them
// ([ErrProcessState]) rather than run without the protection it asks for.
// A host that must shield a service does it in the dispatch given to
// Register, which runs in the worker: a refusal there is a failure like any
// other, recorded in history, and one that matches reflection.ErrNoEffect
// tells the effect guard that nothing ran. A loop detector per workflow
// would be replay-safe (made in the workflow function and fed in workflow
// order, it reaches the same state on every replay), but the root package's
// LoopDetector is driven only by Driver.Run: this package does not write
// its rule again.
//
// # Determinism
//
// Workflow code must make the same decisions on every replay. The machine
// does; what it consults must too: the strategy, schema lookup, tool-change
// filter, input check (the Update's validator runs it too) and effect func
// must be deterministic functions of their arguments (no clock, no global
// state, no I/O, no map iteration whose order matters). So must a Reflector
// given to [WithWorkflowReflector]. A jittered
// [reflection.ExponentialBackoff] must draw from [RandSource] (the
// workflow's replay-safe random stream), not from the default source: build
// it inside the workflow function, as above. The strategy's ctx, and an
// in-workflow Reflector's, is reflection.ContextWithTask(context.Background(),
// task), with task from [WithTask]: they must not depend on any other ctx
// value, nor on ctx's cancellation.
//
// The rules package's Reflector reads one clock: to turn a Retry-After that
// the failure's text states as an HTTP date ("Retry-After: Wed, 21 Oct 2026
// 07:28:00 GMT", or the RFC 850 and asctime forms) into a delay, when the
// error has no RetryAfter() time.Duration method with a positive hint (the
// rules read that first). In workflow code, give it the workflow's clock, so
// a replay computes the same delay:
//
//	rules.New(rules.Defaults()...).WithClock(func() time.Time { return workflow.Now(ctx) })
//
// With the wall clock (rules.New's default), the delay depends on when the
// workflow task runs, the digest of the decisions differs on a replay, and
// the replay fails (see Deployments). A hint in delta-seconds
// ("Retry-After: 30", "retry after 5s") reads no clock.
//
// # Deployments
//
// A deployment that changes a setting which shapes recovery (the backoff,
// its jitter, the recovery notes, the input check, a cap, the effect func,
// the loop guard, the in-workflow Reflector) changes what workflow code
// decides, and a workflow in flight replays its history with the new code.
// Temporal compares an activity's type and ID on replay, not its input nor a
// timer's duration, so Run makes the decisions part of what Temporal
// compares: every activity it schedules is named after the call, the
// attempt and a digest of the decisions so far
// ("call_1/2/tool/9f86d081884c7d65"), and where no activity follows a
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
// Run records, with workflow.GetVersion (change ID
// "github.com/loopctl-go/reflection/contrib/temporal"), the version of the
// steps it writes to history: version 1, the first release (timers for
// waits, the Reflector activity after every failure, activities numbered by
// Temporal, no check of the decisions), or version 2, today's. A workflow
// replays with the steps it was recorded with: histories of version 1 keep
// replaying as they ran (without the check of the decisions). The package's
// tests replay a history of each version, recorded on a real server.
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
// # Questions, and what a call is doing
//
// While a call runs, the Query named [QueryName](call ID) returns its
// [Status]: the attempt, and the wait and its end, or the question
// ([Question.Rebuild] gives the [reflection.Question]) and its timeout. The
// Update named [UpdateName](call ID) answers the question. Its validator
// rejects an answer when no question is waiting ([ErrNoQuestion]), and asks
// the machine whether it would use the answer ([reflection.Recovery.CheckAnswer]):
// an approved input that is not a JSON object, is over the corrected-input
// cap, repeats a key (exactly or but for case) or fails the input check is
// rejected (its error wraps reflection.ErrAnswerInput), so the history never
// records an approval whose input would be dropped. An answer that does not
// approve is a refusal, its input unused, as under Driver.Run.
// [QueryStatus] and [SendAnswer] are the client's side; a worker takes the
// answer, so bound SendAnswer with a ctx deadline for when none runs. A
// question nobody answers in time ends the call as AskUser does without an
// Asker.
//
// # Errors as data
//
// A payload converter cannot carry an error interface, so [reflection.Failure]
// and [reflection.Question] cross Temporal as [Failure] and [Question], whose
// error is [ErrorData]: its text, its rate-limit hint (a RetryAfter()
// time.Duration method in its chain) and its HTTP status
// ([reflection.StatusCode]), each read as the Driver reads it, a timeout flag, which of
// context.DeadlineExceeded, context.Canceled, os.ErrPermission,
// fs.ErrNotExist, reflection.ErrPanicked, reflection.ErrSkipped,
// reflection.ErrInternal, io.EOF, io.ErrUnexpectedEOF and
// reflection.ErrNoEffect it matched, the connection errno in it, and its
// *net.DNSError and *url.Error. Each side rebuilds a [*RemoteError] that
// answers the same checks, so a Reflector's errors.Is and errors.As work in
// its activity and in workflow code (the rules package's typed rules give
// the verdicts they give under Driver.Run), a hint set by the tool sets the
// wait, and the effect guard knows an attempt that had no effect. The
// analysis crosses as FailureAnalysis' own JSON.
//
// # Options
//
// [WithTask] gives the Reflector and the strategy the agent's task.
// [WithAsk] lets AskUser wait for a human (off by default: AskUser ends the
// call at once). [WithToolActivity] and [WithReflectorActivity] set the
// activities' options (defaults: [DefaultToolTimeout] or the Driver's
// attempt timeout, [DefaultToolHeartbeatTimeout], [DefaultReflectorTimeout],
// [DefaultReflectorAttempts]). [WithWorkflowReflector] runs a deterministic
// Reflector in workflow code; the choice is recorded once per workflow, so
// turning it on is safe for workflows in flight.
//
// # Errors
//
// Run's error is nil but for a cancel of the workflow, a wait that would
// end past the run's timeout, and exhaustion (and a call that cannot go on:
// see [ErrorTypeStopped]). The call's result carries the latest failure
// text in every case, as Driver.Run's does: hand it to the model unless the
// workflow was cancelled (reflection.FrameworkError's rule, which takes a
// context.Context: in workflow code the test is ctx.Err() != nil).
// Returned from the workflow as it is, each error ends the workflow for
// good: a cancel stays workflow.ErrCanceled (the workflow ends canceled),
// and the others are non-retryable application errors
// ([ErrorTypeExhausted], [ErrorTypeDeadline], [ErrorTypeStopped]) that
// errors.Is and errors.As still see through. A workflow RetryPolicy
// therefore never runs a call's recovery again, and the ceiling of six tool
// executions per call holds.
//
// An operator can still run a call again: `temporal workflow reset` to a
// point before the call replays the history up to it and runs the rest
// anew, its tool executions included, under the same idempotency key (the
// workflow ID does not change). A timed-out attempt, too, may have done its
// work before its completion was lost: a tool with side effects declares
// its effect ([reflection.WithEffects]) and, when it can, honours
// [reflection.IdempotencyKey]; [CallAttempt] says which attempt runs.
package reflectiontemporal
