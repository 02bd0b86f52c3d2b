package reflection

// Reason says, in a word, why a call ended as it did: "" for a success. The
// Outcome says how it ended; the Reason tells apart the rules that end a
// call the same way (a strategy's Fail, a breaker, a budget, a loop).
type Reason string

// The reasons a call ends.
const (
	ReasonStrategy        Reason = "strategy"         // the strategy's own Skip, AskUser or Fail
	ReasonReflectorError  Reason = "reflector_error"  // the Reflector failed or panicked
	ReasonUnanalyzed      Reason = "unanalyzed"       // the Reflector skipped the failure (its error wraps ErrSkipped)
	ReasonInvalidAction   Reason = "invalid_action"   // the strategy returned nil or an unknown action, or panicked
	ReasonHintOverCap     Reason = "hint_over_cap"    // a rate-limit hint above WithMaxRetryAfter's cap
	ReasonCeiling         Reason = "ceiling"          // the sixth failed call (*ToolRecoveryExhaustedError)
	ReasonDeclined        Reason = "declined"         // a human declined the retry, the effect guard's question too
	ReasonAskFailed       Reason = "ask_failed"       // the Asker failed or panicked
	ReasonCanceled        Reason = "canceled"         // ctx ended (a cancel, or its deadline passed), or the runtime called Stop
	ReasonDeadline        Reason = "deadline"         // a wait refused up front: it could not end before ctx's deadline
	ReasonNilDispatch     Reason = "nil_dispatch"     // Run was given no dispatch func
	ReasonCircuitOpen     Reason = "circuit_open"     // the tool's circuit breaker refused the dispatch (WithHealth)
	ReasonBudgetExhausted Reason = "budget_exhausted" // the retry budget refused the retry (WithRetryBudget)
	ReasonAmbiguousEffect Reason = "ambiguous_effect" // a tool that may have acted was not run again blindly (WithEffects)
	ReasonCorrectionLoop  Reason = "correction_loop"  // corrections went back to a call that had failed (WithLoopGuard)
	ReasonLoopDetected    Reason = "loop_detected"    // the session kept getting the same result (WithLoopDetection)
	ReasonRefused         Reason = "refused"          // Recovery.Refuse with the runtime's own error
)

// stopReason is the Reason of a call that Stop ends with err.
func stopReason(err error) Reason {
	if _, ok := chainAs[*LoopDetectedError](err); ok {
		return ReasonLoopDetected
	}
	if _, ok := chainAs[*WaitPastDeadlineError](err); ok {
		return ReasonDeadline
	}
	if chainIs(err, ErrNilDispatch) {
		return ReasonNilDispatch
	}
	return ReasonCanceled
}

// refuseReason is the Reason of a call that Refuse ends with err.
func refuseReason(err error) Reason {
	switch {
	case chainIs(err, ErrCircuitOpen):
		return ReasonCircuitOpen
	case chainIs(err, ErrRetryBudget):
		return ReasonBudgetExhausted
	}
	return ReasonRefused
}

// analysisReason is the Reason of a call that ends because its Reflector
// answered err: ReasonUnanalyzed when the Reflector only skipped the failure
// (err wraps ErrSkipped and not ErrInternal), ReasonReflectorError for a
// Reflector that failed or panicked.
func analysisReason(err error) Reason {
	if chainIs(err, ErrSkipped) && !chainIs(err, ErrInternal) {
		return ReasonUnanalyzed
	}
	return ReasonReflectorError
}
