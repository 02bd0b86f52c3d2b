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
//   - the tool runs as an activity ([DispatchActivity]) whose retry policy
//     allows one attempt, so every failure reaches the machine and the
//     ceiling stays exact (Temporal's own retries under the loop would retry
//     too often);
//   - the Reflector runs as an activity ([AnalyzeActivity]): its answer is
//     recorded in the workflow's history, so a replay never asks the model
//     again;
//   - a wait between attempts is a durable timer, which a cancel interrupts;
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
//		workflow.GetLogger(ctx).Info("tool call", "outcome", report.Outcome, "attempts", len(report.Attempts))
//		// ... res goes back to the model; err is a cancel, a run timeout or exhaustion
//	}
//
// Several calls may run at once (workflow.Go), each under its own call ID.
//
// # Determinism
//
// Workflow code must make the same decisions on every replay. The machine
// does; what it consults must too. The Driver given to [WithDriver] runs in
// workflow code: its strategy, schema lookup, tool-change filter and input
// check must be deterministic functions of their arguments (no clock, no
// global state, no I/O, no map iteration whose order matters). A jittered
// [reflection.ExponentialBackoff] must draw from [RandSource] (the
// workflow's replay-safe random stream), not from the default source: build
// it inside the workflow function, as above. The strategy's ctx is
// reflection.ContextWithTask(context.Background(), task), with task from
// [WithTask]: a strategy used with this runtime must not depend on any other
// ctx value, nor on ctx's cancellation. The Driver's Reflector, Asker,
// Observer, logger and attempt timeout belong to Driver.Run and are not
// used here: the Reflector is the one given to [Register], and an attempt
// is bounded by the tool activity's timeout ([WithToolActivity]).
//
// A timed-out attempt is a failure whose text reads as Driver.Run's attempt
// timeout (`tool "<name>" timed out after <d>`) and whose error matches
// context.DeadlineExceeded: it is also how a worker that died during the
// tool shows. That attempt may have done its work before its completion was
// lost, so a tool with side effects should use [IdempotencyKey] (the
// workflow ID and the call ID, the same for every attempt) to recognise a
// repeat; [CallAttempt] says which attempt runs.
//
// # Errors as data
//
// A payload converter cannot carry an error interface, so [reflection.Failure]
// and [reflection.Question] cross Temporal as [Failure] and [Question], whose
// error is [ErrorData]: its text, the Retry-After hint of a RetryAfter method
// in its chain, the status of a StatusCode or HTTPStatusCode method, a
// timeout flag, and which of context.DeadlineExceeded, context.Canceled,
// os.ErrPermission, fs.ErrNotExist, reflection.ErrPanicked,
// reflection.ErrSkipped and reflection.ErrInternal it matched. Each side
// rebuilds a [*RemoteError] that answers the same checks, so a Reflector's
// errors.Is and errors.As work in its activity, and a hint set by the tool
// sets the durable timer. The analysis crosses as FailureAnalysis' own JSON.
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
// [SendAnswer] are the client's side. A question nobody answers in time ends
// the call as AskUser does without an Asker.
//
// # Versions
//
// Run records, with workflow.GetVersion, the version of the order in which
// it performs the machine's steps (version 1). A later release that changes
// what Run writes to history gates the change on that version, so that
// workflows in flight replay as they ran; the package's tests replay a
// history recorded with version 1 on a real server.
package reflectiontemporal
