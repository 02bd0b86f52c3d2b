package reflectionotel

import (
	"go.opentelemetry.io/otel/attribute"
)

// The names of the spans' attributes and events that are this package's own;
// the rest come from the semantic conventions (gen_ai.*, error.type). One
// thing has one name wherever it appears: a wait between attempts is
// reflection.wait.delay on the wait event and on the call's span when it
// was refused; an attempt cut short by the Driver's attempt timeout is
// error.type "timeout" with reflection.attempt_timeout on its span, and
// reflection.attempt_timeout on the analysis of that failure.
const (
	outcomeKey        = attribute.Key("reflection.outcome")         // call span, calls metric: how the call ended (reflection.Outcome's word)
	reasonKey         = attribute.Key("reflection.reason")          // call span, refusal event, metrics: why (reflection.Reason's word); absent for a success
	attemptsKey       = attribute.Key("reflection.attempts")        // call span: dispatch calls made
	attemptKey        = attribute.Key("reflection.attempt")         // attempt span and events: 0 for the original call
	attemptTimeoutKey = attribute.Key("reflection.attempt_timeout") // attempt span and analysis: the limit a timed-out attempt outlived, in seconds
	recoverKey        = attribute.Key("reflection.recoverable")     // analysis: the Reflector's verdict
	severityKey       = attribute.Key("reflection.severity")        // analysis: low, medium, high or critical
	corrTypeKey       = attribute.Key("reflection.correction.type")
	retryAfterKey     = attribute.Key("reflection.retry_after") // analysis: the rate-limit hint, in seconds
	actionKey         = attribute.Key("reflection.action")      // decision: retry, skip, ask_user or fail
	retryDelayKey     = attribute.Key("reflection.retry.delay") // decision: the delay the strategy asked for, in seconds
	waitDelayKey      = attribute.Key("reflection.wait.delay")  // wait event, call span: the wait to take (hint included), in seconds
	appliedKey        = attribute.Key("reflection.correction.applied")
	approvedKey       = attribute.Key("reflection.approved")     // ask: the human approved a retry
	breakerFromKey    = attribute.Key("reflection.breaker.from") // breaker event and metric: closed, open or half_open
	breakerToKey      = attribute.Key("reflection.breaker.to")
	skippedKey        = attribute.Key("reflection.skipped")            // analysis: the Reflector skipped the failure (reason unanalyzed)
	rememberedIDKey   = attribute.Key("reflection.remembered.call_id") // remembered: the earlier call's ToolCall.ID
	rememberedAgeKey  = attribute.Key("reflection.remembered.age")     // remembered: seconds since the earlier call ended
	verdictKey        = attribute.Key("reflection.verdict")            // verification: unknown, not_applied or applied
	roundKey          = attribute.Key("reflection.round")              // model request: 0 first, 1.. repair rounds
	latencyKey        = attribute.Key("reflection.latency")            // model request: in seconds

	// Texts, recorded only WithTexts.
	failureKey      = attribute.Key("reflection.failure")         // analysis: the failure text the Reflector saw; remembered: the earlier call's
	errorKey        = attribute.Key("reflection.error")           // analysis, ask, verification, model request: the error's text
	rootCauseKey    = attribute.Key("reflection.root_cause")      // analysis
	actionReasonKey = attribute.Key("reflection.decision.reason") // decision: Skip's or Fail's reason
	promptKey       = attribute.Key("reflection.prompt")          // decision and ask: AskUser's prompt
	corrToolKey     = attribute.Key("reflection.correction.tool")
	corrInputKey    = attribute.Key("reflection.correction.input")
	corrWhyKey      = attribute.Key("reflection.correction.why") // why a correction was dropped
	replyKey        = attribute.Key("reflection.reply")          // ask: the human's reply
	answerKey       = attribute.Key("reflection.answer.input")   // ask: the human's own input
)

// The names of the events on the call's span.
const (
	analysisEvent     = "reflection.analysis"
	decisionEvent     = "reflection.decision"
	correctionEvent   = "reflection.correction"
	waitEvent         = "reflection.wait"
	askEvent          = "reflection.ask"
	breakerEvent      = "reflection.breaker"
	refusalEvent      = "reflection.refusal"
	rememberedEvent   = "reflection.remembered"
	verificationEvent = "reflection.verification"
	modelRequestEvent = "reflection.model_request"
)

// The error.type values this package sets itself; any other error is named
// by its type, as semconv.ErrorType names it.
const (
	toolErrorType = "tool_error" // dispatch returned a result with IsError
	timeoutType   = "timeout"    // the Driver's attempt timeout cut the attempt short
	panicType     = "panic"      // dispatch panicked
)
