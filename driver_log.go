package reflection

import (
	"context"
	"fmt"
	"log/slog"
)

// emit writes one record. A handler that panics loses the record, never the
// call: the logger is the host's code, like everything else Run calls.
func emit(ctx context.Context, l *slog.Logger, level slog.Level, msg string, attrs ...slog.Attr) {
	defer func() { _ = recover() }()
	l.LogAttrs(ctx, level, msg, attrs...)
}

// What a Driver logs (WithLogger). Records at Info and above carry no text
// that may hold a secret: no failure text, root cause, reason, reflector or
// asker error, input, reply or model-chosen tool name. Such texts ("sensitive"
// below) are added to a record only when it is at Debug level or the host
// asked with WithLogTexts, and always pass through WithRedactor's function.

// logReflectorError logs a Reflector's error: Info when it skipped, Error
// otherwise.
func (d *Driver) logReflectorError(ctx context.Context, r *Recovery, err error) {
	l := d.logger
	if l == nil {
		return
	}
	level, kind, msg := slog.LevelError, "error", "reflection: reflector failed"
	switch { // a chain's error may hold several kinds: the worst decides
	case chainIs(err, ErrPanicked):
		kind = "panic"
	case chainIs(err, ErrInternal):
		kind = "internal"
	case chainIs(err, ErrSkipped):
		// Not a broken component: no rule knew the failure (ReasonUnanalyzed).
		level, kind, msg = slog.LevelInfo, "skipped", "reflection: reflector skipped the failure"
	}
	attrs := d.failureAttrs(r, level, d.callAttrs(r, r.Attempt(), slog.String("error_kind", kind)))
	attrs = d.sensitive(attrs, level, "error", errorText(err))
	emit(ctx, l, level, msg, attrs...)
}

// logDecision logs what the machine decided: a retry at Debug, any end of
// the call at Info, with the Reason it ended for.
func (d *Driver) logDecision(ctx context.Context, r *Recovery) {
	l := d.logger
	if l == nil {
		return
	}
	level := slog.LevelInfo
	ended := r.Outcome() != 0
	var attrs []slog.Attr
	switch act := r.Action().(type) {
	case Retry:
		attrs = d.callAttrs(r, r.Attempt(), slog.String("action", "retry"), slog.Duration("delay", act.Delay))
		if !ended {
			level = slog.LevelDebug
			attrs = append(attrs, slog.Duration("wait", r.waitStep().Delay))
		}
		if hint := r.Hint(); hint > 0 {
			attrs = append(attrs, slog.Duration("retry_after", hint))
		}
	case AskUser:
		attrs = d.callAttrs(r, r.Attempt(), slog.String("action", "ask_user"))
		attrs = d.sensitive(attrs, level, "prompt", act.Prompt)
	case Skip:
		attrs = d.callAttrs(r, r.Attempt(), slog.String("action", "skip"))
		attrs = d.sensitive(attrs, level, "reason", act.Reason)
	case Fail:
		attrs = d.callAttrs(r, r.Attempt(), slog.String("action", "fail"))
		attrs = d.sensitive(attrs, level, "reason", act.Reason)
	}
	if ended {
		attrs = append(attrs, slog.String("end_reason", string(r.Reason())))
	}
	emit(ctx, l, level, "reflection: recovery decision", d.failureAttrs(r, level, attrs)...)
}

// logRefused logs, at Info, a call that ended because what calls share
// refused a step: a circuit breaker, a retry budget, the runtime's own rule.
func (d *Driver) logRefused(ctx context.Context, r *Recovery) {
	if l := d.logger; l != nil {
		emit(ctx, l, slog.LevelInfo, "reflection: call refused",
			d.callAttrs(r, r.Attempt(), slog.Int("calls", r.Calls()), slog.String("end_reason", string(r.Reason())))...)
	}
}

