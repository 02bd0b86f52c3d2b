package rules

import (
	"regexp"
	"strconv"
	"strings"
)

// The wording of the stock table. Every condition reads the lower-cased
// text. Each pattern sits behind needles (plain substrings that any match
// must contain), so a text that has none of them costs a few substring
// searches and no regular expression.

// goRuntimeFailure holds for a Go runtime failure: a bug, even where its
// words ("deadlock", "timed out") would read as transient.
func goRuntimeFailure(n *needleSet) Condition {
	return n.phrases(
		"all goroutines are asleep",
		"panic: runtime error",
		"nil pointer dereference",
		"concurrent map writes",
		"concurrent map read and map write",
		"panic: test timed out after",
	)
}

// authWording holds when the text says the caller is not authenticated or
// not allowed. "forbidden" alone is left to its own rule, because GitHub
// sends some rate limits as 403 Forbidden.
func authWording(n *needleSet) Condition {
	return Any(authPhrases(n), apiKeyTrouble(n))
}

// apiKeyTrouble holds when an API key is said to be invalid, missing,
// expired or switched off, in any of the ways APIs word it ("Invalid API Key
// provided", "You have not provided a valid API Key", "forgot to include an
// API key", "invalid value: api_key = ...", "API key has been disabled").
func apiKeyTrouble(n *needleSet) Condition {
	return n.pattern(`(?:invalid|incorrect|missing|expired|revoked|disabled|suspended|not (?:a )?valid|no valid|not provided|forgot to include|not found)\W+(?:\w+\W+){0,4}?api[ _-]?key\b|`+
		`\bapi[ _-]?key\W+(?:\w+\W+){0,3}?(?:is |was |has )?(?:invalid|incorrect|missing|expired|revoked|disabled|suspended|deactivated|banned|blocked|not (?:valid|found|provided))`,
		"api key", "api_key", "api-key", "apikey")
}

// rejectionNeedles are the words that mean the credentials were rejected or
// a permission refused, wherever they stand: the stock table looks for them
// beyond the scan window too, and lets them win over any transient word
// beside them (a 503 that says the account is suspended, an SSH
// authentication failure followed by "connection reset").
var rejectionNeedles = []string{
	// Access and permission.
	"access denied", "accessdenied", "access_denied", "access is denied",
	"permission denied", "permission_denied", "permissiondenied",
	"requested access to the resource is denied",
	// Authentication.
	"unauthenticated", "unauthorized", "authentication failed", "authenticationfailed",
	"password authentication failed", "login failed for user", "bad credentials", "invalid credentials",
	"invalid username or password", "username and password not accepted",
	"unable to authenticate", "no supported methods remain", "too many authentication failures",
	"must be logged in", "to provide credentials", "login was refused", "access_refused",
	// Tokens and keys.
	"invalid_grant", "invalid_client", "expiredtoken", "token has expired", "token is expired",
	"token has been expired", "token has been revoked", "token_revoked", "expired token",
	"incorrect api key", "invalid api key", "invalid_api_key", "api key not valid", "api_key_invalid",
	"security token included in the request is", "invalidclienttokenid",
	"signaturedoesnotmatch", "invalidaccesskeyid",
	// Accounts.
	"account has been suspended", "account is suspended", "account was suspended", "account suspended",
	"store has been suspended", "project has been suspended", "consumer_suspended",
	"account has been disabled", "account is disabled", "account has been deactivated", "account_deactivated",
	"account_inactive", "organization has been disabled", "organization has been restricted",
	"access was terminated", "service has been disabled in this account",
	"subscription is disabled", "readonlydisabledsubscription",
}

// authPhrases are the fixed words of authentication and permission
// failures: the rejection needles, and words too loose to count beyond the
// scan window.
func authPhrases(n *needleSet) Condition {
	return Any(n.phrases(rejectionNeedles...), n.phrases(
		// API keys and tokens.
		"invalid x-api-key", "invalid api-key", "invalidapikey",
		"api key expired", "api key is invalid", "missing api key", "no api key",
		"invalid_token", "invalid authentication credentials", "insufficient authentication scopes",
		"invalid_auth", "not_authed", "no valid providers in chain", "nocredentialproviders",
		"unable to locate credentials", "could not load credentials",
		"failed to refresh cached credentials",
		// Authentication.
		"authentication_error", "authenticationerror", "authentication required",
		"requires authentication", "no pg_hba.conf entry", "noauth authentication required", "wrongpass",
		// Permission.
		"not authorized", "authorizationfailed", "authorizationpermissionmismatch",
		"insufficientpermissions", "insufficient permission", "does not have permission",
		"do not have permission", "don't have permission", "missing permissions", "permission_error",
		"missing access", "resource not accessible by", "must have admin rights",
		"is forbidden: user", "operation not permitted", "eacces",
	))
}

// blockPage holds for the page a web application firewall or CDN answers a
// refused request with (CloudFront's "Request blocked.", Cloudflare's "Sorry,
// you have been blocked", Imperva's incident page, F5's "The requested URL
// was rejected"): the caller is refused, whatever "try again later" it says.
func blockPage(n *needleSet) Condition {
	return n.phrases("request blocked", "you have been blocked", "incapsula incident id", "the requested url was rejected")
}

