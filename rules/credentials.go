package rules

import (
	"regexp"
	"strconv"
	"strings"
)

// The wording of credentials, in two kinds. Credentials the text says are
// revoked, invalid, disabled or rejected are refused for good: no retry can
// pass, whatever transient word stands beside them, and retrying them can
// lock the account. A token the text says has only expired (an OAuth access
// token, a JWT, an STS session token) is a different case: most clients
// fetch a fresh one on the next request, so one retry is right, and a second
// expiry in the same call means the client does not refresh it.

// hardRejectionNeedles are the words of credentials refused for good. The
// stock table asks them first, through the first authScanLimit bytes of the
// text, and they win over everything else, an expired token included ("Token
// has been expired or revoked").
var hardRejectionNeedles = []string{
	// Passwords and usernames.
	"password authentication failed", "login failed for user", "bad credentials", "invalid credentials",
	"invalid username or password", "incorrect username or password", "username and password not accepted",
	"no supported methods remain", "too many authentication failures", "login was refused", "access_refused",
	"password has expired", "password expired", "authorization violation",
	// Tokens, keys and certificates.
	"invalid_grant", "invalid_client", "unauthorized_client", "token has been revoked", "token_revoked",
	"token was revoked", "token is revoked", "key was revoked", "key has been revoked", "key is revoked",
	"credentials have been revoked", "credentials were revoked", "access has been revoked", "access was revoked",
	"expired or revoked", "revoked or expired", "invalid or expired", "expired or invalid",
	"invalid or has expired", "expired or is otherwise invalid", "refresh failed", "refresh token is not set",
	"incorrect api key", "invalid api key", "invalid_api_key", "api key not valid", "api_key_invalid",
	"security token included in the request is invalid", "invalidclienttokenid", "unrecognizedclientexception",
	"signaturedoesnotmatch", "invalidaccesskeyid",
	"credentials rejected", "credentials were rejected", "credential rejected", "rejected credentials",
	"rejected our client certificate", "rejected the client certificate", "client certificate was rejected",
	"client certificate rejected",
	// Accounts and organisations.
	"account has been suspended", "account is suspended", "account was suspended", "account suspended",
	"store has been suspended", "project has been suspended", "consumer_suspended",
	"account has been disabled", "account is disabled", "account disabled", "account has been deactivated",
	"account_deactivated", "account_inactive", "account has been locked", "account is locked", "account locked",
	"organization has been disabled", "organization is disabled", "organization disabled",
	"organisation has been disabled", "organisation disabled", "organization has been restricted",
	"disabled by administrator", "disabled by an administrator", "disabled by your administrator",
	"user is disabled", "user_disabled", "access was terminated", "service has been disabled in this account",
	"subscription is disabled", "readonlydisabledsubscription",
}

// credentialsRejected holds when the text says credentials were refused for
// good: one of hardRejectionNeedles anywhere in its first authScanLimit
// bytes, or, in the scan window, a credential or an account next to a word
// that refuses it ("the API token you supplied was revoked", "the upstream
// rejected our client certificate", "organization disabled by
// administrator", "the refresh token has expired"). A password, an API key,
// a client secret, a refresh token or a certificate that has expired is
// refused for good too: no client renews it by itself.
func credentialsRejected(n, beyond *needleSet) Condition {
	return Any(
		n.phrases(hardRejectionNeedles...),
		beyond.phrasesBeyondWindow(hardRejectionNeedles...),
		// A credential, then a word that refuses it: "the API token you
		// supplied was revoked", "credentials rejected by server".
		All(n.phrases(credentialWords...), n.endingAt(`\b(?:api[ _-]?(?:key|token)|access[ _-]?(?:key|token)|secret|bearer[ _-]?token|token|credentials?|`+
			`client[ _-]?certificate|password)\b(?:\W+\w+){0,5}?\W+(?:(?:was|were|has been|have been|is|are|got|been)\W+)?`+
			`(?:revoked|rejected|invalidated|deactivated|disabled|no longer valid)$`,
			"revoked", "rejected", "invalidated", "deactivated", "disabled", "no longer valid")),
		// A word that refuses, then what it refuses: "the upstream rejected
		// our client certificate", "disabled organization".
		All(n.phrases("key", "token", "secret", "credential", "certificate", "password", "organi", "account"), n.startingAt(`^(?:revoked|rejected|invalidated|deactivated|disabled|suspended|banned)\W+(?:\w+\W+){0,3}?`+
			`(?:api[ _-]?keys?|access[ _-]?keys?|token|credentials?|client[ _-]?certificates?|passwords?|secrets?|`+
			`organi[sz]ations?|accounts?)\b`,
			"revoked", "rejected", "invalidated", "deactivated", "disabled", "suspended", "banned")),
		// "Invalid bearer token", "invalid API key", "token is invalid".
		n.startingAt(`^invalid (?:\w+ )?(?:api[ _-]?keys?|access[ _-]?keys?|token|client[ _-]?certificates?|passwords?|secrets?)\b`,
			"invalid "),
		n.startingAt(`^token\W+(?:is |was |has been )?(?:invalid|malformed)\b`, "token"),
		// An account or organisation switched off.
		All(n.phrases("organi", "account", "project", "tenant", "workspace", "subscription"), n.endingAt(`\b(?:organi[sz]ation|account|project|tenant|workspace|subscription)\b(?:\W+\w+){0,4}?\W+`+
			`(?:(?:was|has been|is|got)\W+)?(?:suspended|deactivated|disabled|banned|terminated)$`,
			"suspended", "deactivated", "disabled", "banned", "terminated")),
		// A credential that no client renews by itself, expired.
		All(n.phrases("refresh", "personal", "key", "api", "secret", "password"), n.endingAt(`\b(?:refresh[ _-]?token|personal[ _-]?access[ _-]?token|api[ _-]?(?:key|token)|client[ _-]?secret|secret[ _-]?key|password)s?\b`+
			`(?:\W+\w+){0,4}?\W+(?:(?:has|have|is|are|was|were)\W+)?(?:been\W+)?expired$`,
			"expired")),
	)
}

