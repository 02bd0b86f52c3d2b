package reflection

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// correct applies c to cur before a retry. Only InputFix and ToolChange
// change anything; one that cannot apply is dropped with a warning, and cur
// stays as it was.
func (d *Driver) correct(ctx context.Context, attempt int, cur *ToolCall, id string, c *Correction) {
	if c == nil {
		return
	}
	var why string
	switch c.Type {
	case InputFix:
		if why = d.inputFixProblem(c.ModifiedInput); why == "" {
			cur.Input = c.ModifiedInput
		}
	case ToolChange:
		if why = d.toolChangeProblem(cur.Name, c.AlternativeTool); why == "" {
			cur.Name = c.AlternativeTool
		}
	default:
		return // advisory: the retry runs unchanged
	}
	if obs := d.observer; obs != nil && obs.Corrected != nil {
		obs.Corrected(ctx, attempt, *c, why == "", why)
	}
	if l := d.logger; l != nil {
		if why != "" {
			l.LogAttrs(ctx, slog.LevelWarn, "reflection: correction dropped",
				slog.String("tool", cur.Name), slog.String("call_id", id), slog.Int("attempt", attempt),
				slog.String("correction_type", string(c.Type)), slog.String("reason", why))
		} else {
			l.LogAttrs(ctx, slog.LevelDebug, "reflection: correction applied",
				slog.String("tool", cur.Name), slog.String("call_id", id), slog.Int("attempt", attempt),
				slog.String("correction_type", string(c.Type)))
		}
	}
}

// inputFixProblem says why input cannot replace a call's input, or "".
func (d *Driver) inputFixProblem(input json.RawMessage) string {
	if len(input) == 0 {
		return "input_fix has no modified_input"
	}
	limit := d.maxFixSize
	if limit == 0 {
		limit = DefaultMaxCorrectedInput
	}
	if limit > 0 && len(input) > limit {
		return fmt.Sprintf("modified_input is %d bytes, over the limit of %d", len(input), limit)
	}
	if !isJSONObject(input) {
		return "modified_input is not a JSON object"
	}
	return ""
}

// toolChangeProblem says why the call may not switch from one tool to
// another, or "".
func (d *Driver) toolChangeProblem(from, to string) string {
	if to == "" {
		return "tool_change has no alternative_tool"
	}
	if d.schemas != nil {
		if _, ok := d.schemas(to); !ok {
			return fmt.Sprintf("alternative tool %q is not registered", to)
		}
	}
	if d.allowTool != nil && !d.allowTool(from, to) {
		return fmt.Sprintf("switching from %q to %q is not allowed", from, to)
	}
	return ""
}

// isJSONObject reports whether b is one valid JSON value that is an object.
func isJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(b)
}
