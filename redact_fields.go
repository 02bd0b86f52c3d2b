package reflection

import "strings"

// Secrets RedactSecrets recognises by the name of the field that holds them.

// keyKind says what a field's name tells about its value.
type keyKind int

const (
	keyPlain         keyKind = iota // not a secret
	keyValue                        // the value is a secret
	keyAuthorization                // an Authorization header: a scheme word, then a secret
	keyLine                         // a Cookie header: the rest of the line is secret
)

// maxKey bounds the field names redactFields reads.
const maxKey = 128

// redactFields hides the values of fields whose name says they hold a
// secret: key=value, key: value, "key": value, {\"key\":\"value\"},
// 'key': 'value', key => value and <key>value</key>. Each separator is
// looked at once, and a value is skipped over once read, so the pass is
// linear in len(s).
func redactFields(s string) string {
	e := edits{src: s}
	for i := 0; i < len(s); {
		if !separators[s[i]] {
			i++
			continue
		}
		if next := redactField(&e, s, i); next > i {
			i = next
		} else {
			i++
		}
	}
	return e.result()
}

// redactField looks at the separator at sep; when the name before it says
// the value after it is a secret, it hides the value and returns where the
// value ends. It returns sep otherwise.
func redactField(e *edits, s string, sep int) int {
	if s[sep] == '>' {
		return redactElement(e, s, sep)
	}
	// The name, maybe quoted ("key", 'key', \"key\"), maybe followed by blanks.
	p := spanBack(s, sep, &blanks, 16)
	var quote byte
	escapes := 0
	if p > 0 && (s[p-1] == '"' || s[p-1] == '\'') {
		quote = s[p-1]
		p--
		escapes = p - spanBack(s, p, &backslash, 8)
		p -= escapes
	}
	start := spanBack(s, p, &keyChars, maxKey)
	if start == p || (p-start == maxKey && start > 0 && keyChars[s[start-1]]) {
		return sep
	}
	if quote != 0 && (start == 0 || s[start-1] != quote) {
		return sep
	}
	kind := classifyKey(s[start:p])
	if kind == keyPlain {
		return sep
	}
	v := sep + 1
	if s[sep] == '=' && v < len(s) && s[v] == '>' { // key => value
		v++
	}
	if s[sep] == ':' && strings.HasPrefix(s[v:], "//") { // a URL, not a field
		return sep
	}
	v = spanFwd(s, v, &blanks, v+16)
	// Values that are no secret are told by their first bytes, before the
	// value is read: every value read below is hidden and skipped, so each
	// byte is read a bounded number of times.
	if after := hiddenAlready(s, v, kind); after > 0 {
		return after // and the text after it is still to be read
	}
	if notSecretValue(s, v, kind, s[spanBack(s, p, &letters, 3):p]) {
		return sep
	}
	start, end, next, quoted := fieldValue(s, v, kind)
	if end <= start {
		return sep
	}
	value := s[start:end]
	if kind == keyAuthorization {
		start += schemeWord(value)
	}
	if !quoted && quote == '"' {
		// A bare JSON value (a number) becomes a string, so the JSON stays valid.
		esc := s[p : p+escapes]
		e.replace(start, end, esc, `"`, redactMark, esc, `"`)
		return next
	}
	e.hide(start, end)
	return next
}