// credentialWords are the words one of which every credential the
// patterns of credentialsRejected name holds.
var credentialWords = []string{"key", "token", "secret", "credential", "certificate", "password"}

// expiredTokenNeedles are the words of a token or session that has expired.
var expiredTokenNeedles = []string{
	"expiredtoken", "expired_token", "token_expired", "tokenexpired", "access_token_expired",
	"accesstokenexpired", "expired_access_token", "expiredauthenticationtoken", "access token expiry",
	"jwt expired", "jwt is expired", "jwt has expired", "expiredjwtexception", "jwtexpired",
	"signature has expired", "expiredsignatureerror",
	"token expired", "token has expired", "token is expired", "token has been expired", "token was expired",
	"expired token", "expired access token", "expired bearer token", "expired session",
	"session expired", "session has expired", "session is expired",
	"security token included in the request is expired",
}

// expiredToken holds when the text says a token or session expired and
// nothing says the client already tried to renew it: a refresh that failed
// ("token expired and refresh failed", golang.org/x/oauth2's "token expired
// and refresh token is not set"), or retries the text itself counts ("attempt
// 5/8 failed"). Credentials refused for good are asked before it.
func expiredToken(n *needleSet) Condition {
	return All(
		Any(n.phrases(expiredTokenNeedles...),
			// "The access token provided has expired".
			All(n.phrases("token"), n.endingAt(`\btoken\b(?:\W+\w+){0,3}?\W+(?:(?:has|is|was|had)\W+)?(?:been\W+)?expired$`, "expired"))),
		Not(n.phrases(
			"failed to refresh", "unable to refresh", "could not refresh", "couldn't refresh",
			"cannot refresh", "can't refresh", "no refresh token", "sso login", "sso session",
		)),
		Not(Condition{match: textShowsRetries}),
	)
}

// retriesPattern reads a count of attempts the text states: "attempt 5/8",
// "attempt 2 of 4", "after 3 attempts", "retried 2 times".
var retriesPattern = regexp.MustCompile(`\battempts? #?(\d+) ?(?:/|of) ?\d+|\b(?:after|in) (\d+) (?:attempts|tries|retries)\b|` +
	`\bretried (\d+) times?\b`)

// textShowsRetries reports whether the text says the call was already made
// more than once: an attempt numbered 2 or more, 2 attempts or more, or a
// retry.
func textShowsRetries(v *failureView) bool {
	if !strings.Contains(v.lower, "attempt") && !strings.Contains(v.lower, "tries") && !strings.Contains(v.lower, "retried") {
		return false
	}
	for _, m := range retriesPattern.FindAllStringSubmatch(v.lower, 8) {
		for i, g := range m[1:] {
			k, err := strconv.Atoi(g)
			if err == nil && (k >= 2 || (i == 2 && k >= 1)) {
				return true
			}
		}
	}
	return false
}
