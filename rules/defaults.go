package rules

import (
	"context"
	"github.com/loopctl-go/reflection/internal/errchain"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"sync"
)

// Defaults returns the stock table, a fresh slice on every call. It answers
// only what it is sure of and skips the rest, so it belongs first in a
// reflection.Chain, before a Reflector that asks a model:
//
//   - transient failures are recoverable, SeverityLow, with the Retry-After
//     hint filled when the error or its text states one: timeouts, refused,
//     reset or closed connections and channels (an MCP server's "Connection
//     closed", a RabbitMQ broker's forced closure), temporary DNS failures,
//     HTTP 408, 425, 429, 500, 502, 503, 504 and 529, the gRPC codes
//     Unavailable, DeadlineExceeded, ResourceExhausted and Aborted, rate
//     limits and the overload wording of the major cloud and model APIs, a
//     replicated system without a leader or primary for now (Kafka's
//     NOT_LEADER_OR_FOLLOWER, MongoDB's "not primary", Redis' MASTERDOWN,
//     Cassandra's consistency errors, etcd's leader changes), a system at
//     capacity (ClickHouse's TOO_MANY_SIMULTANEOUS_QUERIES, Elasticsearch's
//     rejected executions, Redis' "max number of clients reached"), a change
//     that lost a race (Kubernetes' optimistic lock, Azure's
//     AnotherOperationInProgress, DynamoDB's TransactionConflict), and
//     database deadlocks, serialization failures, conflicts with recovery,
//     lock timeouts and busy databases;
//   - credentials refused for good (revoked, invalid or disabled keys and
//     tokens, rejected client certificates, a disabled account or
//     organisation, a refresh token or an API key that expired), refused
//     permissions (401, 403, permission denied, a firewall's block page) and
//     TLS certificates the caller cannot trust are not recoverable,
//     SeverityHigh, with an Escalate correction;
//   - an expired access token or session (AWS's ExpiredToken, "jwt
//     expired", OAuth's invalid_token "The access token expired") is
//     recoverable on a call's first failure (Failure.Attempt 0), since most
//     clients fetch a fresh token on the next request, and escalated on any
//     later attempt, or when the text shows the client already retried or
//     failed to refresh it;
//   - a spent quota or billing limit (OpenAI's insufficient_quota, a daily
//     quota, a free tier whose limit is 0, a credit balance) is escalated,
//     whatever retry delay it states;
//   - a request too large for the service, a Go runtime failure, a tool
//     whose program is missing, a fault of the request reported as a
//     closure (an AMQP precondition) and a text too vague to judge are
//     skipped, even under a word that would otherwise read as transient.
//
// Credentials refused for good are asked first, typed (os.ErrPermission)
// or written anywhere in the first 64 KiB of the text, and they win over
// any transient word beside them: "503 Service Unavailable: organization
// disabled by administrator", "the API token you supplied was revoked;
// gateway timeout". Retrying rejected credentials cannot succeed and can
// lock the account. Then come an expired token, the other refusals (a
// StatusCode() of 401 or 403, "Unauthorized", "access denied"), the other
// typed errors (Failure.Err, in bounded walks of its chain:
// context.DeadlineExceeded, net.Error timeouts, syscall connection errors,
// *net.DNSError, an error with a RetryAfter() or a StatusCode() /
// HTTPStatusCode() method), then the rest of the text. Words count only in
// context: "timeout must be positive" is not a timeout, "all goroutines are
// asleep - deadlock!" is not a database deadlock, "invalid rate limit
// setting" is not a rate limit, a 403 that says "rate limit exceeded" is
// one, and "Something went wrong. Please try again later." is too vague to
// be either.
//
// The rules are named (see Rule.Name); a program can drop or reorder them,
// or add its own around them.
func Defaults() []Rule { return slices.Clone(stockRules()) }