var (
	backslash  = newByteClass(`\`)
	separators = newByteClass(":=>")
)

// notSecretValue reports, from its first bytes, a value at v that is no
// secret: a JSON literal (null, true, false), another field (credentials:
// api_key=...), or, for a name ending in pwd, a path (PWD=/home/bob is the
// working directory).
func notSecretValue(s string, v int, kind keyKind, nameEnd string) bool {
	pwd := strings.EqualFold(nameEnd, "pwd")
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		return pwd && v+1 < len(s) && s[v+1] == '/'
	}
	if pwd && v < len(s) && s[v] == '/' {
		return true
	}
	word := spanFwd(s, v, &keyChars, len(s))
	if word == v || word == len(s) {
		return word > v && isJSONLiteral(s[v:word])
	}
	if s[word] == '=' && kind == keyValue {
		after := spanFwd(s, word, &equals, len(s))
		return after < len(s) && (bareValue[s[after]] || strings.HasPrefix(s[after:], redactMark))
	}
	return !bareValue[s[word]] && isJSONLiteral(s[v:word])
}

func isJSONLiteral(w string) bool { return w == "null" || w == "true" || w == "false" }

var equals = newByteClass("=")

// hiddenAlready returns where the redactMark that an earlier pass put as the
// value at v ends (after an opening quote and, for an Authorization header,
// a scheme word); 0 when the value is something else. Only what was read is
// skipped, so a long line is read once whatever it holds.
func hiddenAlready(s string, v int, kind keyKind) int {
	x := spanFwd(s, v, &backslash, v+8)
	if x < len(s) && (s[x] == '"' || s[x] == '\'') {
		x++
	} else {
		x = v
	}
	if kind == keyAuthorization {
		x += schemeWord(s[x:min(len(s), x+64)])
	}
	if strings.HasPrefix(s[x:], redactMark) {
		return x + len(redactMark)
	}
	return 0
}

// schemeWord returns how many bytes of an Authorization value its scheme
// word (Bearer, Basic, Token, Digest, ...) and the blanks after it take; 0
// when it does not start with one followed by a credential.
func schemeWord(value string) int {
	w := spanFwd(value, 0, &letters, 32)
	if w == 0 || w >= len(value) || !blanks[value[w]] {
		return 0
	}
	if cred := spanFwd(value, w, &blanks, w+16); cred < len(value) {
		return cred
	}
	return 0
}

// bareValue is what an unquoted value is made of; bareLine, what a header
// value that runs to the end of its line is.
var (
	bareValue = notIn(" \t\r\n&,;\"'`\\<>(){}[]|")
	bareLine  = notIn("\r\n\"'`\\")
)

// fieldValue reads the value that starts at v: a quoted string (", ' or a
// JSON-escaped \" at any depth), or bare text. It returns the span of the
// value's text, where reading goes on (after a closing quote), and whether
// it was quoted. A quote that never closes runs to the end of its line.
func fieldValue(s string, v int, kind keyKind) (start, end, next int, quoted bool) {
	if v >= len(s) {
		return v, v, v, false
	}
	escapes := spanFwd(s, v, &backslash, v+8) - v
	if q := v + escapes; q < len(s) && (s[q] == '"' || (s[q] == '\'' && escapes == 0)) {
		if escapes&(escapes+1) != 0 { // 0, 1, 3 or 7: a quote at depth 0 to 3
			return v, v, v, false
		}
		start = q + 1
		at := closingQuote(s, start, s[q], escapes)
		if at < 0 {
			end = lineEnd(s, start)
			return start, end, end, true
		}
		return start, at - escapes, at + 1, true
	}
	if escapes > 0 || s[v] == '{' || s[v] == '[' {
		return v, v, v, false // an escape sequence, or an object or array whose own fields are read
	}
	class := &bareValue
	if kind == keyAuthorization || kind == keyLine {
		class = &bareLine
	}
	end = spanFwd(s, v, class, len(s))
	if class == &bareValue {
		// A sentence's full stop or colon after a bare value is not part of it.
		for end > v+1 && (s[end-1] == '.' || s[end-1] == ':') {
			end--
		}
	}
	return v, end, end, false
}

// closingQuote returns the index of the quote that closes a string opened
// by q after escapes backslashes, or -1. A quote
// closes when the backslashes before it, n, make it a quote of the opening
// depth: n mod 2(escapes+1) == escapes, so an escaped quote inside the
// string (\" in "...", \\\" in \"...\") does not close it.
func closingQuote(s string, from int, q byte, escapes int) int {
	for i := from; i < len(s); {
		k := strings.IndexByte(s[i:], q)
		if k < 0 {
			return -1
		}
		at := i + k
		n := at - spanBack(s, at, &backslash, at-from)
		if n%(2*(escapes+1)) == escapes {
			return at
		}
		i = at + 1
	}
	return -1
}

// redactElement hides the text of an XML element whose name says it holds a
// secret (<password>hunter2</password>); sep is the > of the start tag.
func redactElement(e *edits, s string, sep int) int {
	start := spanBack(s, sep, &keyChars, maxKey)
	if start == sep || start == 0 {
		return sep
	}
	if s[start-1] == ':' { // a namespace prefix: <ns:password>
		start = spanBack(s, start-1, &keyChars, maxKey)
		if start == 0 {
			return sep
		}
	}
	if s[start-1] != '<' || classifyKey(s[spanBack(s, sep, &keyChars, maxKey):sep]) != keyValue {
		return sep
	}
	end := strings.IndexByte(s[sep+1:], '<')
	if end <= 0 || strings.HasPrefix(s[sep+1:], "[REDACTED") {
		return sep
	}
	e.hide(sep+1, sep+1+end)
	return sep + 1 + end
}

// classifyKey says what a field's name tells about its value, from the
// name's last two words (see RedactSecrets for the rule).
func classifyKey(key string) keyKind {
	lastStart, lastEnd := wordBefore(key, len(key))
	if lastEnd == 0 {
		return keyPlain
	}
	var buf [24]byte
	last := lowerWord(buf[:0], key[lastStart:lastEnd])
	if kind, ok := keyWords[string(last)]; ok {
		if kind != keyAfterAnother {
			return kind
		}
		var prevBuf [24]byte
		ps, pe := wordBefore(key, lastStart)
		prev := lowerWord(prevBuf[:0], key[ps:pe])
		switch string(last) {
		case "key":
			if keyQualifiers[string(prev)] {
				return keyValue
			}
		case "id":
			if string(prev) == "session" {
				return keyValue
			}
		default:
			if pe > 0 {
				return keyValue
			}
		}
		return keyPlain
	}
	if lastEnd-lastStart > len(buf) {
		last = lowerWord(buf[:0], key[lastEnd-len(buf):lastEnd])
	}
	for _, suffix := range secretSuffixes {
		if len(last) > len(suffix) && string(last[len(last)-len(suffix):]) == suffix {
			return keyValue
		}
	}
	return keyPlain
}

// lowerWord appends word to buf in lower case; a word longer than buf's
// capacity gives nil, which matches nothing.
func lowerWord(buf []byte, word string) []byte {
	if len(word) > cap(buf) {
		return nil
	}
	for i := 0; i < len(word); i++ {
		buf = append(buf, word[i]|0x20) // words hold letters only
	}
	return buf
}

// keyAfterAnother marks, in keyWords, a last word that says "secret" only
// after some other word (see classifyKey).
const keyAfterAnother keyKind = -1

// The words that make a field's name say it holds a secret, in lower case.
var (
	keyWords = map[string]keyKind{
		"authorization": keyAuthorization,
		"cookie":        keyLine,
		// As the name's last word.
		"password": keyValue, "passwd": keyValue, "pwd": keyValue, "passphrase": keyValue,
		"secret": keyValue, "token": keyValue, "apikey": keyValue,
		"session": keyValue, "sessionid": keyValue, "sessid": keyValue,
		"sig": keyValue, "privatekey": keyValue, "secretkey": keyValue, "accesskey": keyValue,
		"accountkey": keyValue,
		// As the last word after another: alone they are too common ("PASS:
		// TestX" in go test output, "auth: failed", "invalid credentials:
		// ..."); key and id only after keyQualifiers and session.
		"pass": keyAfterAnother, "auth": keyAfterAnother, "signature": keyAfterAnother,
		"credential": keyAfterAnother, "credentials": keyAfterAnother,
		"key": keyAfterAnother, "id": keyAfterAnother,
	}
	// keyQualifiers: the words before "key" that make it a secret one.
	keyQualifiers = map[string]bool{"api": true, "access": true, "secret": true, "private": true,
		"account": true, "auth": true, "client": true, "signing": true, "sign": true,
		"encryption": true, "encrypt": true, "master": true, "subscription": true, "shared": true,
		"app": true, "consumer": true, "license": true, "service": true, "admin": true,
		"deploy": true, "storage": true, "ingest": true, "webhook": true, "session": true,
		"hmac": true, "root": true, "jwt": true}
	// secretSuffixes, at the end of a last word that holds more (PGPASSWORD,
	// JSESSIONID, apitoken).
	secretSuffixes = []string{"password", "passwd", "secret", "token", "apikey", "sessionid", "sessid"}
)

// wordBefore returns the last word of key[:end]: words are runs of letters,
// split by anything else and where the case changes (dbPassword, APIKey).
// end is 0 when there is none.
func wordBefore(key string, end int) (start, wordEnd int) {
	for end > 0 && !letters[key[end-1]] {
		end--
	}
	if end == 0 {
		return 0, 0
	}
	start = end - 1
	for start > 0 && letters[key[start-1]] && !caseBoundary(key, start) {
		start--
	}
	return start, end
}

// caseBoundary reports whether a new word starts at key[i]: an upper-case
// letter after a lower-case one (dbPassword), or the last upper-case letter
// of a run that a lower-case one follows (APIKey).
func caseBoundary(key string, i int) bool {
	if !isUpper(key[i]) {
		return false
	}
	return !isUpper(key[i-1]) || (i+1 < len(key) && isLower(key[i+1]))
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
