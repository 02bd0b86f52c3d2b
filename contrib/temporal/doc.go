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
// The worker registers the activities over the host's own dispatch, a
// Reflector that does I/O (nil when the Driver's rules analyse), and what
// lives beside the tool: a circuit breaker and a verifier:
//
//	w := worker.New(c, "agent", worker.Options{})
//	w.RegisterWorkflow(AgentWorkflow)
//	err := reflectiontemporal.Register(w, registry.Dispatch, nil,
//		reflectiontemporal.WithWorkerHealth(reflection.NewHealth(0, 0)),
//		reflectiontemporal.WithWorkerVerifier(payments.Lookup))
//
// The workflow runs each tool call the model made through Run, with a
// Driver built in workflow code:
//
//	func AgentWorkflow(ctx workflow.Context, task string) error {
//		backoff := reflection.NewExponentialBackoff(3).WithJitter(0.2).
//			WithRandSource(reflectiontemporal.RandSource(ctx))
//		driver := reflection.NewDriver(reflection.WithStrategy(backoff), reflection.WithSchemas(schemas),
//			reflection.WithReflector(rules.New(rules.Defaults()...)), // runs here, in workflow code
//			reflection.WithEffects(effects), reflection.WithVerifier(reflectiontemporal.VerifyOnWorker))
//		memory := reflection.NewEffectMemory(0) // the session's, as workflow state
//		// ... for each tool call tc of the model's answer:
//		res, report, err := reflectiontemporal.Run(ctx, driver, tc,
//			reflectiontemporal.WithTask(task),
//			reflectiontemporal.WithAsk(24*time.Hour),
//			reflectiontemporal.WithEffectMemory(memory))
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
//     tool is noticed in seconds ([DefaultToolHeartbeatTimeout]), and asks
//     the worker's breaker first ([WithWorkerHealth]);
//   - an analysis runs in workflow code, at no cost, when the Driver's
//     Reflector is the rules package's (it does no I/O; Run gives it the
//     workflow's clock) or with [WithWorkflowReflector]; otherwise it is the
//     Reflector activity ([AnalyzeActivity]), whose answer is recorded in
//     the workflow's history, so a replay never asks the model again;
//   - a verification is the verifier activity ([VerifyActivity]), which
//     asks the worker's verifier ([WithWorkerVerifier]);
//   - a wait is durable: the next tool activity takes it as the delay of
//     its retry, which the server holds, and a cancel interrupts it; a wait
//     that would end past the workflow run's timeout is refused at once
//     with [reflection.WaitPastDeadline]'s error;
//   - a question, with [WithAsk], waits for a human's [reflection.Answer],
//     sent as a workflow Update, for as long as the timeout allows.
//
// The Driver given to Run decides as under Driver.Run: its strategy, schema
// lookup, tool-change filter, input check, effect func, caps, recovery notes
// and loop guard run in workflow code, and so does its Reflector when it is
// the rules package's. Its attempt timeout becomes the tool activity's
// StartToCloseTimeout. Its other runtime parts
// ([reflection.Driver.RuntimeOptions]: another Reflector, an Asker, an
// Observer, a logger, a redactor, a Health) belong to Driver.Run: workflow
// code must not do I/O or read a process's state, so Run calls none of
// them, and says so in a warning through workflow.GetLogger. The Reflector
// is then Register's, a question goes to a human through WithAsk, the
// breaker is the worker's, and the Report, the Query and the history record
// what happened; Temporal's own interceptors trace activities.
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
//   - [reflection.WithEffects]: once a dispatch of a tool that is not
//     idempotent failed after it may have acted, every later dispatch of
//     that tool in the call needs a human's approval (through WithAsk) or a
//     verifier's VerdictNotApplied first; every question then begins with
//     the guard's warning and carries Dispatches and MayHaveActed, and a
//     call that ends without success says how many of its dispatches may
//     have acted. A keyed tool is retried only unchanged. The effect func
//     runs in workflow code and must be deterministic: a pure function of
//     the tool's name. A tool's error that matches reflection.ErrNoEffect
//     keeps that match across Temporal ([ErrorData]); an attempt lost with
//     its worker is ambiguous.
//   - [reflection.WithVerifier] turns verification on
//     (reflection.WithVerifier(VerifyOnWorker)); the worker's verifier
//     ([WithWorkerVerifier]) answers, as the [VerifyActivity], under the
//     call's idempotency key.
//   - The idempotency key: the tool activity puts the call's key in the
//     tool's ctx with [reflection.ContextWithIdempotencyKey], so a tool reads
//     [reflection.IdempotencyKey] as under Driver.Run. It is the workflow ID
//     and the call ID, joined by "/", for every tool (Driver.Run mints one
//     only for a keyed tool): the same on every attempt, after a crash, a
//     workflow retry and `temporal workflow reset`. Keep call IDs unique in
//     a workflow, across continue-as-new too, or two calls share a key.
//     [CallAttempt] says which attempt of the call runs; Temporal's activity
//     attempt does not (a retry that waited is its activity's second
//     attempt, the first one being the wait).
//   - [reflection.WithLoopGuard]: a call whose corrections go back to a call
//     that already failed ends with reflection.ReasonCorrectionLoop.
//
// What calls share is state of a process or of a session, which workflow
// code must not read from a process: a replay, in another process perhaps,
// would read other state and decide otherwise. Each piece lives where a
// workflow can hold it, or is refused:
//
//   - A circuit breaker lives in the worker that runs the tool
//     ([WithWorkerHealth]): the tool activity asks it before the tool runs,
//     by reflection.Health's rules (a call adds at most one failure to a
//     tool's count across its attempts; a 400 or a rejected input counts
//     neither way), and an open breaker refuses at once, as an answer
//     recorded in history, which Temporal does not retry. Each worker has
//     its own. A Driver's own Health is not consulted.
//   - A session's memory of calls that may have acted is workflow state
//     ([WithEffectMemory]): a reflection.EffectMemory made in the workflow
//     function, read and stamped with the workflow's clock, which a replay
//     fills the same way.
//   - A retry budget and a session's loop detector are refused
//     ([ErrProcessState]): the root package lets only Driver.Run charge a
//     budget or feed a detector, so neither workflow code nor the worker can
//     hold them. A host that must shield a service does it in the dispatch
//     given to Register, which runs in the worker: a refusal there is a
//     failure like any other, recorded in history, and one that matches
//     reflection.ErrNoEffect tells the effect guard that nothing ran.
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
// rules read that first). Run gives a *rules.Reflector it runs in workflow
// code the workflow's clock, whatever clock it was given, so a replay
// computes the same delay. A hint in delta-seconds ("Retry-After: 30",
// "retry after 5s") reads no clock.
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
// activity and one action, as an activity does. A retry of the stock
// set-up (the Driver's rules, in workflow code) costs 6 history events and
// 2 actions: the tool activity, which takes the wait as the delay of its
// retry (its first attempt only waits); 6 and 1 without a wait. With the
// Reflector as an activity, a retry costs 12 and 3. A tool that returns
// within half the heartbeat timeout sends no heartbeat. A plain activity
// with a RetryPolicy costs 0 and 1, and recovers from nothing. The module's
// README has the measured table.
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
// reflection.ErrInternal, io.EOF, io.ErrUnexpectedEOF,
// reflection.ErrNoEffect and reflection.ErrInputRejected it matched, the
// connection errno in it, and its *net.DNSError and *url.Error. Each side
// rebuilds a [*RemoteError] that answers the same checks, so a Reflector's
// errors.Is and errors.As work in its activity and in workflow code (the
// rules package's typed rules give the verdicts they give under
// Driver.Run), a hint set by the tool sets the wait, and the effect guard
// knows an attempt that had no effect: for an error that joins others,
// ErrNoEffect is recorded as the guard reads it, only when every joined
// error matches. The analysis crosses as FailureAnalysis' own JSON.
//
// # Options
//
// [WithTask] gives the Reflector and the strategy the agent's task.
// [WithAsk] lets AskUser wait for a human (off by default: AskUser ends the
// call at once). [WithToolActivity] and [WithReflectorActivity] set the
// activities' options (defaults: [DefaultToolTimeout] or the Driver's
// attempt timeout, [DefaultToolHeartbeatTimeout], [DefaultReflectorTimeout],
// [DefaultReflectorAttempts]). [WithWorkflowReflector] runs a deterministic
// Reflector in workflow code (the Driver's rules run there without it); the
// choice is recorded once per workflow, so turning it on is safe for
// workflows in flight. [WithEffectMemory] shares a session's memory of the
// calls that may have acted. Register's options put a breaker
// ([WithWorkerHealth]) and a verifier ([WithWorkerVerifier]) on the worker.
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
// errors.Is and errors.As still see through.
//
// The ceiling of six tool executions per call holds across the workflow's
// runs too, whatever the workflow does with Run's error. Wrapped
// (fmt.Errorf with %w) or re-created as a plain error, the error is
// retryable again to Temporal, and a workflow RetryPolicy runs the
// workflow again; `temporal workflow reset` runs it again from a point of
// its history. In a run that a retry or a reset made, the call's tool
// activity first counts the call's executions in the earlier runs, from
// their histories (with the worker's client: each retry back to the run it
// retries, each reset back to what the run it was reset from did after the
// reset point), and the call gets only what is left of its six: when none
// is left, the tool does not run, and the call ends refused
// (reflection.ReasonRefused) with a non-retryable error of type
// [ErrorTypeExhausted]. A run no retry or reset made counts nothing. A
// timed-out attempt, too, may have done its work before its completion was
// lost: a tool with side effects declares its effect
// ([reflection.WithEffects]) and, when it can, honours
// [reflection.IdempotencyKey]; [CallAttempt] says which attempt runs.
package reflectiontemporal
