// Package reflectionotel traces and measures, with OpenTelemetry, the tool
// calls a [reflection.Driver] runs.
//
// # What it wraps
//
// Nothing but the Driver: a [Telemetry] is an OpenTelemetry tracer and
// meter, and its [Telemetry.Observer] is the Driver's observer. Whichever
// code runs the call, Driver.Run or an adapter of another module (an MCP
// session, an OpenAI runner, a framework's tool node), the Driver calls the
// Observer's hooks, and the hooks carry the spans: no adapter has telemetry
// of its own.
//
// # Wiring
//
// One place, the Driver's options:
//
//	tel := reflectionotel.New() // the global providers, no texts
//	d := reflection.NewDriver(
//		reflection.WithReflector(reflector),
//		reflection.WithObserver(tel.Observer()),
//	)
//	res, err := d.Run(ctx, call, dispatch) // or any adapter's entry point
//
// A Driver keeps one Observer: a host with its own joins them with
// reflection.JoinObservers, in either order. A Driver made from this one
// with Driver.With keeps it.
//
// # What maps to what
//
// A call becomes one span, "reflection.run <tool>", under the span of the
// context it was run with; each attempt a child span, "execute_tool <tool>"
// after the GenAI semantic conventions. The attempt's span is in the context
// the tool receives, so the tool's own spans nest under the attempt that ran
// them; the Reflector and the Asker receive the call's span, so a model
// request they make is a sibling of the attempts. What recovery did between
// attempts (the analysis, the decision, each wait, each correction, each
// question put to a human, each change of a tool's circuit breaker, a
// refusal, an effect-memory match of an earlier call that may have acted,
// a verifier's verdict) is an event on the call's span, and how the call
// ended its attributes:
//
//	reflection.run search          reflection.outcome=succeeded reflection.attempts=2
//	│  events: reflection.analysis, reflection.decision, reflection.wait, reflection.correction
//	├── execute_tool search        reflection.attempt=0 error.type=tool_error
//	│   └── the tool's own spans
//	└── execute_tool search_v2     reflection.attempt=1
//	    └── the tool's own spans
//
// Any end but a success sets the call's span status to Error, with
// error.type the outcome and reflection.reason the rule that ended it
// (reflection.Reason's word: "ceiling", "circuit_open",
// "budget_exhausted", ...). A failed attempt has error.type "tool_error" (a
// result with IsError), "timeout" (the Driver's attempt timeout, with
// reflection.attempt_timeout the limit), "panic", or the error's type.
// A Reflector that failed (reason "reflector_error") puts error.type on its
// analysis event; one that skipped the failure (reason "unanalyzed") puts
// reflection.skipped there instead: a skip is no broken component.
//
// Five metrics count what recovery costs: reflection.calls (calls by
// outcome and reason), reflection.call.attempts (attempts per call),
// reflection.wait.duration (each wait between attempts, in seconds),
// reflection.call.refusals (calls a breaker, the retry budget or the
// runtime refused, by reason) and reflection.breaker.transitions (breaker
// state changes, by tool and states).
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
// usable) as an event on the call's span and as the GenAI client metrics
// gen_ai.client.token.usage and gen_ai.client.operation.duration.
package reflectionotel
