// Package reflection makes an agent's tool calls recover from failure. It is
// a Go port of the reflection-and-recovery module of the Rust agent framework
// loopctl.
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
// [NoopReflector] and [ExponentialBackoff] are the stock pieces; the llm
// subpackage has a Reflector that asks a model; [ReflectorFunc] and
// [StrategyFunc] turn plain functions into your own.
//
// # The loop
//
// A [Driver] wraps the host framework's own dispatch. [Driver.Run] calls it;
// on a failure it asks the Reflector, then the strategy, and on Retry it
// waits (a cancelled context ends the wait at once), applies the
// correction and dispatches again. Skip, AskUser and Fail return the failure
// to the model as a soft error result, so the model can change its plan;
// only a cancel, a deadline that the wait cannot meet, and the ceiling end
// Run with an error.
//
// # The ceiling
//
// [MaxRecoveryAttempts] (5) caps retries whatever the strategy says: a tool
// runs at most six times per Run. When the sixth call fails and the strategy
// still says Retry, Run returns a [*ToolRecoveryExhaustedError]. The same
// number reaches the Reflector and the strategy as MaxAttempts = 6.
//
// # The machine under the loop
//
// The rules of that loop live once, in [Recovery]: a state machine that
// performs no I/O. [Driver.Run] is one runtime for it; the contrib/temporal
// module is another, with durable timers and activities. [Driver.NewRecovery]
// gives a machine to drive by hand, and [Driver.RunWithReport] returns a
// [Report] of everything a call went through.
//
// # Past the port
//
// A Reflector sees the error dispatch returned in [Failure].Err. A failure's
// rate-limit hint (FailureAnalysis.RetryAfter, or a RetryAfter method in the
// error's chain) sets the wait, up to [WithMaxRetryAfter]. An [Asker]
// ([WithAsker], [NewTerminalAsker]) lets a human approve a retry after
// AskUser. [WithAttemptTimeout] bounds each call, [ExponentialBackoff.WithJitter]
// spreads the waits, [WithRecoveryNotes] tells the model what recovery did,
// and [WithInputCheck] checks every corrected call before it runs. [Chain]
// and [NewCache] compose Reflectors; the rules subpackage answers what needs
// no model, and reflectiontest has scripted pieces for tests. Logs carry no
// text that may hold a secret at Info and above unless [WithLogTexts] asks,
// and [WithRedactor] ([RedactSecrets]) scrubs every such text.
//
// # The defaults, and the surprise in them
//
// A Driver without options (or the zero Driver) uses NoopReflector, which
// calls every failure unrecoverable, and NewExponentialBackoff(3), which
// fails at once on an unrecoverable failure. So the stock defaults make
// exactly one call per Run: retrying is opt-in, by choosing a Reflector that
// can say "recoverable". A Driver logs nothing unless given a logger
// ([WithLogger]), and an [Observer] ([WithObserver]) sees every step.
package reflection
