// Package reflectiontest helps test code that uses a reflection.Driver, and
// runtimes of the recovery loop: a scripted Reflector, a scripted
// RecoveryStrategy, a scripted tool, an Observer that records every step, a
// few assertions, real network errors, and a conformance suite. It imports only the standard
// library and the reflection package.
//
// # Scripts
//
// A test scripts what each piece answers, in order, runs the Driver, and then
// reads what each piece was asked:
//
//	tool := reflectiontest.NewTool(reflectiontest.Fail("timeout"), reflectiontest.Succeed("ok"))
//	refl := reflectiontest.NewReflector(reflection.FailureAnalysis{IsRecoverable: true})
//	d := reflection.NewDriver(reflection.WithReflector(refl),
//		reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{})))
//	res, err := d.Run(ctx, call, tool.Dispatch)
//	// tool.Calls(), refl.Failures()...
//
// Past the end of its script, each piece behaves in a fixed way: a
// Reflector answers an error wrapping reflection.ErrInternal (or, after
// RepeatLast, its last answer again), a Strategy answers reflection.Fail,
// and a Tool repeats its last outcome. Every type here is safe for
// concurrent use.
//
// # Two Fails, two Outcomes
//
// Two names here read like the root package's at a call site, and mean
// something else. reflectiontest.Fail(text) is what the scripted tool does
// on one call: it returns a result with IsError set and text as its
// Content; reflection.Fail{Reason: ...} is a RecoveryAction, the strategy's
// decision to give up. reflectiontest.Outcome is one scripted tool call
// (made by Succeed, Fail, Error or Panic); reflection.Outcome says how a
// whole call ended (OutcomeSucceeded, OutcomeFailed...), as a Report
// records it.
//
// # Real network errors
//
// NetError makes a network failure for real, on loopback or over an
// in-memory pipe (a refused dial, a reset connection, a read past its
// deadline, an HTTP request whose context expired, a resolver's SERVFAIL or
// NXDOMAIN), so a Reflector that looks at error types, or a runtime that
// carries them across a process boundary, is tested against the errors the
// standard library really returns:
//
//	tool := reflectiontest.NewTool(
//		reflectiontest.Error(reflectiontest.NetError(t, reflectiontest.ConnectionReset)),
//		reflectiontest.Succeed("ok"))
//
// # Conformance of a runtime
//
// reflection.Recovery holds the loop's rules; Driver.Run is one runtime
// that performs its steps, a workflow engine can be another. Conformance
// proves that a runtime follows the rules: it draws thousands of scenarios
// (a call, the Driver's settings, and a script of what the tool, the
// Reflector, the strategy and a human do on each attempt, with cancels,
// deadlines, effects and loops), has the runtime run each one, and checks
// what came back against a model of the rules written apart from the
// machine. A runtime's test calls it once, with a way to run one scenario:
//
//	func TestConformance(t *testing.T) {
//		reflectiontest.Conformance(t, func(ctx context.Context, t *testing.T, s *reflectiontest.Scenario) reflectiontest.Ran {
//			res, err := s.Driver().Run(ctx, s.Call, s.Dispatch)
//			return reflectiontest.Ran{Result: res, Err: err}
//		}, reflectiontest.WithSharedState())
//	}
//
// What a runtime cannot do (run in a synctest bubble, cancel at an exact
// point, call an Observer, keep Go values between processes) it declares
// with an option, and the suite leaves those scenarios or checks out.
//
// The invariants it checks on every scenario: the ceiling (at most six
// calls of the tool, six questions to the Reflector); a call is never lost
// (a result with the caller's ID, IsError on every end but a success); once
// ctx has ended, a call either succeeded or returns an error matching
// ctx.Err() and its cause; with effects declared, a tool that is not
// idempotent never runs again after a failure that may have come after it
// acted unless a human approved, and a keyed tool only unchanged and under
// one idempotency key; no goroutine outlives the call (the bubble). Then,
// against the model: every dispatched call (corrections applied), every
// Failure the Reflector sees, the attempts the strategy is asked about,
// the questions to a human, the tool-change filter's calls, the time
// spent, the result and the error, the Outcome and the Reason, the Report
// and the Observer when the runtime has them, the logged dropped
// corrections, and the tokens left in a retry budget.
//
// Scenarios are drawn from a seed; a failure prints the flags that
// reproduce it (-reflectiontest.seed, -reflectiontest.only), and
// -reflectiontest.n runs more.
package reflectiontest
