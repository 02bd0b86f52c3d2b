package rules

import (
	"math"
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
	keys := []string{"api key", "api_key", "api-key", "apikey"}
	return Any(
		n.endingAt(`(?:invalid|incorrect|missing|expired|revoked|disabled|suspended|not (?:a )?valid|no valid|not provided|forgot to include|not found)\W+(?:\w+\W+){0,4}?api[ _-]?key$`,
			keys...),
		n.startingAt(`^api[ _-]?key\W+(?:\w+\W+){0,3}?(?:is |was |has )?(?:invalid|incorrect|missing|expired|revoked|disabled|suspended|deactivated|banned|blocked|not (?:valid|found|provided))`,
			keys...),
	)
}

// rejectionNeedles are the words that mean the credentials were refused or
// a permission denied, without saying why: a token that has only expired
// is refused in the same words ("401 Unauthorized", "AccessDeniedException:
// The security token included in the request is expired"), so these are
// asked after the expired-token rule. The stock table looks for them beyond
// the scan window too, and lets them win over any transient word beside
// them.
var rejectionNeedles = []string{
	// Access and permission.
	"access denied", "accessdenied", "access_denied", "access is denied",
	"permission denied", "permission_denied", "permissiondenied",
	"requested access to the resource is denied",
	// Authentication.
	"unauthenticated", "unauthorized", "authentication failed", "authenticationfailed",
	"unable to authenticate", "must be logged in", "to provide credentials",
	// Tokens.
	"expiredtoken", "token has expired", "token is expired", "token has been expired", "expired token",
	"security token included in the request is",
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
		"aadsts",
		// Permission.
		"not authorized", "authorizationfailed", "authorizationpermissionmismatch",
		"insufficientpermissions", "insufficient permission", "does not have permission",
		"do not have permission", "don't have permission", "missing permissions", "permission_error",
		"missing access", "resource not accessible by", "must have admin rights",
		"is forbidden: user", "operation not permitted",
	), n.pattern(`\beacces\b`, "eacces"))
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

// requestExceedsLimit holds when a rate limit's message shows that the
// request alone asks for more than the whole limit: no wait can let it
// through. The figures are read where the word "limit" occurs, as OpenAI
// and Groq state them: "Limit 30000, Used 29937, Requested 385", "Limit
// 7000, Used 0, Requested ~12903".
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
		if limit, requested, ok := limitFigures(v.lower[at:min(len(v.lower), at+80)]); ok {
			return requested > limit
		}
		from = at + 1
	}
}

// limitFigures reads "limit[:] N[ / unit][,] [used[:] N[,]] requested[:]
// [~]N" at the start of s, the numbers with or without thousands commas,
// without allocating.
func limitFigures(s string) (limit, requested int, ok bool) {
	c := cursor(strings.TrimPrefix(s, "limit"))
	c.skip(":")
	c.spaces()
	if limit, ok = c.number(); !ok {
		return 0, 0, false
	}
	// An optional unit: "Limit 30000 / min".
	unit := c
	unit.spaces()
	if unit.skip("/") {
		unit.spaces()
		if unit.word() {
			c = unit
		}
	}
	c.punct()
	c.spaces()
	if c.skip("used") {
		c.skip(":")
		c.spaces()
		if _, ok := c.number(); !ok {
			return 0, 0, false
		}
		c.punct()
		c.spaces()
	}
	if !c.skip("requested") {
		return 0, 0, false
	}
	c.skip(":")
	c.spaces()
	c.skip("~")
	requested, ok = c.number()
	return limit, requested, ok
}

// cursor is the rest of a text being read by limitFigures.
type cursor string

// skip consumes prefix when the text starts with it.
func (c *cursor) skip(prefix string) bool {
	if strings.HasPrefix(string(*c), prefix) {
		*c = (*c)[len(prefix):]
		return true
	}
	return false
}

// punct consumes one comma, full stop or semicolon, if the text starts
// with one.
func (c *cursor) punct() {
	if len(*c) > 0 && ((*c)[0] == ',' || (*c)[0] == '.' || (*c)[0] == ';') {
		*c = (*c)[1:]
	}
}

// spaces consumes white space and reports whether there was any.
func (c *cursor) spaces() bool {
	n := 0
	for n < len(*c) && ((*c)[n] == ' ' || (*c)[n] == '\t' || (*c)[n] == '\n' || (*c)[n] == '\r') {
		n++
	}
	*c = (*c)[n:]
	return n > 0
}

// word consumes letters, digits and underscores and reports whether there
// were any.
func (c *cursor) word() bool {
	n := 0
	for n < len(*c) && isWordByte((*c)[n]) {
		n++
	}
	*c = (*c)[n:]
	return n > 0
}

// number consumes digits and the commas between them and returns their
// value; it fails on no digit or a value too large for an int.
func (c *cursor) number() (int, bool) {
	n, value, digits := 0, 0, 0
	for n < len(*c) && (isDigit((*c)[n]) || (*c)[n] == ',' && digits > 0) {
		if d := (*c)[n]; d != ',' {
			if value > (math.MaxInt-9)/10 {
				return 0, false
			}
			value = value*10 + int(d-'0')
			digits++
		}
		n++
	}
	*c = (*c)[n:]
	return value, digits > 0
}

