// Package otel traces and measures the tool calls a [reflection.Driver]
// runs, with OpenTelemetry.
//
// # The model
//
// A tool call that goes through [Telemetry.Run] becomes one span, named
// "reflection.run <tool>", whose children are one span per attempt, named
// "execute_tool <tool>" after the GenAI semantic conventions. The attempt
// span's context is the one the tool receives, so the tool's own spans nest
// under the attempt that ran them; the Reflector and the Asker receive the
// run span's context, so a model request they make is a sibling of the
// attempts. What recovery did between attempts (the analysis, the decision,
// each correction, the wait, the question put to a human) is recorded as
// events on the run span, and how the call ended as its attributes:
//
//	reflection.run search          reflection.outcome=succeeded reflection.attempts=2
//	│  events: reflection.analysis, reflection.decision, reflection.wait, reflection.correction
//	├── execute_tool search        reflection.attempt=0 error.type=tool_error
//	│   └── the tool's own spans
//	└── execute_tool search_v2     reflection.attempt=1
//	    └── the tool's own spans
//
// Three metrics count what recovery costs: reflection.calls (tool calls by
// outcome), reflection.call.attempts (attempts per call) and
// reflection.wait.duration (each wait between attempts, in seconds).
//
// # Wiring
//
// A Driver keeps one [reflection.Observer], and no Observer hook can hand a
// context back to the Driver, so the telemetry takes two places: its
// Observer joins the host's own in the Driver's options, and its Run wraps
// the Driver's Run and the dispatch func:
//
//	tel := otel.New()
//	d := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithObserver(reflection.JoinObservers(hostObserver, tel.Observer())),
//	)
//	res, err := tel.Run(ctx, d, call, dispatch) // in place of d.Run
//
// Without the Observer the spans and two of the metrics are still there; the
// events and reflection.wait.duration are not. A call run with the Driver's
// own Run is not traced: the Observer's hooks then do nothing.
//
// # Texts
//
// Tool inputs, outputs, failure texts, root causes, reasons, prompts and
// replies can hold anything a tool or a model wrote, secrets included. They
// go into spans only when the host opts in with [WithTexts], and then
// through its redactor, the function type [reflection.WithRedactor] takes
// ([reflection.RedactSecrets] is a stock one). Without it, spans and events
// carry names, kinds, counts and durations only.
//
// # Model requests
//
// [Telemetry.RecordModelRequest] records what one request of a
// model-backed Reflector cost (tokens, latency, whether its answer was
// usable) as an event on the run span and as the GenAI client metrics
// gen_ai.client.token.usage and gen_ai.client.operation.duration.
package otel