// untrustedCertificateNeedles are the words of a TLS certificate that the
// caller cannot trust: an unknown authority, an expired certificate, one
// issued for another name, or a client certificate the server refused.
// Like rejected credentials, only a human can fix them, and they are looked
// for beyond the scan window too.
var untrustedCertificateNeedles = []string{
	"x509: certificate signed by unknown authority", "x509: certificate has expired",
	"x509: certificate is valid for", "x509: certificate is not valid", "x509: certificate is not trusted",
	"certificate_verify_failed", "certificate verify failed", "unable to find valid certification path",
	"pkix path building failed", "self signed certificate in certificate chain",
	"self-signed certificate in certificate chain", "unable to verify the first certificate",
	"unable to get local issuer certificate", "cert_has_expired",
	"tls: bad certificate", "tls: unknown certificate authority", "tls: certificate required",
}

// tooLargeWording holds when the request is too large for the service: a
// 429 or ResourceExhausted that no wait can cure.
func tooLargeWording(n *needleSet) Condition {
	return Any(tooLargePhrases(n), Condition{match: requestExceedsLimit})
}

// requestExceedsLimitPattern reads the figures of a token or request rate
// limit as OpenAI and Groq state them: "Limit 30000, Used 29937, Requested
// 385", "Limit 7000, Used 0, Requested ~12903".
var requestExceedsLimitPattern = regexp.MustCompile(`^limit:?\s*([\d,]+)(?:\s*/\s*\w+)?[,.;]?\s*(?:used:?\s*[\d,]+[,.;]?\s*)?requested:?\s*~?([\d,]+)`)

// requestExceedsLimit holds when a rate limit's message shows that the
// request alone asks for more than the whole limit: no wait can let it
// through. The figures are read where the word "limit" occurs.
func requestExceedsLimit(v *failureView) bool {
	if !strings.Contains(v.lower, "requested") {
		return false
	}
	for from := 0; ; {
		i := strings.Index(v.lower[from:], "limit")
		if i < 0 {
			return false
		}
		at := from + i
		m := requestExceedsLimitPattern.FindStringSubmatch(v.lower[at:min(len(v.lower), at+80)])
		if m != nil {
			limit, err1 := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			requested, err2 := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			return err1 == nil && err2 == nil && requested > limit
		}
		from = at + 1
	}
}

// tooLargePhrases are the fixed words of a request too large to pass.
func tooLargePhrases(n *needleSet) Condition {
	return n.phrases(
		"request too large", "larger than max", "message too large",
		"maximum context length", "context_length_exceeded", "context length exceeded",
		"prompt is too long", "reduce the length of the messages", "too many tokens",
		"payload too large", "request entity too large", "string_above_max_length",
	)
}

// quotaWording holds when a quota or billing limit is used up for longer
// than a retry can wait: OpenAI's insufficient_quota, a credit balance, a
// daily limit. A quota per minute or per second, or one whose message gives
// a retry delay, is a rate limit instead.
func quotaWording(n *needleSet) Condition {
	return All(
		n.phrases(
			"insufficient_quota", "exceeded your current quota", "check your plan and billing",
			"credit balance is too low", "billing hard limit", "billing_hard_limit",
			"dailylimitexceeded", "daily limit exceeded", "quota exceeded", "quotaexceeded",
			"payment required", "insufficient credit",
		),
		Not(n.phrases("per minute", "perminute", "per second", "persecond")),
		Not(Condition{match: func(v *failureView) bool {
			_, ok := retryAfterInText(v.text, v.lower, v.now)
			return ok
		}}),
	)
}

// rateLimitWording holds when the text says the caller is being rate
// limited. A setting named "rate limit" is not enough: the words must say
// that a limit was hit.
func rateLimitWording(n *needleSet) Condition {
	return Any(
		n.pattern(`rate[ _-]?limit(?:ed\b|[ _-]?(?:exceeded|reached|error|hit)|s? (?:is |was |has been )?(?:exceeded|reached))|`+
			`exceed(?:ed|s|ing)? (?:\S+ ){0,4}?rate[ _-]?limits?\b`,
			"rate limit", "rate_limit", "rate-limit", "ratelimit"),
		n.phrases(
			"too many requests", "toomanyrequests", "throttl", "slowdown", "slow down",
			"reduce your request rate", "request rate is large", "request rate is too large",
			"requestlimitexceeded", "provisionedthroughputexceeded", "exceeds the current capacity",
			"flood control", "flood_wait",
		),
		All(n.phrases("quota"), n.phrases("per minute", "perminute", "per second", "persecond")),
	)
}

