package reflectionotel

import (
	"context"
	"github.com/loopctl-go/reflection/internal/errchain"
	"time"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The hooks below record, as events on the call's span, what recovery does
// between attempts: the analysis, the decision, each wait, each correction
// and each question put to a human.

// analyzed records the Reflector's answer, or its failure: error.type for a
// Reflector that failed (the call's reason is reflector_error), and
// reflection.skipped for one that skipped the failure (reason unanalyzed),
// which is no error of the Reflector's.
func (t *Telemetry) analyzed(ctx context.Context, f reflection.Failure, a reflection.FailureAnalysis, err error) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 9)
	attrs = append(attrs, attemptKey.Int(f.Attempt))
	if limit, ok := attemptTimeout(f.Err); ok {
		attrs = append(attrs, attemptTimeoutKey.Float64(seconds(limit)))
	}
	attrs = t.appendText(attrs, failureKey, f.Error)
	switch {
	case err != nil && skipped(err):
		// Not a broken component: the Reflector had nothing to say.
		attrs = append(attrs, skippedKey.Bool(true))
		if s := t.errText(err); s != "" {
			attrs = append(attrs, errorKey.String(s))
		}
	case err != nil:
		attrs = t.appendErr(attrs, errorKey, err)
	default:
		attrs = append(attrs, recoverKey.Bool(a.IsRecoverable), severityKey.String(a.Severity.String()))
		if a.Correction != nil {
			attrs = append(attrs, corrTypeKey.String(string(a.Correction.Type)))
		}
		if a.RetryAfter > 0 {
			attrs = append(attrs, retryAfterKey.Float64(seconds(a.RetryAfter)))
		}
		attrs = t.appendText(attrs, rootCauseKey, a.RootCause)
	}
	c.span.AddEvent(analysisEvent, trace.WithAttributes(attrs...))
}

// decided records the action the Driver takes.
func (t *Telemetry) decided(ctx context.Context, attempt int, action reflection.RecoveryAction) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, attemptKey.Int(attempt))
	switch act := action.(type) {
	case reflection.Retry:
		attrs = append(attrs, actionKey.String("retry"), retryDelayKey.Float64(seconds(max(act.Delay, 0))))
	case reflection.Skip:
		attrs = append(attrs, actionKey.String("skip"))
		attrs = t.appendText(attrs, actionReasonKey, act.Reason)
	case reflection.AskUser:
		attrs = append(attrs, actionKey.String("ask_user"))
		attrs = t.appendText(attrs, promptKey, act.Prompt)
	case reflection.Fail:
		attrs = append(attrs, actionKey.String("fail"))
		attrs = t.appendText(attrs, actionReasonKey, act.Reason)
	default: // the Driver reports any other action as Fail; kept for safety
		attrs = append(attrs, actionKey.String("fail"))
	}
	c.span.AddEvent(decisionEvent, trace.WithAttributes(attrs...))
}

// waiting records a wait between attempts and starts measuring it. An
// immediate retry (delay 0) is no wait and records nothing.
func (t *Telemetry) waiting(ctx context.Context, attempt int, delay time.Duration) {
	c := t.callOf(ctx)
	if c == nil || delay <= 0 {
		return
	}
	c.span.AddEvent(waitEvent, trace.WithAttributes(attemptKey.Int(attempt), waitDelayKey.Float64(seconds(delay))))
	c.startWait(delay)
}

// corrected records an InputFix or ToolChange, applied or dropped.
func (t *Telemetry) corrected(ctx context.Context, attempt int, corr reflection.Correction, applied bool, why string) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attemptKey.Int(attempt), corrTypeKey.String(string(corr.Type)), appliedKey.Bool(applied))
	attrs = t.appendText(attrs, corrToolKey, corr.AlternativeTool)
	attrs = t.appendText(attrs, corrInputKey, string(corr.ModifiedInput))
	attrs = t.appendText(attrs, corrWhyKey, why)
	c.span.AddEvent(correctionEvent, trace.WithAttributes(attrs...))
}

// asked records a question put to a human and the answer, or the Asker's
// failure.
func (t *Telemetry) asked(ctx context.Context, attempt int, q reflection.Question, ans reflection.Answer, err error) {
	c := t.callOf(ctx)
	if c == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attemptKey.Int(attempt))
	attrs = t.appendText(attrs, promptKey, q.Prompt)
	if err != nil {
		attrs = t.appendErr(attrs, errorKey, err)
	} else {
		attrs = append(attrs, approvedKey.Bool(ans.Approve))
		attrs = t.appendText(attrs, answerKey, string(ans.Input))
		attrs = t.appendText(attrs, replyKey, ans.Reply)
	}
	c.span.AddEvent(askEvent, trace.WithAttributes(attrs...))
}

// skipped reports whether a Reflector's err says it skipped the failure, as
// the Driver reads it for reflection.ReasonUnanalyzed: it matches
// reflection.ErrSkipped and not reflection.ErrInternal.
func skipped(err error) bool {
	return errchain.Is(err, reflection.ErrSkipped) && !errchain.Is(err, reflection.ErrInternal)
}
