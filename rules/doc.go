// Package rules is a [reflection.Reflector] that answers from a table of
// rules instead of a model. Most tool failures need no model to diagnose: a
// timeout, a 503, a database deadlock, a 429 with Retry-After, a 401. This
// package says so in microseconds, and says nothing about the rest.
//
// # The model
//
// A [Rule] pairs a [Condition] (when it applies) with a [Verdict] (what it
// answers). [New] builds a [Reflector] from rules; its Analyze asks them in
// order and the first whose condition holds answers. When none holds,
// Analyze returns an error wrapping [reflection.ErrSkipped], so in a
// reflection.Chain the failure goes on to the next Reflector (one that asks
// a model, say):
//
//	reflector := reflection.Chain(
//		rules.New(rules.Defaults()...), // sure answers, no model call
//		llm.New(client),                // everything else
//	)
//
// Conditions look at the error dispatch returned (Failure.Err, with
// errors.Is and errors.As: [ErrorIs], [ErrorAs], [Status]) and at the failure
// text (Failure.Error: [Status], [Text], [Regexp], [Contains]), and combine
// with [All], [Any] and [Not]. Verdicts say [Transient] (recoverable, with
// the Retry-After hint the failure states), [Escalate] (a human must act),
// [Skip] (not ours to judge), or give any analysis ([Answer],
// [AnswerFunc]).
//
// # The stock table
//
// [Defaults] is a table for the failures of real systems: Go's standard
// library, HTTP APIs (OpenAI, Anthropic, Google, AWS, Azure, GitHub,
// Stripe, ...), gRPC, PostgreSQL, MySQL, SQLite and Redis, and the network
// errors of Python, Node and Java as MCP tools report them. It calls
// transient failures recoverable, authentication, permission and quota
// failures not recoverable with an Escalate correction, and skips
// everything else. It is measured on a labelled set of 318 real error
// messages that ships with the package (testdata/messages.jsonl, and
// testdata/holdout.jsonl, collected after the table was written), with
// where each came from: TestDataset prints the scores per class and fails
// if an authentication failure is ever called recoverable, if 3% or more of
// the non-transient failures are, if fewer than 90% of the transient ones
// are, or if the Retry-After is read wrong from more than a fifth of the
// messages that state one.
//
// [UnknownTool] adds a rule that turns "unknown tool X" into a ToolChange to
// the closest name among the host's tools.
//
// # Cost and safety
//
// Everything is compiled when the rules are built. The stock table reads a
// text once for all its phrases (one automaton), runs its few regular
// expressions only where their words occur, and reads a long text only
// through its first and last 4 KiB, so a miss costs a few microseconds. The
// rules never let a panic of a host error value (its Is, As, Error,
// StatusCode or RetryAfter method) escape Analyze: a condition that panics
// does not hold. A Reflector is immutable and safe for concurrent use.
package rules
