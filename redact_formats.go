package reflection

import (
	"encoding/base64"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// Secrets RedactSecrets recognises by their own shape, wherever they stand.

// tokenFormat is a provider's documented key or token format: a literal
// prefix, and a pattern for the whole token (prefix included) that is
// matched where the token starts.
type tokenFormat struct {
	prefix     string
	minLen     int            // the pattern's shortest match
	re         *regexp.Regexp // anchored at the token's first byte
	underscore bool           // an underscore just before the token goes too
}

// formats returns pattern's format once per prefix.
func formats(pattern string, prefixes ...string) []tokenFormat {
	re := regexp.MustCompile(`^(?:` + pattern + `)`)
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	out := make([]tokenFormat, len(prefixes))
	for i, p := range prefixes {
		out[i] = tokenFormat{prefix: p, minLen: shortestMatch(parsed), re: re}
	}
	return out
}

// shortestMatch is the length in bytes of the shortest text re matches
// (patterns here are ASCII).
func shortestMatch(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return shortestMatch(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * shortestMatch(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += shortestMatch(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := shortestMatch(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty, star, quest, anchors, word boundaries
}

// tokenFormatList holds the formats, one line per provider or kind.
var tokenFormatList = slices.Concat(
	formats(`sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, "sk-"),              // OpenAI, Anthropic, OpenRouter, DeepSeek
	formats(`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`, "sk_", "rk_"),                   // Stripe secret and restricted keys
	formats(`whsec_[A-Za-z0-9+/=]{24,}`, "whsec_"),                                      // Stripe webhook signing secrets
	formats(`AIza[0-9A-Za-z_-]{35}`, "AIza"),                                            // Google API keys
	formats(`ya29\.[A-Za-z0-9_-]{20,}`, "ya29."),                                        // Google OAuth access tokens
	formats(`1//0[A-Za-z0-9_-]{30,}`, "1//0"),                                           // Google OAuth refresh tokens
	formats(`GOCSPX-[A-Za-z0-9_-]{24,}`, "GOCSPX-"),                                     // Google OAuth client secrets
	formats(`(?:AKIA|ASIA)[0-9A-Z]{16}\b`, "AKIA", "ASIA"),                              // AWS access key IDs
	formats(`gh[pousr]_[A-Za-z0-9]{36,}`, "gh"),                                         // GitHub tokens
	formats(`github_pat_[A-Za-z0-9_]{22,}`, "github_pat_"),                              // GitHub fine-grained tokens
	formats(`gl(?:pat|ptt|dt|rt|cbt|ft|imt|oas|soat)-[A-Za-z0-9_-]{20,}`, "gl"),         // GitLab tokens
	formats(`GR1348941[A-Za-z0-9_-]{20,}`, "GR1348941"),                                 // GitLab runner registration tokens
	formats(`glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}`, "glsa_"),                                // Grafana service account tokens
	formats(`glc_[A-Za-z0-9+/]{32,}={0,2}`, "glc_"),                                     // Grafana Cloud tokens
	formats(`xox[abposre]-[A-Za-z0-9-]{10,}`, "xox"),                                    // Slack tokens
	formats(`xapp-[0-9]+-[A-Za-z0-9-]{10,}`, "xapp-"),                                   // Slack app-level tokens
	formats(`hf_[A-Za-z0-9]{30,}`, "hf_"),                                               // Hugging Face tokens
	formats(`api_org_[A-Za-z0-9]{30,}`, "api_org_"),                                     // Hugging Face organisation tokens
	formats(`(?:gsk|xai)[-_][A-Za-z0-9]{20,}`, "gsk_", "xai-"),                          // Groq, xAI
	formats(`pplx-[A-Za-z0-9]{40,}`, "pplx-"),                                           // Perplexity
	formats(`r8_[A-Za-z0-9]{37}`, "r8_"),                                                // Replicate
	formats(`lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`, "lsv2_"),                        // LangSmith
	formats(`eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+`, "eyJ"),        // JSON Web Tokens
	formats(`SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}`, "SG."),                    // SendGrid
	formats(`npm_[A-Za-z0-9]{36}\b`, "npm_"),                                            // npm
	formats(`pypi-[A-Za-z0-9_-]{50,}`, "pypi-"),                                         // PyPI
	formats(`rubygems_[a-f0-9]{48}`, "rubygems_"),                                       // RubyGems
	formats(`oy2[a-z0-9]{43}`, "oy2"),                                                   // NuGet
	formats(`shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`, "shp"),                                // Shopify
	formats(`hv[sbr]\.[A-Za-z0-9_-]{20,}`, "hvs.", "hvb.", "hvr."),                      // HashiCorp Vault
	formats(`do[opr]_v1_[a-f0-9]{64}`, "dop_v1_", "doo_v1_", "dor_v1_"),                 // DigitalOcean
	formats(`key-[0-9a-f]{32}\b`, "key-"),                                               // Mailgun
	formats(`dapi[0-9a-f]{32}(?:-[0-9]+)?\b`, "dapi"),                                   // Databricks
	formats(`ATATT3[A-Za-z0-9_=-]{20,}`, "ATATT3"),                                      // Atlassian
	formats(`lin_api_[A-Za-z0-9]{40}`, "lin_api_"),                                      // Linear
	formats(`PMAK-[0-9a-f]{24}-[0-9a-f]{34}`, "PMAK-"),                                  // Postman
	formats(`sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}`, "sq0"),                               // Square
	formats(`EAA[A-Za-z0-9_-]{60,}`, "EAA"),                                             // Meta and Square access tokens
	formats(`AGE-SECRET-KEY-1[0-9A-Z]{58}`, "AGE-SECRET-KEY-1"),                         // age secret keys
	formats(`dp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_.-]{40,}`, "dp."),               // Doppler
	formats(`sntr[ysu]_[A-Za-z0-9_=+/-]{40,}`, "sntr"),                                  // Sentry
	formats(`NRAK-[A-Z0-9]{27}`, "NRAK-"),                                               // New Relic
	formats(`pul-[a-f0-9]{40}`, "pul-"),                                                 // Pulumi
	formats(`tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}`, "tskey-"),                  // Tailscale
	formats(`sbp_[a-f0-9]{40}`, "sbp_"),                                                 // Supabase
	formats(`(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}\b)`, "ntn_", "secret_"),     // Notion
	formats(`figd_[A-Za-z0-9_-]{40,}`, "figd_"),                                         // Figma
	formats(`xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`, "xkeysib-"),                         // Brevo
	formats(`HRKU-[A-Za-z0-9_-]{20,}`, "HRKU-"),                                         // Heroku
	formats(`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}`, "pscale_"),                   // PlanetScale
	formats(`fo1_[A-Za-z0-9_-]{40,}`, "fo1_"),                                           // Fly.io
	formats(`dckr_pat_[A-Za-z0-9_-]{20,}`, "dckr_pat_"),                                 // Docker Hub
	formats(`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`, "pat"),                                  // Airtable
	formats(`sl\.(?:u\.)?[A-Za-z0-9_-]{100,}`, "sl."),                                   // Dropbox
	formats(`ops_eyJ[A-Za-z0-9+/=_-]{100,}`, "ops_"),                                    // 1Password service accounts
	formats(`phx_[A-Za-z0-9]{40,}`, "phx_"),                                             // PostHog personal keys
	formats(`rnd_[A-Za-z0-9]{32}\b`, "rnd_"),                                            // Render
	formats(`[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}`, "M", "N"), // Discord bot tokens
)

// tokenFormats indexes the formats by the first byte of their prefix; an
// old-style OpenAI key takes the underscore before it along, as it always
// has ("exfiltrate_sk-..." becomes "exfiltrate[REDACTED]").
var tokenFormats = func() (byFirst [256][]tokenFormat) {
	for _, f := range tokenFormatList {
		f.underscore = f.prefix == "sk-"
		byFirst[f.prefix[0]] = append(byFirst[f.prefix[0]], f)
	}
	return byFirst
}()

// tokenStart holds the bytes a token, a scheme word (Bearer, Basic) or a
// flag (--password) can start with.
var tokenStart = func() (c byteClass) {
	for b, fs := range tokenFormats {
		c[b] = len(fs) > 0
	}
	c['b'], c['B'], c['-'] = true, true, true
	return c
}()

// redactTokens hides, in one pass over the words of s, the tokens of a known
// format, the credential after Bearer or Basic, and the value of a flag
// whose name says it holds a secret (--password hunter2).
func redactTokens(s string) string {
	e := edits{src: s}
	runEnd := 0 // end of the run of token bytes around i
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !tokenStart[c] || (i > 0 && alnum[s[i-1]]) {
			continue
		}
		if i >= runEnd {
			runEnd = spanFwd(s, i, &tokenChars, len(s))
		}
		start, end := matchToken(s, i, runEnd)
		if end < 0 {
			switch {
			case c|0x20 == 'b':
				start, end = schemeCredential(s, i)
			case c == '-':
				start, end = flagValue(s, i)
			}
		}
		if end > 0 && start >= e.done {
			e.hide(start, end)
			i = end - 1
		}
	}
	return e.result()
}

// matchToken returns the span of the token of a known format that starts at
// i and ends by runEnd; end is -1 when there is none.
func matchToken(s string, i, runEnd int) (start, end int) {
	for _, f := range tokenFormats[s[i]] {
		if runEnd-i < f.minLen || !strings.HasPrefix(s[i:], f.prefix) {
			continue
		}
		if loc := f.re.FindStringIndex(s[i:runEnd]); loc != nil {
			start = i
			if f.underscore && i > 0 && s[i-1] == '_' {
				start--
			}
			return start, i + loc[1]
		}
	}
	return 0, -1
}

// schemeCredential returns the span of the credential after the word Bearer
// or Basic at i, when it looks like one; end is -1 otherwise. A Bearer
// credential holds a digit or a symbol, or is 20 letters or longer; a Basic
// one holds a digit or a symbol, or decodes to user:password. So "Bearer
// authentication" and "Basic authentication is required" stay.
func schemeCredential(s string, i int) (start, end int) {
	var basic bool
	switch {
	case hasPrefixFold(s[i:], "bearer"):
		start = i + len("bearer")
	case hasPrefixFold(s[i:], "basic"):
		start, basic = i+len("basic"), true
	default:
		return 0, -1
	}
	if start >= len(s) || (s[start] != ' ' && s[start] != '\t') {
		return 0, -1
	}
	start = spanFwd(s, start, &blanks, start+16)
	end = spanFwd(s, start, &credChars, len(s))
	cred := s[start:end]
	switch {
	case len(cred) < 8 || strings.Contains(strings.TrimRight(cred, "="), "="):
		// A credential is a token68: "=" only as padding at its end, so
		// "bearer expires_in=3600" is not one.
		return 0, -1
	case strings.ContainsAny(cred, "0123456789._~+/=-"):
		return start, end
	case !basic && len(cred) >= 20:
		return start, end
	case basic && decodesToUserPassword(cred):
		return start, end
	}
	return 0, -1
}

// decodesToUserPassword reports whether cred is base64 for printable text
// holding a colon, as a Basic credential is.
func decodesToUserPassword(cred string) bool {
	if len(cred) > 1024 {
		return false
	}
	enc := base64.StdEncoding
	if len(cred)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	var buf [768]byte
	n, err := enc.Decode(buf[:], []byte(cred))
	if err != nil {
		return false
	}
	colon := false
	for _, b := range buf[:n] {
		if b < 0x20 || b > 0x7e {
			return false
		}
		colon = colon || b == ':'
	}
	return colon
}

// flagValue returns the span of the value of a command-line flag whose name
// says it holds a secret, given with a space (--password hunter2); end is -1
// otherwise. A flag given with = is a field (see redactFields).
func flagValue(s string, i int) (start, end int) {
	if !strings.HasPrefix(s[i:], "--") {
		return 0, -1
	}
	nameEnd := spanFwd(s, i+2, &flagChars, i+66)
	if nameEnd == i+2 || nameEnd >= len(s) || !blanks[s[nameEnd]] || classifyKey(s[i+2:nameEnd]) != keyValue {
		return 0, -1
	}
	start = spanFwd(s, nameEnd, &blanks, nameEnd+16)
	if start >= len(s) || s[start] == '-' {
		return 0, -1
	}
	if q := s[start]; q == '"' || q == '\'' {
		close := strings.IndexByte(s[start+1:], q)
		if close < 0 {
			return start, lineEnd(s, start)
		}
		return start + 1, start + 1 + close
	}
	end = spanFwd(s, start, &bareFlagValue, len(s))
	if value := s[start:end]; value == "" || value[0] == ':' || value[len(value)-1] == ':' ||
		strings.Contains(value, "=") || strings.Contains(value, redactMark) {
		return 0, -1 // a field (Authorization:, key=value), for redactFields, or hidden already
	}
	return start, end
}

var (
	blanks        = newByteClass(" \t")
	flagChars     = newByteClass("A-Za-z0-9_-")
	bareFlagValue = notIn(" \t\r\n\"'`")
)

// notIn returns the class of every byte but those in chars.
func notIn(chars string) (c byteClass) {
	for i := range c {
		c[i] = true
	}
	for i := 0; i < len(chars); i++ {
		c[chars[i]] = false
	}
	return c
}

// lineEnd returns the index of the first line break at or after i, or
// len(s).
func lineEnd(s string, i int) int {
	if k := strings.IndexAny(s[i:], "\r\n"); k >= 0 {
		return i + k
	}
	return len(s)
}

// hasPrefixFold is strings.HasPrefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// embeddedFormat is a secret found from a literal inside or around it: span
// returns the secret's span given where the literal is, or end -1.
type embeddedFormat struct {
	literal string
	span    func(s string, at int) (start, end int)
}

var embeddedFormats = []embeddedFormat{
	{"://", urlPassword},
	{"@tcp(", dsnPassword},
	{"@unix(", dsnPassword},
	{"hooks.slack.com/", slackWebhook},
	{"/api/webhooks/", discordWebhook},
	{".webhook.office.com/webhookb2/", teamsWebhook},
	{"Q~", azureClientSecret},
	{"-us", mailchimpKey},
	{":AA", telegramBotToken},
	{".atlasv1.", terraformToken},
}

// redactEmbedded hides the secrets of embeddedFormats, one format at a time;
// a text without a format's literal costs one search for it.
func redactEmbedded(s string) string {
	for i := range embeddedFormats {
		f := &embeddedFormats[i]
		if !strings.Contains(s, f.literal) {
			continue
		}
		e := edits{src: s}
		for at := 0; ; {
			k := strings.Index(s[at:], f.literal)
			if k < 0 {
				break
			}
			at += k
			if start, end := f.span(s, at); end > 0 && start >= e.done {
				e.hide(start, end)
				at = end
				continue
			}
			at++
		}
		s = e.result()
	}
	return s
}

var (
	urlUser     = notIn("/:@?#[] \t\r\n\"'`\\<>")
	urlPass     = notIn("/@?# \t\r\n\"'`\\<>")
	dsnPass     = notIn(":@/ \t\r\n\"'`\\<>")
	keyChars    = newByteClass("A-Za-z0-9_.-")
	hookPath    = newByteClass("A-Za-z0-9_/-")
	teamsPath   = newByteClass("A-Za-z0-9@/_.-")
	terraformTk = newByteClass("A-Za-z0-9_=-")
)

// urlPassword: the password of a URL's user info (scheme://user:password@),
// the user possibly empty (redis://:password@host).
func urlPassword(s string, at int) (start, end int) {
	colon := spanFwd(s, at+3, &urlUser, at+3+256)
	if colon >= len(s) || s[colon] != ':' {
		return 0, -1
	}
	end = spanFwd(s, colon+1, &urlPass, colon+1+1024)
	if end == colon+1 || end >= len(s) || s[end] != '@' {
		return 0, -1
	}
	return colon + 1, end
}

// dsnPassword: the password of a Go SQL driver DSN, user:password@tcp(host).
func dsnPassword(s string, at int) (start, end int) {
	start = spanBack(s, at, &dsnPass, 1024)
	if start == at || start < 2 || s[start-1] != ':' || !keyChars[s[start-2]] {
		return 0, -1
	}
	return start, at
}

// slackWebhook: the secret path of a Slack webhook URL.
func slackWebhook(s string, at int) (start, end int) {
	start = at + len("hooks.slack.com/")
	for _, kind := range []string{"services/", "workflows/", "triggers/"} {
		if strings.HasPrefix(s[start:], kind) {
			start += len(kind)
			if end = spanFwd(s, start, &hookPath, len(s)); end-start >= 20 {
				return start, end
			}
		}
	}
	return 0, -1
}

// discordWebhook: the token of a Discord webhook URL (/api/webhooks/id/token).
func discordWebhook(s string, at int) (start, end int) {
	id := at + len("/api/webhooks/")
	slash := spanFwd(s, id, &digits, id+24)
	if slash == id || slash >= len(s) || s[slash] != '/' {
		return 0, -1
	}
	start = slash + 1
	if end = spanFwd(s, start, &base64URL, len(s)); end-start >= 20 {
		return start, end
	}
	return 0, -1
}

// teamsWebhook: the secret path of a Microsoft Teams incoming webhook URL.
func teamsWebhook(s string, at int) (start, end int) {
	start = at + len(".webhook.office.com/webhookb2/")
	if end = spanFwd(s, start, &teamsPath, len(s)); end-start >= 20 {
		return start, end
	}
	return 0, -1
}

// azureClientSecret: a Microsoft Entra ID (Azure AD) client secret, three
// characters, a digit, Q~, then 31 to 34 characters.
func azureClientSecret(s string, at int) (start, end int) {
	start = at - 4
	if start < 0 || !digits[s[at-1]] || spanBack(s, at-1, &azureSecret, 3) != start ||
		(start > 0 && azureSecret[s[start-1]]) {
		return 0, -1
	}
	end = spanFwd(s, at+2, &azureSecret, at+2+35)
	if n := end - (at + 2); n < 31 || n > 34 || (end < len(s) && azureSecret[s[end]]) {
		return 0, -1
	}
	return start, end
}

// mailchimpKey: 32 hex digits, -us and a data centre number.
func mailchimpKey(s string, at int) (start, end int) {
	start = at - 32
	if start < 0 || spanBack(s, at, &lowerHex, 32) != start || (start > 0 && alnum[s[start-1]]) {
		return 0, -1
	}
	end = spanFwd(s, at+3, &digits, at+5)
	if end == at+3 || (end < len(s) && alnum[s[end]]) {
		return 0, -1
	}
	return start, end
}

// telegramBotToken: a bot id of 8 to 10 digits, a colon, and 35 characters
// starting with AA; in the Bot API's URLs it follows /bot.
func telegramBotToken(s string, at int) (start, end int) {
	start = spanBack(s, at, &digits, 10)
	if n := at - start; n < 8 || (start > 0 && alnum[s[start-1]] && !strings.HasSuffix(s[:start], "/bot")) {
		return 0, -1
	}
	end = spanFwd(s, at+1, &base64URL, at+1+36)
	if end-(at+1) != 35 || (end < len(s) && base64URL[s[end]]) {
		return 0, -1
	}
	return start, end
}

// terraformToken: a Terraform Cloud (HCP Terraform) API token.
func terraformToken(s string, at int) (start, end int) {
	start = at - 14
	if start < 0 || spanBack(s, at, &alnum, 14) != start || (start > 0 && alnum[s[start-1]]) {
		return 0, -1
	}
	if end = spanFwd(s, at+len(".atlasv1."), &terraformTk, len(s)); end-at >= len(".atlasv1.")+60 {
		return start, end
	}
	return 0, -1
}