// stockRules builds the stock table once, on first use, so importing the
// package costs nothing.
var stockRules = sync.OnceValue(func() []Rule {
	const (
		authGuidance = "The credentials were rejected or do not allow this action. " +
			"A human must fix the key, token or permissions; retrying the same call cannot succeed."
		quotaGuidance = "The account's quota or billing limit is used up. " +
			"A human must raise the limit or add credit; retrying before that cannot succeed."
		expiredGuidance = "The access token or session expired again after a retry, so the client is not renewing it. " +
			"A human must fix the token refresh or sign in again; retrying the same call cannot succeed."
		certificateGuidance = "The server's TLS certificate could not be verified (an unknown authority, " +
			"an expired certificate, one issued for another name) or the server refused the client's. " +
			"A human must fix the certificate or the trust store; retrying cannot succeed."
	)
	auth := Escalate("authentication or permission failure", authGuidance)

	// Every phrase of the table goes into one automaton, so a text is read
	// once however many rules ask about it; the few words of rejected
	// credentials go into a second, read beyond the scan window too.
	n := &needleSet{}
	defer n.compile()
	beyond := &needleSet{foldCase: true}
	defer beyond.compile()

	period := ratePeriod(n)
	rateLimited := rateLimitWording(n, period)
	quota := quotaWording(n, rateLimited, period)
	permanent := Any(tooLargeWording(n), quota)
	rejected := credentialsRejected(n, beyond)
	expired := expiredToken(n)
	onlyExpired := All(expired, Not(rejected))

	return []Rule{
		// Credentials refused for good come first, typed or written
		// anywhere in the text: no transient word beside them (a 503, "try
		// again later", "connection reset", a timeout) makes a retry of the
		// same credentials safe, and retrying them can lock the account.
		{Name: "permission", When: ErrorIs(os.ErrPermission), Then: auth},
		{Name: "http-status-auth", When: All(Any(errorStatus(401), All(errorStatus(403), Not(rateLimited))), Not(onlyExpired)),
			Then: auth},
		{Name: "credentials-rejected", When: rejected, Then: auth},
		// A token that has only expired: most clients fetch a fresh one on
		// the next request, so the first failure is worth one retry; a
		// second means the client does not renew it.
		{Name: "expired-token", When: expired,
			Then: TransientOnce("the access token or session expired", expiredGuidance)},
		// Cloudflare's rate-limit page (error 1015) is titled "Access
		// denied" but asks the caller to slow down.
		{Name: "cdn-rate-limit", When: All(n.phrases("error 1015"), rateLimited),
			Then: Transient("the service is rate limiting the caller")},
		{Name: "credential-timeout", When: credentialFetchTimedOut(n),
			Then: Transient("fetching credentials timed out")},
		{Name: "auth", When: Any(textStatus(401), authWording(n), rejected, beyond.phrasesBeyondWindow(rejectionNeedles...)), Then: auth},
		{Name: "untrusted-certificate", When: Any(n.phrases(untrustedCertificateNeedles...),
			beyond.phrasesBeyondWindow(untrustedCertificateNeedles...)),
			Then: Escalate("the server's TLS certificate is not trusted", certificateGuidance)},
		// A bare 403, "Forbidden" or a firewall's block page, unless the
		// text says it is a rate limit (GitHub answers some rate limits with
		// 403) or a used-up quota.
		{Name: "forbidden", When: All(Any(textStatus(403), n.pattern(`\bforbidden\b`, "forbidden"), blockPage(n)), Not(rateLimited), Not(quota)),
			Then: auth},

		// Typed errors.
		{Name: "context-deadline", When: ErrorIs(context.DeadlineExceeded),
			Then: Transient("the call ran out of time (context deadline exceeded)")},
		{Name: "net-timeout", When: ErrorAs(func(e net.Error) bool { return e.Timeout() }),
			Then: Transient("a network operation timed out")},
		{Name: "dns-temporary", When: ErrorAs(func(e *net.DNSError) bool { return e.IsTemporary || e.IsTimeout }),
			Then: Transient("a DNS lookup failed for now")},
		{Name: "connection-errno", When: ErrorIs(connectionErrnos...),
			Then: Transient("the connection was refused, reset or broken")},
		{Name: "connection-closed", When: ErrorAs(func(e *url.Error) bool {
			return errchain.Is(e.Err, io.EOF) || errchain.Is(e.Err, io.ErrUnexpectedEOF)
		}), Then: Transient("the server closed the connection before answering")},
		{Name: "retry-after-error", When: Condition{match: func(v *failureView) bool {
			return errchain.RetryAfter(v.f.Err) > 0
		}}, Then: Transient("the service asked for a later retry")},
		{Name: "http-status-transient", When: All(errorStatus(transientStatuses...), Not(permanent)),
			Then: Transient("the service answered with a transient HTTP status")},

		// Text: what must not be taken for what it resembles.
		{Name: "go-runtime-bug", When: goRuntimeFailure(n),
			Then: Skip("a Go runtime failure is a bug, not a transient condition")},
		{Name: "too-large", When: tooLargeWording(n),
			Then: Skip("the request is too large for the service; only a smaller request can succeed")},
		{Name: "quota", When: quota,
			Then: Escalate("the account's quota or billing limit is used up", quotaGuidance)},
		{Name: "missing-program", When: missingProgram(n),
			Then: Skip("the tool's program or a file it needs is missing; retrying cannot start it")},

		// Text: transient failures.
		{Name: "rate-limit", When: rateLimited, Then: Transient("the service is rate limiting the caller")},
		{Name: "overloaded", When: overloadWording(n), Then: Transient("the service is overloaded or briefly unavailable")},
		{Name: "failover", When: failoverWording(n),
			Then: Transient("the service is electing a leader or short of live replicas")},
		{Name: "at-capacity", When: capacityWording(n),
			Then: Transient("the service is at capacity for now")},
		{Name: "concurrent-change", When: conflictWording(n),
			Then: Transient("a concurrent change or operation got in the way; the same call can run again")},
		{Name: "connection-lost", When: closedConnectionWording(n),
			Then: Transient("the connection or channel was closed under the call")},
		{Name: "retry-hint", When: Condition{match: func(v *failureView) bool {
			_, ok := v.retryAfter()
			return ok
		}}, Then: Transient("the service asked for a retry after a delay")},
		{Name: "http-status", When: Any(textStatus(transientStatuses...),
			n.phrases("bad gateway", "gateway timeout", "gateway time-out", "internal server error")),
			Then: Transient("the service answered with a transient HTTP status")},
		{Name: "grpc", When: grpcTransient(n),
			Then: Transient("the RPC failed with a transient gRPC code")},
		{Name: "timeout", When: timeoutWording(n), Then: Transient("the operation timed out")},
		{Name: "network", When: networkWording(n), Then: Transient("the network connection failed")},
		{Name: "database", When: databaseWording(n),
			Then: Transient("the database aborted the transaction (deadlock, serialization failure, lock timeout) or is busy")},
	}
})

// transientStatuses are the HTTP statuses a later retry can get past: 408
// Request Timeout, 425 Too Early, 429 Too Many Requests, 500, 502, 503, 504,
// and 529 (Anthropic's "overloaded").
var transientStatuses = []int{408, 425, 429, 500, 502, 503, 504, 529}