// tooLargePhrases are the fixed words of a request too large to pass.
// "Too many tokens" counts unless the text asks for a wait, as Amazon
// Bedrock's throttling of tokens per minute does ("Too many tokens, please
// wait before trying again").
func tooLargePhrases(n *needleSet) Condition {
	return Any(All(n.phrases("too many tokens"), Not(n.phrases("please wait", "throttl", "try again"))), n.phrases(
		"request too large", "larger than max", "message too large",
		"maximum context length", "context_length_exceeded", "context length exceeded",
		"prompt is too long", "reduce the length of the messages",
		"payload too large", "request entity too large", "string_above_max_length",
	))
}

// quotaWording holds when a quota or billing limit is used up for longer
// than a retry can wait: OpenAI's insufficient_quota, a credit balance, a
// daily or monthly limit, a quota whose limit is 0. It wins over a retry
// delay the message gives ("You exceeded your current quota ... Please retry
// in 36s": the quota is still used up then). A quota per minute or per
// second is a rate limit instead, unless the text also says it is daily or
// its limit is 0; and a rate limit said to be daily, with no delay to wait,
// is a used-up quota too.
func quotaWording(n *needleSet, rateLimited, period Condition) Condition {
	daily := n.phrases("per day", "perday", "per_day", "per-day", "daily", "(rpd)", "(tpd)",
		"per month", "permonth", "per_month", "monthly")
	return Any(
		All(
			n.phrases(
				"insufficient_quota", "exceeded your current quota", "check your plan and billing",
				"credit balance is too low", "billing hard limit", "billing_hard_limit",
				"dailylimitexceeded", "daily limit exceeded", "quota exceeded", "quotaexceeded",
				"payment required", "insufficient credit", "servicequotaexceeded", "exceeds the service quota",
				"quota has been exhausted", "quota exhausted", "quota_exhausted", "exhausted your quota",
				"quota has been exceeded for", "billing_not_active", "check your billing details",
				"insufficient balance", "insufficient_balance", "out of credits", "credits exhausted",
				"reached your specified api usage limits", "spending limit", "usage limit reached",
				"daily limit", "daily quota", "monthly limit", "monthly quota", "try again tomorrow",
				"trial has expired", "trial expired", "subscription has expired", "subscription expired",
				"exceeded your daily", "daily request quota", "quota_exceeded", "exceeds your quota", "account has run out of", "you have run out of",
			),
			// Kafka's THROTTLING_QUOTA_EXCEEDED is a rate limit.
			Not(n.phrases("throttlingquota", "throttling quota", "throttling_quota")),
			Any(Not(period), daily, n.pattern(`\blimit: ?0\b`, "limit: 0", "limit:0")),
		),
		All(rateLimited, daily, Not(Condition{match: func(v *failureView) bool {
			_, ok := v.retryAfter()
			return ok
		}})),
	)
}

// ratePeriod holds when the text names a short period, as the limits of a
// rate limit do: per second, per minute, per hour, "(TPM)".
func ratePeriod(n *needleSet) Condition {
	return n.phrases("per minute", "perminute", "per_minute", "per-minute", "per min", "/min",
		"per second", "persecond", "per_second", "per-second", "per 100 seconds", "per hour", "perhour", "per_hour",
		"(rpm)", "(tpm)", "(rps)")
}

// rateLimitWording holds when the text says the caller is being rate
// limited. A setting named "rate limit" is not enough: the words must say
// that a limit was hit.
func rateLimitWording(n *needleSet, period Condition) Condition {
	return Any(
		n.startingAt(`^rate[ _-]?limit(?:ed\b|[ _-]?(?:exceeded|reached|error|hit)|s? (?:is |was |has been )?(?:exceeded|reached)|`+
			`s? (?:will )?resets?\b|s? (?:for|on) (?:\S+ ){0,4}?(?:exceeded|reached)\b)`,
			"rate limit", "rate_limit", "rate-limit", "ratelimit"),
		n.pattern(`(?:exceed(?:ed|s|ing)?|reached|hit) (?:\S+ ){0,4}?rate[ _-]?limits?\b`, "rate limit", "rate_limit", "rate-limit", "ratelimit"),
		// Cohere's "limited to 10 API calls / minute", Shopify's "Exceeded 2
		// calls per second".
		n.startingAt(`^(?:limited to [\d,]+ (?:api )?(?:calls|requests) ?(?:/|per) ?(?:second|minute|min)\b|`+
			`exceeded [\d,]+ (?:api )?(?:calls|requests) (?:/|per) ?(?:second|minute)\b)`,
			"limited to ", "exceeded "),
		n.phrases(
			"too many requests", "toomanyrequests", "too_many_requests", "throttl", "slowdown", "slow down",
			"reduce your request rate", "request rate is large", "request rate is too large",
			"requestlimitexceeded", "request_limit_exceeded", "provisionedthroughputexceeded", "exceeds the current capacity",
			"flood control", "flood_wait", "rate exceeded", "abuse detection mechanism", "submitted too quickly",
			"concurrency limit exceeded", "too many concurrent requests", "reduce request rates",
			"secondly limit", "secondly_rolling limit", "too many api requests", "too much request weight used",
			`"ratelimit"`, `'ratelimit'`,
		),
		All(n.phrases("quota"), period),
	)
}

