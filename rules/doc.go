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
// Conditions look at the error dispatch returned (Failure.Err, by the rules
// of errors.Is and errors.As: [ErrorIs], [ErrorAs], [Status]) and at the failure
// text (Failure.Error: [Status], [Text], [Regexp], [Contains]), and combine
// with [All], [Any] and [Not]. Verdicts say [Transient] (recoverable, with
// the Retry-After hint the failure states), [Escalate] (a human must act),
// [Skip] (not ours to judge), or give any analysis ([Answer],
// [AnswerFunc]).
//
// # The stock table
//
// [Defaults] is a table for the failures of the systems agents call: Go's
// standard library and the network errors of Python, Node and Java as tools
// report them; HTTP APIs and their proxies (OpenAI, Anthropic, Google, AWS,
// Azure, GitHub, Stripe, Slack, Twilio, Cloudflare, Envoy, ...); gRPC in
// every language's wording; MCP and JSON-RPC transports; PostgreSQL, MySQL,
// SQL Server, Oracle, SQLite, Redis, MongoDB, Cassandra, ClickHouse,
// DynamoDB, BigQuery, Spanner and Snowflake; Kafka, RabbitMQ and NATS;
// Elasticsearch; etcd, Consul, ZooKeeper and Kubernetes. It calls transient
// failures recoverable, with the wait the failure states; credentials,
// permissions, spent quotas and untrusted TLS certificates not recoverable,
// with an Escalate correction; an expired access token recoverable on a
// call's first failure only (most clients fetch a fresh token on the next
// request; the same expiry on a later attempt escalates); and skips
// everything else, and every text too vague to judge ("Something went
// wrong", "Unknown error").
//
// Where two verdicts meet in one text, the table decides in this order:
// credentials refused for good (revoked, invalid, disabled, rejected, a
// refresh token or an API key that expired) win over everything, read
// through the first 64 KiB of a text; then an expired token; then the other
// words of a refusal ("401 Unauthorized", "access denied"); then a spent
// quota or billing limit, whatever retry delay it states ("You exceeded your
// current quota ... Please retry in 36s"); then the transient words. A
// quota per second or per minute is a rate limit ("Quota exceeded for ...
// per minute"), unless its limit is 0 or it is daily; a rate limit said to
// be daily, with no wait given, is a spent quota.
//
// A wait is read from the error (a RetryAfter method) or from the text: a
// Retry-After header or field, Google's retryDelay, a rate limit's reset
// header, or a sentence ("Please try again in 420ms", "retry after 20
// seconds", "Please retry in 2m30s", "resets in 3 minutes"), in the units it
// states. A wait stated in words is read as the most a reader would take it
// for: "a minute" is one, "a couple of minutes" two, "a few minutes" three,
// "several minutes" five. A wait of minutes is therefore never an immediate
// retry: the Driver ends the call when the hint is over its cap
// (reflection.WithMaxRetryAfter, 60 s by default), the right ending for a
// long reset. "Try again later" and "in a moment" state no wait.
//
// The table is measured on a labelled set of 771 real error messages that
// ships with the package, each with where it came from
// (testdata/messages.jsonl; testdata/holdout.jsonl, collected after the
// first table was written; testdata/systems.jsonl, 373 wordings of some 80
// systems and their SDKs, each taken from the system's source,
// documentation or issue threads; testdata/holdout_systems.jsonl, 80 more,
// collected after the table was widened to them). TestDataset prints the scores per class and per label, and
// fails if a credential, spent-quota or vague failure is ever called
// recoverable, if an expired token is called recoverable after the first
// failure or on fewer than 80% of the messages at the first, if 3% or more
// of the other non-transient failures are, if fewer than 90% of the
// transient failures or of the rate limits are, if the Retry-After is read
// wrong from more than a fifth of the messages that state one, or if a rate
// limit's stated wait is read more than a second off in more than a fifth.
// TestAuthBesideTransient holds it to 49 more credential and permission
// failures printed beside transient words or deep in long logs
// (testdata/auth_beside_transient.jsonl): every one must be escalated.
//
// [UnknownTool] adds a rule that turns "unknown tool X" into a ToolChange to
// the closest name among the host's tools, at a cost bounded by the list,
// whatever name the model called.
//
// # Cost and safety
//
// Everything is compiled when the rules are built. The stock table reads a
// text once for all its phrases (one automaton, walked in four lanes at once
// over a long text), runs its regular expressions only around the places
// where their words occur, and reads a long text only through its first and
// last 4 KiB, and through its first 64 KiB for the words of credentials
// refused for good (a second, smaller automaton): a short miss costs a
// microsecond or two and allocates nothing, and no text, however much a
// tool printed, costs more than one pass over those bytes. The rules read a
// host's error value as the root package does, through the same functions:
// every walk of its chain is bounded, so a chain that loops ends, and a
// panic of one of its methods (Is, As, Error, Unwrap, StatusCode,
// RetryAfter) never escapes Analyze: a condition that panics does not hold. A Reflector is immutable and safe for concurrent
// use. It reads one clock, to turn a Retry-After stated as an HTTP date (or
// a reset stated as a Unix time) into a wait; [Reflector.WithClock] gives it
// another (a workflow's, whose replays must decide alike).
//
// An answer of the stock table depends on Failure.Attempt (an expired
// token): put it in front of a cache that does not tell attempts apart
// (reflection.NewCache), as reflection.Chain(rules, cache(model)) does, not
// behind one.
package rules
