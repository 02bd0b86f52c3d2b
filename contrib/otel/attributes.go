package otel

import (
	"go.opentelemetry.io/otel/attribute"
)

// The names of the spans' attributes and events that are this package's own;
// the rest come from the semantic conventions (gen_ai.*, error.type).
const (
	outcomeKey    = attribute.Key("reflection.outcome")     // run span: how the call ended (reflection.Outcome's word)
	attemptsKey   = attribute.Key("reflection.attempts")    // run span: dispatch calls made
	attemptKey    = attribute.Key("reflection.attempt")     // attempt span and events: 0 for the original call
	recoverKey    = attribute.Key("reflection.recoverable") // analysis: the Reflector's verdict
	severityKey   = attribute.Key("reflection.severity")    // analysis: low, medium, high or critical
	corrTypeKey   = attribute.Key("reflection.correction.type")
	retryAfterKey = attribute.Key("reflection.retry_after") // analysis: the rate-limit hint, in seconds
	actionKey     = attribute.Key("reflection.action")      // decision: retry, skip, ask_user or fail
	delayKey      = attribute.Key("reflection.delay")       // decision and wait: in seconds
	appliedKey    = attribute.Key("reflection.correction.applied")
	approvedKey   = attribute.Key("reflection.approved") // ask: the human approved a retry
	roundKey      = attribute.Key("reflection.round")    // model request: 0 first, 1.. repair rounds
	latencyKey    = attribute.Key("reflection.latency")  // model request: in seconds

	// Texts, recorded only WithTexts.
	failureKey   = attribute.Key("reflection.failure")    // analysis: the failure text the Reflector saw
	errorKey     = attribute.Key("reflection.error")      // analysis, ask, model request: the error's text
	rootCauseKey = attribute.Key("reflection.root_cause") // analysis
	reasonKey    = attribute.Key("reflection.reason")     // decision: Skip's or Fail's reason
	promptKey    = attribute.Key("reflection.prompt")     // decision and ask: AskUser's prompt
	corrToolKey  = attribute.Key("reflection.correction.tool")
	corrInputKey = attribute.Key("reflection.correction.input")
	corrWhyKey   = attribute.Key("reflection.correction.why") // why a correction was dropped
	replyKey     = attribute.Key("reflection.reply")          // ask: the human's reply
	answerKey    = attribute.Key("reflection.answer.input")   // ask: the human's own input
)

// The names of the events on the run span.
const (
	analysisEvent     = "reflection.analysis"
	decisionEvent     = "reflection.decision"
	correctionEvent   = "reflection.correction"
	waitEvent         = "reflection.wait"
	askEvent          = "reflection.ask"
	modelRequestEvent = "reflection.model_request"
)

// The error.type values this package sets itself; an error returned by
// dispatch or a Reflector is named by semconv.ErrorType.
const (
	toolErrorType = "tool_error" // dispatch returned a result with IsError
	panicType     = "panic"      // dispatch panicked
)