// overloadWording holds when the service says it is overloaded, busy or
// unavailable for now. A "try again later" beside words that say nothing
// about the failure ("Something went wrong") does not count.
func overloadWording(n *needleSet) Condition {
	return Any(
		n.pattern(`(?:^|[^\w])overloaded(?:_error|[.'"}\]]|$)|(?:is|are|currently|temporarily|node) overloaded|overloaded with`,
			"overloaded"),
		All(n.startingAt(`^(?:retry (?:\w+ ){0,3}?later|try again (?:later|shortly|in a (?:moment|few|little))|`+
			`please retry the request|retrying may solve the problem)`,
			"retry", "try again", "please retry"), Not(vagueWording(n))),
		n.phrases(
			"server is busy", "server busy", "serverbusy", "service is busy", "system is busy",
			"server is too busy", "high demand", "resource has been exhausted", "resource exhausted",
			"temporarily unavailable", "temporarily_unavailable", "service unavailable", "serviceunavailable",
			"service_unavailable", "service is unavailable", "is not currently available",
			"insufficient capacity", "insufficientinstancecapacity", "at capacity",
			"upstream connect error", "is currently loading", "overloadedexception",
			"internal error encountered", "backenderror", "backend error", "we encountered an internal error",
			"server had an error while processing your request", "the service has encountered an error processing your request",
			"please try resubmitting your request", "internalservererror", "internal_server_error",
			"taking way too long to load", "web server is down", "modelnotreadyexception",
			`"status": "unknown_error"`, `"status":"unknown_error"`,
		),
	)
}

// grpcTransient holds for the gRPC codes a retry can get past, as Go
// ("code = Unavailable"), Python ("StatusCode.UNAVAILABLE"), Java
// ("StatusRuntimeException: UNAVAILABLE"), Node ("14 UNAVAILABLE: ..."),
// .NET ("StatusCode=Unavailable") and Google's JSON ("status":
// "UNAVAILABLE") write them.
func grpcTransient(n *needleSet) Condition {
	return Any(n.phrases(
		// Google's Python clients name the gRPC code in the exception.
		"api_core.exceptions.aborted", "api_core.exceptions.serviceunavailable",
		"api_core.exceptions.deadlineexceeded", "api_core.exceptions.toomanyrequests",
		"api_core.exceptions.internalservererror",
	), n.startingAt(`^(?:code = (?:unavailable|deadlineexceeded|resourceexhausted|aborted)\b|`+
		`statuscode\.(?:unavailable|deadline_exceeded|resource_exhausted|aborted)\b|`+
		`statusruntimeexception: (?:unavailable|deadline_exceeded|resource_exhausted|aborted)\b|`+
		`statuscode=\\?"?(?:unavailable|deadlineexceeded|resourceexhausted|aborted)\b|`+
		`(?:14 unavailable|4 deadline_exceeded|8 resource_exhausted|10 aborted):|`+
		`"status": ?"(?:unavailable|resource_exhausted|deadline_exceeded|aborted)"|`+
		`grpc_status: ?(?:14|4|8|10)\b)`,
		"code = ", "statuscode.", `"status": "`, `"status":"`, "grpc_status", "statusruntimeexception",
		"statuscode=", "14 unavailable:", "4 deadline_exceeded:", "8 resource_exhausted:", "10 aborted:"))
}

// timeoutWording holds when an operation timed out. A sentence about a
// timeout setting ("timeout must be positive", "invalid timeout") does not.
func timeoutWording(n *needleSet) Condition {
	return Any(
		timeoutPhrases(n),
		// Stripe's lock_timeout, but not a setting such as deadlock_timeout.
		n.pattern(`\block_timeout\b`, "lock_timeout"),
		// axios: "timeout of 10000ms exceeded".
		n.pattern(`\btimeout of \d+ ?m?s exceeded`, "timeout of "),
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
		"due to lock timeout", "due to statement timeout", "connect timeout error", "connect timeout occurred",
		"nats: timeout", "a timeout occurred", "operation exceeded time limit", "exceededtimelimit",
		"deadline expired", "could not be completed within the specified time",
		"did not complete within the allocated time", "may be the result of a timeout",
		"respond to your request in time", "within the timeout period",
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
		// kubectl: "The connection to the server 10.0.0.1:6443 was refused".
		n.pattern(`connection to (?:the )?server \S+ was refused`, "was refused"),
		// Go's net/http: `Get "https://...": EOF`.
		n.patternWhole(`"[a-z]+://[^"]*": (?:unexpected )?eof$`, `": eof`, `": unexpected eof`),
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
