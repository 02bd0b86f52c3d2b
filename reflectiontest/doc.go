// Package reflectiontest helps test code that uses a reflection.Driver: a
// scripted Reflector, a scripted RecoveryStrategy, a scripted tool, an
// Observer that records every step, and a few assertions. It imports only the
// standard library.
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
// Every type here is safe for concurrent use.
package reflectiontest