// failureAttrs adds what is known of the current failure: the type of the
// error dispatch returned (never sensitive) and its text (sensitive).
func (d *Driver) failureAttrs(r *Recovery, level slog.Level, attrs []slog.Attr) []slog.Attr {
	f := r.failure()
	if f.Err != nil {
		attrs = append(attrs, slog.String("error_type", fmt.Sprintf("%T", f.Err)))
	}
	return d.sensitive(attrs, level, "failure", f.Error)
}

// logFix logs a correction: applied at Debug, dropped at Warn.
func (d *Driver) logFix(ctx context.Context, r *Recovery, attempt int, f *fixRecord) {
	l := d.logger
	if l == nil {
		return
	}
	kind := slog.String("correction_type", string(f.c.Type))
	if f.applied {
		attrs := d.callAttrs(r, attempt, kind, slog.Bool("human", f.human))
		emit(ctx, l, slog.LevelDebug, "reflection: correction applied", attrs...)
		return
	}
	attrs := d.callAttrs(r, attempt, kind, slog.Bool("human", f.human), slog.String("reason", f.why))
	if f.c.Type == ToolChange {
		attrs = d.sensitive(attrs, slog.LevelWarn, "alternative_tool", f.c.AlternativeTool)
	}
	attrs = d.sensitive(attrs, slog.LevelWarn, "detail", f.detail)
	emit(ctx, l, slog.LevelWarn, "reflection: correction dropped", attrs...)
}

// logAsking logs that a question goes to the Asker.
func (d *Driver) logAsking(ctx context.Context, r *Recovery) {
	if l := d.logger; l != nil {
		emit(ctx, l, slog.LevelInfo, "reflection: asking a human", d.callAttrs(r, r.Attempt())...)
	}
}

// logAnswer logs the Asker's answer (Info) or its error (Error).
func (d *Driver) logAnswer(ctx context.Context, r *Recovery, ans Answer, err error) {
	l := d.logger
	if l == nil {
		return
	}
	if err != nil {
		attrs := d.sensitive(d.callAttrs(r, r.Attempt()), slog.LevelError, "error", errorText(err))
		emit(ctx, l, slog.LevelError, "reflection: asker failed", attrs...)
		return
	}
	attrs := d.callAttrs(r, r.Attempt(), slog.Bool("approved", ans.Approve), slog.Bool("input", len(ans.Input) > 0))
	attrs = d.sensitive(attrs, slog.LevelInfo, "reply", ans.Reply)
	emit(ctx, l, slog.LevelInfo, "reflection: human answered", attrs...)
}

// logStop logs a hard error at Warn: a cancel, a deadline refusal, the
// ceiling, a nil dispatch, a loop detector's refusal.
func (d *Driver) logStop(ctx context.Context, r *Recovery, err error) {
	if l := d.logger; l != nil {
		call := r.original()
		emit(ctx, l, slog.LevelWarn, "reflection: call stopped",
			slog.String("tool", call.Name), slog.String("call_id", call.ID),
			slog.Int("calls", r.Calls()), slog.String("outcome", r.Outcome().String()),
			slog.String("reason", string(r.Reason())), slog.String("error", errorText(err)))
	}
}

// callAttrs are the attributes every record about a call has: the tool as
// it runs now, the model's call id and the attempt.
func (d *Driver) callAttrs(r *Recovery, attempt int, more ...slog.Attr) []slog.Attr {
	attrs := make([]slog.Attr, 0, 3+len(more)+2)
	attrs = append(attrs, slog.String("tool", r.running().Name), slog.String("call_id", r.callID()), slog.Int("attempt", attempt))
	return append(attrs, more...)
}

// sensitive appends a text that may hold a secret, redacted, when the
// record's level allows it; an empty text adds nothing.
func (d *Driver) sensitive(attrs []slog.Attr, level slog.Level, key, text string) []slog.Attr {
	if text == "" || (level > slog.LevelDebug && !d.logTexts) {
		return attrs
	}
	return append(attrs, slog.String(key, scrubText(d.redact, text)))
}
