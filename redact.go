package reflection

import "strings"

// redactMark is what RedactSecrets puts in place of a secret.
const redactMark = "[REDACTED]"

// RedactSecrets returns s with the secrets it recognises replaced by
// "[REDACTED]". It is a stock function for WithRedactor and llm.WithRedactor,
// and it recognises three kinds of secret:
//
//   - a value of a known format, wherever it stands: the keys and tokens of
//     about sixty providers by their documented prefix or shape (OpenAI,
//     Anthropic, Google, AWS, Azure, GitHub, GitLab, Slack, Stripe,
//     SendGrid, npm, PyPI, Shopify, HashiCorp Vault, DigitalOcean, Hugging
//     Face and others), JSON Web Tokens, PEM private keys (a block cut
//     short is hidden as far as its body goes), and the secret part of
//     Slack, Discord and Teams webhook URLs;
//   - a credential by its place: the password of a URL or a Go SQL DSN
//     (user:password@tcp(...)), the credential after Bearer or Basic (a
//     Basic credential made of letters only is hidden when it decodes to
//     user:password), and the value of a --password style flag;
//   - the value of a field whose name says it holds a secret, in any of the
//     shapes error messages quote: key=value, key: value, "key": value
//     (string or number), JSON escaped inside a string ({\"key\":\"value\"}),
//     'key': 'value', <key>value</key>, and HTTP headers (Authorization keeps
//     its scheme word, Cookie and Set-Cookie lose their whole value). A name
//     says so when its last word is password, passwd, pwd, passphrase,
//     secret, token, apikey, session, sig or cookie (or ends in password,
//     secret or token, as PGPASSWORD does), or is pass, auth, signature or
//     credential(s) after another word (DB_PASS, X-Amz-Signature), or is key
//     after api, access, secret, private, account, client and the like
//     (aws_secret_access_key, AccountKey, x-api-key). Words split at _ - . and
//     at case changes, and the name may carry any prefix: DATABASE_PASSWORD,
//     TWILIO_AUTH_TOKEN. Names whose last word is something else keep their
//     value, so max_tokens=100, token_count: 512 and password_length: 12
//     stay as they are.
//
// It knows only these shapes: add your own for anything else. A text with
// nothing to hide comes back as it is, without a copy. It runs in time
// linear in len(s) and is safe for concurrent use.
func RedactSecrets(s string) string {
	if len(s) < len("pwd=ab") {
		return s
	}
	// Narrow spans go first, so a wider one hidden earlier cannot cut them
	// in two: tokens, then secrets found from a literal, then fields, then
	// private keys (whose body, cut short, runs as far as base64 does).
	s = redactTokens(s)
	s = redactEmbedded(s)
	s = redactFields(s)
	return redactPrivateKeys(s)
}

// edits builds a copy of src with some spans replaced, lazily: while no span
// is replaced, result returns src itself.
type edits struct {
	src     string
	out     strings.Builder
	done    int  // src[:done] has been written to out
	changed bool // a span was replaced
}

// replace writes src up to start, then with, and skips src up to end. Spans
// come in increasing order and do not overlap.
func (e *edits) replace(start, end int, with ...string) {
	if !e.changed {
		e.changed = true
		e.out.Grow(len(e.src) + len(redactMark))
	}
	e.out.WriteString(e.src[e.done:start])
	for _, w := range with {
		e.out.WriteString(w)
	}
	e.done = end
}

// hide replaces src[start:end] with redactMark.
func (e *edits) hide(start, end int) { e.replace(start, end, redactMark) }

// result is src with the replacements made.
func (e *edits) result() string {
	if !e.changed {
		return e.src
	}
	e.out.WriteString(e.src[e.done:])
	return e.out.String()
}

// redactPrivateKeys hides PEM private keys, from the BEGIN line to the END
// line; a block cut short (a truncated log line) is hidden as far as its
// base64 body goes.
func redactPrivateKeys(s string) string {
	const begin, end = "-----BEGIN ", "-----END "
	e := edits{src: s}
	nextEnd := -1 // where the first END at or after a block's head is; len(s) for none
	for i := 0; ; {
		k := strings.Index(s[i:], begin)
		if k < 0 {
			break
		}
		start := i + k
		head := start + len(begin)
		label := strings.Index(s[head:min(len(s), head+64)], "-----")
		if label < 0 || !strings.Contains(s[head:head+label], "PRIVATE KEY") {
			i = head
			continue
		}
		stop := head + label + len("-----")
		if nextEnd < stop && nextEnd != len(s) {
			// Each END is searched for once, so blocks that never end cost
			// one scan in all.
			if k := strings.Index(s[stop:], end); k >= 0 {
				nextEnd = stop + k
			} else {
				nextEnd = len(s)
			}
		}
		if nextEnd < len(s) {
			closing := nextEnd + len(end)
			if k := strings.Index(s[closing:min(len(s), closing+64)], "-----"); k >= 0 {
				stop = closing + k + len("-----")
			} else {
				stop = closing
			}
		} else {
			stop = spanFwd(s, stop, &pemBody, len(s))
		}
		e.hide(start, stop)
		i = stop
	}
	return e.result()
}

// byteClass is a set of bytes.
type byteClass [256]bool

// newByteClass returns the class of the bytes in chars, where "a-z" stands
// for a range.
func newByteClass(chars string) (c byteClass) {
	for i := 0; i < len(chars); i++ {
		if i+2 < len(chars) && chars[i+1] == '-' {
			for b := chars[i]; b <= chars[i+2]; b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[chars[i]] = true
	}
	return c
}

var (
	alnum       = newByteClass("A-Za-z0-9")
	letters     = newByteClass("A-Za-z")
	digits      = newByteClass("0-9")
	lowerHex    = newByteClass("0-9a-f")
	base64URL   = newByteClass("A-Za-z0-9_-")
	tokenChars  = newByteClass("A-Za-z0-9_.+/=~-")   // what a key or token is made of
	credChars   = newByteClass("A-Za-z0-9._~+/=-")   // an HTTP credential (token68)
	pemBody     = newByteClass("A-Za-z0-9+/=\r\n\\") // base64 lines, maybe JSON-escaped
	azureSecret = newByteClass("A-Za-z0-9_~.-")
)

// spanFwd returns the end of the run of class bytes that starts at i, looking
// no further than limit.
func spanFwd(s string, i int, c *byteClass, limit int) int {
	limit = min(limit, len(s))
	for i < limit && c[s[i]] {
		i++
	}
	return i
}

// spanBack returns the start of the run of class bytes that ends at i,
// looking no further back than limit bytes.
func spanBack(s string, i int, c *byteClass, limit int) int {
	stop := max(0, i-limit)
	for i > stop && c[s[i-1]] {
		i--
	}
	return i
}
