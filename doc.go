// Package reflection makes an agent's tool calls recover from failure. It
// began as a Go port of the reflection-and-recovery module of the Rust agent
// framework loopctl, and keeps its vocabulary.
//
// Most callers need only [NewDriver] and [Driver.Run], around the host
// framework's own dispatch:
//
//	driver := reflection.NewDriver(
//		reflection.WithReflector(rules.New(rules.Defaults()...)), // no model needed for timeouts, 429s, 503s
//		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithJitter(0.5)),
//		reflection.WithEffects(registry.Effect), // charge_card is not idempotent: never charged twice blindly
//		reflection.WithHealth(reflection.NewHealth(2, 10*time.Second)),
//		reflection.WithRetryBudget(reflection.NewRetryBudget(0)),
//	)
//	res, err := driver.Run(ctx, reflection.ToolCall{ID: id, Name: name, Input: args}, registry.Dispatch)
//	// res is what the model reads; err is set only for a cancel, a deadline,
//	// the ceiling, a nil dispatch or a detected loop.
//
// # Two pieces
//
// When a tool call fails, two pluggable pieces decide what happens next:
//
//   - a [Reflector] analyses the failure into a [FailureAnalysis]: is it
//     recoverable, how severe is it, and is there a [Correction] (a fixed
//     input, another tool, or advice)?
//   - a [RecoveryStrategy] turns that analysis into a [RecoveryAction]:
//     [Retry] after a delay, [Skip], [AskUser] or [Fail].
//
// [NoopReflector] and [ExponentialBackoff] are the stock pieces; the rules
// subpackage answers the failures that need no model, the llm subpackage
// asks a model; [Chain] and [NewCache] compose Reflectors; [ReflectorFunc]
// and [StrategyFunc] turn plain functions into your own.
//
// A [Driver] runs the loop around the host framework's own dispatch
// ([Driver.Run]). Its rules live once, in [Recovery], a state machine that
// performs no I/O; Run is one runtime for it, the contrib/temporal module
// another.
//
// # What Run does, step by step
//
// The attempt counter starts at 0 and the current call is the call as the
// model made it.
//
//  1. If ctx has ended, Run returns at once with an error that matches
//     ctx.Err() (and the cancel cause, when there is one).
//  2. The current call is dispatched. A returned error is a failure whose
//     text is the error's text, even when a result came with it; a result
//     with IsError is a failure whose text is its Content; a panic in
//     dispatch is recovered and is a failure whose text names the tool and
//     the panic value (its error matches [ErrPanicked]). A success is
//     returned as dispatch returned it, with ID set to the original call's
//     ID and a nil error, even if ctx has ended meanwhile: the work
//     happened. After a failure, if ctx has ended, Run returns the cancel
//     error without asking the Reflector.
//  3. The Reflector is given a [Failure]: the failure text, the tool and
//     input as they ran, the tool's schema (when [WithSchemas] knows it),
//     the agent's task ([ContextWithTask]), the attempt, MaxAttempts (6: the
//     original call and five retries), the error dispatch returned, and the
//     tool's [Effect] ([WithEffects]). An error or a panic from the
//     Reflector means Fail; the strategy is not asked.
//  4. Otherwise the strategy decides, with the same attempt and MaxAttempts.
//     Anything but one of the four action values (nil, a pointer, a panic)
//     means Fail. If ctx has ended by the time the Reflector and the
//     strategy have answered, Run returns the cancel error, whatever they
//     decided.
//  5. Retry: if the sixth call has just failed, Run returns the latest
//     failure as an error result together with a
//     [*ToolRecoveryExhaustedError] (the tool as first called, 6 attempts),
//     without waiting. Otherwise the machine's own rules come next, in this
//     order: the effect guard (a tool that may have acted is not retried
//     blindly), the rate-limit cap (a hint above [WithMaxRetryAfter]'s cap
//     turns the retry into Fail), and the loop guard ([WithLoopGuard]).
//     Then Run waits the longer of the action's delay and the rate-limit
//     hint (a negative delay counts as 0; a retry budget, [WithRetryBudget],
//     is charged first and may refuse); ctx interrupts the wait, and a wait
//     that could not end before ctx's deadline is refused at once with an
//     error that matches context.DeadlineExceeded. Then the analysis'
//     correction is applied (see Corrections) and the loop goes back to
//     step 1 with the next attempt. The host's whole dispatch (its hooks,
//     its own observers) runs again for every attempt.
//  6. Skip and Fail: Run returns a soft error: a result with the original
//     call's ID, IsError set, the latest failure text as Content, and a nil
//     error. The model reads the failure and can change its plan.
//  7. AskUser: with an [Asker], a human is asked (see A human in the loop);
//     without one, the same soft error, with the failure text followed by a
//     blank line and a sentence saying that a human decision is needed,
//     with the prompt.
//
// The stock defaults therefore make exactly one dispatch per call:
// NoopReflector calls every failure unrecoverable, and the backoff fails at
// once on an unrecoverable failure. Retrying is opt-in.
//
// # What the model sees, and the hard errors
//
// A success is the tool's output. Skip, AskUser and Fail end in a soft
// error the model reads. Only these end Run with a non-nil error: ctx
// ending (the error matches ctx.Err()), a wait that could not end before
// ctx's deadline (it matches context.DeadlineExceeded; a
// [*WaitPastDeadlineError]), the ceiling ([*ToolRecoveryExhaustedError],
// matching [ErrToolRecoveryExhausted]), a nil dispatch func
// ([ErrNilDispatch]) and, with [WithLoopDetection], a dispatch the session's
// loop detector refused ([*LoopDetectedError]). With each of them Run still
// returns an error result carrying the latest failure text (or the error's
// own text when no attempt failed), so the caller never loses what the
// model should see. An adapter that hands results to a host framework gives
// the framework an error only when ctx has ended ([FrameworkError]): every
// other end of a call is a result the model reads.
//
// # The ceiling
//
// [MaxRecoveryAttempts] (5) caps retries whatever the strategy says: a tool
// runs at most six times per call. The sixth failure is never asked about
// by a human, since no answer could retry it.
//
// # Corrections
//
// Before a retry the analysis' correction is applied to the current call,
// and corrections add up across attempts. An [InputFix] replaces the input
// only with a JSON object no larger than [WithMaxCorrectedInput] (1 MiB by
// default) whose keys do not repeat, exactly or but for case (parsers
// disagree on such objects). A [ToolChange] replaces the tool only with a
// non-empty name that the schema lookup knows (when there is one) and that
// [WithToolChangeFilter] or [WithAllowedTools] allow. Whichever correction
// brings a tool and an input together, [WithInputCheck]'s check runs on the
// pair before it is dispatched; without one, a Driver with a schema lookup
// uses its Reflector's own check when the Reflector has an InputCheck
// method (the llm Reflector has), so an input fixed for one tool is checked again
// before it runs on another. A correction that cannot apply is dropped, the
// reason is logged and reported, and the retry runs the call unchanged.
// [PrerequisiteFix], [ApproachChange] and [Escalate] are advice and change
// nothing. The result's ID is always the original call's.
//
// # A human in the loop
//
// With [WithAsker], AskUser puts a [Question] to a human instead of ending
// the call. An approval retries with the analysis' correction applied and
// then the human's own input, if given, under the same guards as an
// InputFix ([Recovery.CheckAnswer] says in advance whether it would be
// used), after the rate-limit hint's wait when there is one; it counts
// toward the ceiling and is never charged to a retry budget. A refusal ends
// the call with the AskUser result, the sentence "A human declined to retry
// this call." and the human's reply; an Asker that fails ends it with the
// AskUser result. [NewTerminalAsker] asks on a terminal.
// [ExponentialBackoff.WithAskOnEscalate] lets an escalation that is not
// recoverable (rejected credentials, as the stock rules say) reach a human.
//
// # Rate limits, timeouts and jitter
//
// A failure's rate-limit hint is the larger of FailureAnalysis.RetryAfter
// and a RetryAfter() time.Duration method in the failure's error chain. A
// retry waits at least that long, and a hint above [WithMaxRetryAfter]'s
// cap (60 s by default) turns the retry into Fail: no
// call is wasted on a service that said no. [ParseRetryAfter] reads an HTTP
// Retry-After value. [WithAttemptTimeout] bounds each dispatch: a failure
// after its limit reads `tool "<name>" timed out after <d>`
// ([*AttemptTimeoutError], matching context.DeadlineExceeded); a success is
// kept however late, and the Driver starts no goroutine to abandon a tool
// that ignores its ctx. [ExponentialBackoff.WithJitter] spreads the waits.
//
// # Safety across calls
//
// Each call recovers on its own; these opt-in rules keep recovery safe when
// many calls run, when a tool has side effects, when the model issues a
// call again, and when something keeps happening again. Used together they
// never work against each other: a call's own retries never open its
// tool's breaker, and what one agent gets wrong never refuses another
// agent's valid calls.
//
//   - Side effects ([WithEffects], [Effect]): a failure is ambiguous unless
//     its error matches [ErrNoEffect] (an error that joins several: every
//     one of them). Once a dispatch of a tool that is not idempotent failed
//     ambiguously, every later dispatch of that tool in the call, after
//     whatever ran in between, needs a human's approval given just before
//     it (or a verifier's word that nothing happened): the retry becomes an
//     AskUser saying the call may already have taken effect. Every question
//     the call then asks begins with that warning, the [Question] counts the
//     dispatches and those that may have acted, and a call that ends without
//     success tells the model how many. A keyed tool is retried only with
//     the same tool and input, under the same [IdempotencyKey]
//     ([WithIdempotencyKeys] derives the key from the call itself, so a
//     model's re-issue carries it too).
//   - Across calls ([EffectMemory]): with WithEffects, a Driver remembers
//     for an hour every call that may have acted without succeeding, and a
//     model's re-issue of it (the same tool with an equal input, a new ID)
//     is not dispatched blindly: it becomes a question that names the
//     earlier call. [ContextWithEffectMemory] gives each session a memory
//     of its own; [WithEffectMemory] shares one or turns it off.
//   - Verification ([WithVerifier]): a host that can look an effect up (a
//     payment by its key) answers the guard's question itself: applied ends
//     the call succeeded with what it found, not applied lets the retry go.
//   - A circuit breaker per tool ([WithHealth], [Health]): a tool whose
//     calls keep failing is refused, without running, until it has rested,
//     with a text that says when to try again; then one probe goes through.
//     A call counts once, however often it retries, and a failure that
//     blames the input (a 4xx other than 408, 425 and 429, or
//     [ErrInputRejected]) does not count.
//   - A retry budget ([WithRetryBudget], [RetryBudget]): retries take
//     tokens from a budget that calls share, so an outage does not multiply
//     the load on a failing service; a retry that is never sent costs
//     nothing.
//   - Loops: [WithLoopGuard] ends a call whose corrections go back to a call
//     that already failed; a [LoopDetector] ([WithLoopDetection]) refuses a
//     dispatch that an agent run keeps repeating with the same result.
//
// The rules that depend on one call's own history (the effect and loop
// guards, the warnings and counts, the verification step) are the
// machine's, so every runtime follows them. What calls share (a breaker, a
// budget, a memory, a session's detector) is the runtime's to consult:
// [Recovery.Remembered], [Recovery.Refuse] and [Recovery.Stop] tell the
// machine what it decided.
//
// # Why a call ended
//
// Every ending has a [Reason] (the Report's, [Recovery.Reason], the
// Observer's Ended hook): the strategy's own decision, a Reflector error, a
// failure the Reflector skipped ([ReasonUnanalyzed]: no rule knew it), an
// invalid action, a hint over the cap, the ceiling, a human's refusal,
// an Asker that failed, a cancel, a deadline, a nil dispatch, an open
// breaker, a spent budget, an ambiguous effect, a correction loop, a
// detected loop, or a runtime's own refusal. A success has none.
//
// # The machine and its runtimes
//
// [Recovery] holds every rule above that concerns one call, and performs no
// I/O: it never dispatches, sleeps, reads the clock, draws random numbers,
// starts a goroutine, waits on a context or ranges over a map (a test
// checks its files and every function of the module they reach). It asks its runtime for one [Step] at a time
// ([Recovery.Next]) and is told what came of it. The context checks, the
// waits, the deadline refusal ([WaitPastDeadline]) and what calls share are
// the runtime's. [Driver.NewRecovery] gives a machine to drive by hand
// (see the Recovery example); a runtime of your own can prove it follows
// the rules with the conformance suite in reflectiontest.
//
// # Seeing what happened
//
// [Driver.RunWithReport] returns a [Report] of everything a call went
// through; Run builds none. [WithRecoveryNotes] tells the model what
// recovery did, in lines that start with "Recovery note: ". An [Observer]
// ([WithObserver], [JoinObservers]) sees every step, and two of its hooks
// carry a ctx, so a tracer's spans follow the call whichever adapter runs
// it. A Driver given a logger ([WithLogger]) logs decisions, dropped
// corrections and failures; texts that may hold a secret appear only in
// Debug records unless [WithLogTexts] asks, always through [WithRedactor]
// ([RedactSecrets] is a stock one).
//
// # Host code cannot crash or hang a call
//
// Every method the library calls on a host's error value (Error, Is, As,
// Unwrap, RetryAfter, StatusCode, Timeout) runs under recover, and every
// walk of an error chain is bounded (at a thousand errors: a chain that
// loops ends there), as it is in [StatusCode]. So do the
// host's functions: a panicking Reflector or strategy means Fail, a
// panicking schema lookup means the tool is unknown, a panicking filter
// means no, a panicking input check drops the correction, a panicking
// redactor withholds the text, a panicking Asker is an Asker error, a
// panicking effect func means EffectUndeclared. Only the Observer's hooks
// are left to panic: they are the host's own instrumentation.
//
// # Defaults
//
// A Driver without options (the zero Driver and a nil *Driver too) uses
// NoopReflector and NewExponentialBackoff(3) (100 ms, 200 ms, 400 ms,
// doubling, capped at 30 s), knows no schemas, applies an InputFix of up to
// 1 MiB and a ToolChange to any tool, has no input check, no Asker, no
// attempt timeout, no jitter, no notes, no observer, logs nothing, caps
// rate-limit hints at 60 s, and has every rule of Safety across calls off.
package reflection
