package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loopctl-go/reflection"
)

// SchemaName is the name of the response schema sent in the request's
// response_format.
const SchemaName = "failure_analysis"

// DefaultSystemPrompt is the system message a Reflector sends unless
// WithSystemPrompt replaces it. It gives the model its role, the exact shape
// of the answer with every field and enum value, and the two guardrails:
// propose a corrected input only when it fits the tool's schema, and prefer
// is_recoverable false over an invented correction.
const DefaultSystemPrompt = `You examine a single failed tool call made by an AI agent and decide whether a retry can succeed.

The user message lists the tool, the input it was called with, the JSON Schema of that input when one is known, the error text the call produced, the agent's task, and which attempt this was.

Reply with exactly one JSON object and nothing else, shaped like this:
{
  "is_recoverable": true or false (can another call plausibly succeed?),
  "root_cause": "one or two sentences on why the call failed",
  "severity": "low" | "medium" | "high" | "critical",
  "correction": null, or {
    "correction_type": "input_fix" | "tool_change" | "prerequisite_fix" | "approach_change" | "escalate",
    "description": "what the correction does",
    "modified_input": null, or a string that holds the complete corrected input as a JSON object (input_fix only),
    "alternative_tool": null, or the name of the tool to call instead (tool_change only),
    "guidance": null, or advice for the agent (prerequisite_fix, approach_change, escalate)
  },
  "context": "anything else worth knowing, or an empty string"
}

Every key must be present; use null where a value does not apply. Severity: "low" for a transient or cosmetic failure, "medium" for a wrong input or a missing precondition, "high" when data, money or security may be at stake, "critical" when continuing could cause harm.

Two rules come first:
1. Give modified_input only when the corrected input conforms to the tool's input schema. If you cannot make it conform, give no input_fix.
2. When you are not sure a retry can work, answer "is_recoverable": false with "correction": null. An invented correction wastes a retry and misleads the agent.`

// responseSchema is the strict-mode schema of the answer, compacted once.
var responseSchema = mustCompact(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["is_recoverable", "root_cause", "severity", "correction", "context"],
  "properties": {
    "is_recoverable": {"type": "boolean", "description": "Whether another call can plausibly succeed."},
    "root_cause": {"type": "string", "description": "Why the call failed."},
    "severity": {"type": "string", "enum": ["low", "medium", "high", "critical"]},
    "correction": {
      "anyOf": [
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["correction_type", "description", "modified_input", "alternative_tool", "guidance"],
          "properties": {
            "correction_type": {"type": "string", "enum": ["input_fix", "tool_change", "prerequisite_fix", "approach_change", "escalate"]},
            "description": {"type": "string"},
            "modified_input": {"type": ["string", "null"], "description": "The complete corrected input, as a JSON object encoded in a string."},
            "alternative_tool": {"type": ["string", "null"], "description": "The tool to call instead."},
            "guidance": {"type": ["string", "null"], "description": "Advice for the agent."}
          }
        },
        {"type": "null"}
      ]
    },
    "context": {"type": "string", "description": "Anything else worth knowing."}
  }
}`)

// lenientResponseSchema is responseSchema with one change: modified_input
// may also be a JSON object. It checks answers requested with
// ResponseFormatJSONObject or ResponseFormatNone.
var lenientResponseSchema = mustCompact(strings.Replace(string(responseSchema),
	`"modified_input":{"type":["string","null"]`, `"modified_input":{"type":["string","null","object"]`, 1))

func mustCompact(s string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic("llm: response schema is not JSON: " + err.Error())
	}
	return b.Bytes()
}

// ResponseSchema returns the JSON Schema of the answer, as sent in the
// request's response_format (strict mode: every object closed and fully
// required, optional values nullable). Each call returns a fresh copy that
// the caller may keep or modify.
func ResponseSchema() json.RawMessage {
	return bytes.Clone(responseSchema)
}

// UserMessage renders f as the user message sent to the model, one line per
// field joined by "\n" without a trailing newline:
//
//	Tool: {f.Tool}
//	Input: {f.Input, compacted}
//	Schema: {f.Schema.InputSchema, compacted}   (absent when f.Schema is nil)
//	Error: {f.Error}
//	Task: {f.Task}
//	Attempt: {f.Attempt+1} of {f.MaxAttempts}
//
// Input and schema are compacted as json.Compact does; text that is not JSON
// is written as it is. A field whose text has line breaks ("\n", "\r",
// "\r\n", U+0085, U+2028 or U+2029) keeps them, and every line after its
// first is indented by two spaces, so no line of a tool's own text can pass
// for a line of the template: an error text "boom\nAttempt: 6 of 6" renders
// as "Error: boom\n  Attempt: 6 of 6". A text without line breaks renders
// exactly as it is. UserMessage applies no truncation or redaction; the
// Reflector does that before it renders the message.
func UserMessage(f reflection.Failure) string {
	return render(f, compactText(f.Input), f.Error)
}

// render writes the template with input and errText already prepared.
func render(f reflection.Failure, input, errText string) string {
	tool, task := indentLines(f.Tool), indentLines(f.Task)
	input, errText = indentLines(input), indentLines(errText)
	schema := ""
	if f.Schema != nil {
		schema = indentLines(compactText(f.Schema.InputSchema))
	}
	var b strings.Builder
	b.Grow(len(tool) + len(input) + len(schema) + len(errText) + len(task) + 64)
	b.WriteString("Tool: ")
	b.WriteString(tool)
	b.WriteString("\nInput: ")
	b.WriteString(input)
	if f.Schema != nil {
		b.WriteString("\nSchema: ")
		b.WriteString(schema)
	}
	b.WriteString("\nError: ")
	b.WriteString(errText)
	b.WriteString("\nTask: ")
	b.WriteString(task)
	b.WriteString("\nAttempt: ")
	b.WriteString(strconv.Itoa(f.Attempt + 1))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(f.MaxAttempts))
	return b.String()
}

// continuation starts every line after the first of a rendered text.
const continuation = "  "

// lineBreakAt returns the length of the line break that starts at s[i], or 0:
// "\r\n", "\n", "\r", U+0085 (NEL), U+2028 and U+2029.
func lineBreakAt(s string, i int) int {
	switch s[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2: // U+0085
		if i+1 < len(s) && s[i+1] == 0x85 {
			return 2
		}
	case 0xE2: // U+2028, U+2029
		if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// indentLines returns s with continuation after every line break. A text
// without line breaks is returned as it is, without allocating.
func indentLines(s string) string {
	first := -1
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == '\n' || c == '\r' || c == 0xC2 || c == 0xE2) && lineBreakAt(s, i) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8*len(continuation))
	b.WriteString(s[:first])
	for i := first; i < len(s); {
		if n := lineBreakAt(s, i); n > 0 {
			b.WriteString(s[i : i+n])
			b.WriteString(continuation)
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// compactText returns raw compacted when it is JSON, and as it is otherwise.
func compactText(raw []byte) string {
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// schemaInPrompt is appended to the system prompt when the server is not asked
// to enforce the schema itself (ResponseFormatJSONObject, ResponseFormatNone).
func schemaInPrompt(system string) string {
	return system + "\n\nYour reply must be a single JSON object that validates against this JSON Schema (named " +
		SchemaName + "):\n" + string(responseSchema)
}