// overloadWording holds when the service says it is overloaded, busy or
// unavailable for now.
func overloadWording(n *needleSet) Condition {
	return Any(
		n.pattern(`(?:^|[^\w])overloaded(?:_error|[.'"}]|$)|(?:is|are|currently|temporarily) overloaded|overloaded with`,
			"overloaded"),
		n.pattern(`retry (?:this request |your request |the request )?later|try again later|try again shortly|`+
			`try again in a (?:moment|few|little)`,
			"retry", "try again"),
		n.phrases(
			"server is busy", "server busy", "serverbusy", "service is busy", "system is busy",
			"server is too busy", "high demand", "resource has been exhausted", "resource exhausted",
			"temporarily unavailable", "service unavailable", "serviceunavailable",
			"insufficient capacity", "insufficientinstancecapacity", "at capacity",
			"upstream connect error", "is currently loading",
		),
	)
}

// grpcTransient holds for the gRPC codes a retry can get past, as Go
// ("code = Unavailable"), Python ("StatusCode.UNAVAILABLE") and Google's
// JSON ("status": "UNAVAILABLE") write them.
func grpcTransient(n *needleSet) Condition {
	return n.pattern(`code = (?:unavailable|deadlineexceeded|resourceexhausted|aborted)\b|`+
		`statuscode\.(?:unavailable|deadline_exceeded|resource_exhausted|aborted)\b|`+
		`"status": ?"(?:unavailable|resource_exhausted|deadline_exceeded|aborted)"|`+
		`grpc_status: ?(?:14|4|8|10)\b`,
		"code = ", "statuscode.", `"status": "`, `"status":"`, "grpc_status")
}

// timeoutWording holds when an operation timed out. A sentence about a
// timeout setting ("timeout must be positive", "invalid timeout") does not.
func timeoutWording(n *needleSet) Condition {
	return Any(
		timeoutPhrases(n),
		// Stripe's lock_timeout, but not a setting such as deadlock_timeout.
		n.pattern(`\block_timeout\b`, "lock_timeout"),
		// A message that is nothing but a timeout (OkHttp's "timeout").
		All(Condition{match: func(v *failureView) bool { return len(v.lower) <= 32 }},
			n.pattern(`^\W*(?:timeout|timed out|time out)\W*$`, "time")),
	)
}

// timeoutPhrases are the fixed words of an operation that timed out.
func timeoutPhrases(n *needleSet) Condition {
	return n.phrases(
		"i/o timeout", "deadline exceeded", "deadlineexceeded", "deadline_exceeded",
		"timed out", "timedout", "timeout exceeded", "timeout expired", "timeout awaiting",
		"timeout was reached", "handshake timeout", "upstream request timeout",
		"timeouterror", "timeoutexception", "sockettimeout", "etimedout",
		"due to lock timeout",
	)
}

// networkWording holds when a connection was refused, reset, closed early or
// could not be routed, or a name lookup failed for now.
func networkWording(n *needleSet) Condition {
	return Any(
		n.phrases(
			"connection refused", "econnrefused", "actively refused",
			"connection reset", "econnreset", "reset by peer", "broken pipe", "epipe",
			"socket hang up", "connection aborted", "econnaborted", "forcibly closed",
			"server closed idle connection", "transport is closing", "connection error: desc",
			"network is unreachable", "enetunreach", "no route to host", "ehostunreach",
			"host is unreachable", "eai_again", "temporary failure in name resolution",
			"server misbehaving", "remote end closed connection", "server sent goaway",
			"connection closed before", "eof occurred in violation of protocol",
			"unexpected_eof_while_reading", "networkerror when attempting",
			"lost connection to mysql server", "server has gone away", "driver: bad connection",
			"server closed the connection unexpectedly",
		),
		// Go's net/http: `Get "https://...": EOF`.
		n.pattern(`"[a-z]+://[^"]*": (?:unexpected )?eof$`, `": eof`, `": unexpected eof`),
	)
}

// databaseWording holds when a database aborted a transaction that can run
// again (a deadlock, a serialization failure, a lock timeout) or is busy
// for now.
func databaseWording(n *needleSet) Condition {
	return n.phrases(
		"deadlock detected", "deadlock found when trying to get lock", "deadlocked on lock resources",
		"deadlock victim", "40p01", "sqlstate 40001", "sqlstate[40001]", "sqlstate: 40001",
		"could not serialize access", "serialization failure", "error 1213", "error 1205",
		"lock wait timeout exceeded", "try restarting transaction", "restart transaction",
		"database is locked", "sqlite_busy", "database table is locked",
		"the database system is starting up", "the database system is shutting down",
		"the database system is in recovery mode", "too many clients already", "too many connections",
		"remaining connection slots are reserved", "terminating connection due to administrator command",
		"is loading the dataset in memory", "busy redis is busy", "tryagain", "clusterdown",
		"could not obtain lock", "could not be acquired immediately", "55p03",
		"can't write against a read only replica",
	)
}

// credentialFetchTimedOut holds when an "unauthenticated" failure says the
// credentials could not be fetched in time (gRPC's per-RPC credentials, an
// OAuth token endpoint that timed out): a network timeout, not a rejection.
func credentialFetchTimedOut(n *needleSet) Condition {
	return All(
		n.phrases("per-rpc creds failed", "cannot fetch token", "failed to fetch token", "failed to refresh token"),
		timeoutWording(n),
	)
}
