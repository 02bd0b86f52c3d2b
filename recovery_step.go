package reflection

import "time"

// Step is what a Recovery asks its runtime to do next: one of DispatchStep,
// AnalyzeStep, WaitStep, AskStep, VerifyStep or DoneStep. The set is closed;
// use a type switch to tell the steps apart. A VerifyStep comes only from a
// Driver with a verifier (WithVerifier); a runtime that cannot verify
// answers it with VerdictUnknown.
type Step interface{ isStep() }

// DispatchStep asks the runtime to run Call (corrections applied) and report
// what it returned with Recovery.Dispatched. Attempt is 0 for the original
// call.
type DispatchStep struct {
	Attempt int
	Call    ToolCall
}

// AnalyzeStep asks the runtime to give Failure to the Reflector and report
// its answer with Recovery.Analyzed.
type AnalyzeStep struct{ Failure Failure }

// WaitStep asks the runtime to wait Delay (never negative) before the next
// attempt and then call Recovery.Waited. Attempt is the attempt that failed.
// Delay is the wait actually to be taken: the strategy's delay or a
// rate-limit hint, whichever is longer.
type WaitStep struct {
	Attempt int
	Delay   time.Duration
}

// AskStep asks the runtime to put Question to a human and report the answer
// with Recovery.Answered.
type AskStep struct{ Question Question }

// DoneStep ends the loop: Result and Err are what Driver.Run returns.
type DoneStep struct {
	Result ToolResult
	Err    error
}

func (DispatchStep) isStep() {}
func (AnalyzeStep) isStep()  {}
func (WaitStep) isStep()     {}
func (AskStep) isStep()      {}
func (DoneStep) isStep()     {}
