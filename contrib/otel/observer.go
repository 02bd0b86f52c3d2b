package otel

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Observer returns the hooks that record, as events on the run span, what
// recovery does between attempts: the analysis, the decision, each
// correction, each wait and each question put to a human; it also measures
// the waits. Give it to the Driver joined with the host's own observer,
// since a Driver keeps one:
//
//	reflection.WithObserver(reflection.JoinObservers(hostObserver, tel.Observer()))
//
// The hooks act only on a call that t's Run started, and do nothing for any
// other: the Driver's own Run, another Telemetry's, or a Driver that a tool
// runs inside its attempt (that one is traced only if it too goes through a
// Telemetry's Run). A nil t gives an empty Observer.
func (t *Telemetry) Observer() reflection.Observer {
	if t.off() {
		return reflection.Observer{}
	}
	return reflection.Observer{
		Analyzed:  t.analyzed,
		Decided:   t.decided,
		Waiting:   t.waiting,
		Corrected: t.corrected,
		Asked:     t.asked,
	}
}

// runOf returns the run of ctx when t started it, else nil.
func (t *Telemetry) runOf(ctx context.Context) *run {
	if r := runFrom(ctx); r != nil && r.t == t {
		return r
	}
	return nil
}

// seconds is d in seconds, the unit OpenTelemetry gives durations in.
func seconds(d time.Duration) float64 { return d.Seconds() }

// analyzed records the Reflector's answer, or its failure.
func (t *Telemetry) analyzed(ctx context.Context, f reflection.Failure, a reflection.FailureAnalysis, err error) {
	r := t.runOf(ctx)
	if r == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, attemptKey.Int(f.Attempt))
	attrs = t.appendText(attrs, failureKey, f.Error)
	if err != nil {
		attrs = t.appendErr(attrs, errorKey, err)
	} else {
		attrs = append(attrs, recoverKey.Bool(a.IsRecoverable), severityKey.String(a.Severity.String()))
		if a.Correction != nil {
			attrs = append(attrs, corrTypeKey.String(string(a.Correction.Type)))
		}
		if a.RetryAfter > 0 {
			attrs = append(attrs, retryAfterKey.Float64(seconds(a.RetryAfter)))
		}
		attrs = t.appendText(attrs, rootCauseKey, a.RootCause)
	}
	r.span.AddEvent(analysisEvent, trace.WithAttributes(attrs...))
}

// decided records the action the Driver takes.
func (t *Telemetry) decided(ctx context.Context, attempt int, action reflection.RecoveryAction) {
	r := t.runOf(ctx)
	if r == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, attemptKey.Int(attempt))
	switch act := action.(type) {
	case reflection.Retry:
		attrs = append(attrs, actionKey.String("retry"), delayKey.Float64(seconds(max(act.Delay, 0))))
	case reflection.Skip:
		attrs = append(attrs, actionKey.String("skip"))
		attrs = t.appendText(attrs, reasonKey, act.Reason)
	case reflection.AskUser:
		attrs = append(attrs, actionKey.String("ask_user"))
		attrs = t.appendText(attrs, promptKey, act.Prompt)
	case reflection.Fail:
		attrs = append(attrs, actionKey.String("fail"))
		attrs = t.appendText(attrs, reasonKey, act.Reason)
	default: // the Driver reports any other action as Fail; kept for safety
		attrs = append(attrs, actionKey.String("fail"))
	}
	r.span.AddEvent(decisionEvent, trace.WithAttributes(attrs...))
}

// waiting records a wait between attempts and starts measuring it. An
// immediate retry (delay 0) is no wait and records nothing.
func (t *Telemetry) waiting(ctx context.Context, attempt int, delay time.Duration) {
	r := t.runOf(ctx)
	if r == nil || delay <= 0 {
		return
	}
	r.span.AddEvent(waitEvent, trace.WithAttributes(attemptKey.Int(attempt), delayKey.Float64(seconds(delay))))
	r.startWait()
}

// corrected records an InputFix or ToolChange, applied or dropped.
func (t *Telemetry) corrected(ctx context.Context, attempt int, c reflection.Correction, applied bool, why string) {
	r := t.runOf(ctx)
	if r == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attemptKey.Int(attempt), corrTypeKey.String(string(c.Type)), appliedKey.Bool(applied))
	attrs = t.appendText(attrs, corrToolKey, c.AlternativeTool)
	attrs = t.appendText(attrs, corrInputKey, string(c.ModifiedInput))
	attrs = t.appendText(attrs, corrWhyKey, why)
	r.span.AddEvent(correctionEvent, trace.WithAttributes(attrs...))
}

// asked records a question put to a human and the answer, or the Asker's
// failure.
func (t *Telemetry) asked(ctx context.Context, attempt int, q reflection.Question, ans reflection.Answer, err error) {
	r := t.runOf(ctx)
	if r == nil {
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
	r.span.AddEvent(askEvent, trace.WithAttributes(attrs...))
}
