package rules

import (
	"strconv"
	"strings"
)

// A status code in a text counts only where the text writes it as one:
// after a word that introduces it ("status code: 503", "HTTP/1.1 503",
// "Error 429:", "statusCode: 403", "error_code": 429), at the very start of
// the message ("429 Rate limit reached"), or before its reason phrase
// ("(503) Service Unavailable"). A number elsewhere ("line 503", "Error
// 1045") is not a status. The text is lower-cased first. Only the few bytes
// around each three-digit number are read, by plain comparisons, so a long
// text costs one pass over its bytes.

// statusReasons are the reason phrases a status may stand before.
var statusReasons = []string{"too many requests", "service unavailable", "bad gateway", "gateway timeout",
	"gateway time-out", "internal server error", "request timeout", "request time-out", "unauthorized",
	"forbidden", "server error", "client error", "slow down", "overloaded"}

// statusIntros are the words that may introduce a status, bar the forms of
// "http", which introducesStatus reads itself.
var statusIntros = []string{"status", "status code", "status_code", "status-code", "statuscode",
	"response", "response code", "response status", "error", "error code", "error_code", "error-code", "code"}

// beforeReason reports whether after, the text right after a number,
// starts with a reason phrase: an optional ")", an optional ":", a space,
// the phrase ("(503) Service Unavailable", "429: Too Many Requests").
func beforeReason(after string) bool {
	after = strings.TrimPrefix(after, ")")
	after = strings.TrimPrefix(after, ":")
	if !strings.HasPrefix(after, " ") {
		return false
	}
	after = after[1:]
	for _, r := range statusReasons {
		if strings.HasPrefix(after, r) {
			return true
		}
	}
	return false
}

// introducesStatus reports whether before, the text right before a number,
// ends with a word that introduces a status, not part of a longer word,
// then an optional quote, white space, ":" or "=", white space, "(" and
// quote: "status code: ", "HTTP/1.1 ", "\"error_code\": ", "(".
func introducesStatus(before string) bool {
	b := trimLastOf(before, "\"'")
	b = strings.TrimSuffix(b, "(")
	b = strings.TrimRight(b, " \t\r\n\f")
	b = trimLastOf(b, ":=")
	b = strings.TrimRight(b, " \t\r\n\f")
	b = trimLastOf(b, "\"'")
	for _, w := range statusIntros {
		if rest, ok := strings.CutSuffix(b, w); ok && (rest == "" || !isWordByte(rest[len(rest)-1])) {
			return true
		}
	}
	// "http", "http/1.1", "http/2", each perhaps followed by " error",
	// " status" or " response code".
	for _, tail := range [...]string{" error", " status", " response code"} {
		if rest, ok := strings.CutSuffix(b, tail); ok {
			b = rest
			break
		}
	}
	if n := len(b); n >= 4 && b[n-4] == '/' && isDigit(b[n-3]) && b[n-2] == '.' && isDigit(b[n-1]) {
		b = b[:n-4] // "/1.1"
	} else if n >= 2 && b[n-2] == '/' && isDigit(b[n-1]) {
		b = b[:n-2] // "/2"
	}
	rest, ok := strings.CutSuffix(b, "http")
	return ok && (rest == "" || !isWordByte(rest[len(rest)-1]))
}

// trimLastOf removes the last byte of s when it is one of chars.
func trimLastOf(s, chars string) string {
	if s != "" && strings.IndexByte(chars, s[len(s)-1]) >= 0 {
		return s[:len(s)-1]
	}
	return s
}

// statusContext is how many bytes before and after a number are read.
const statusContext = 40

// statusOfText returns the first status code that lower-cased text states,
// or 0.
func statusOfText(lower string) int {
	for i := 0; i < len(lower); {
		if !isDigit(lower[i]) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isDigit(lower[j]) {
			j++
		}
		if j-i == 3 && lower[i] >= '1' && lower[i] <= '5' && (i == 0 || !isWordByte(lower[i-1])) && statedAsStatus(lower, i, j) {
			n, _ := strconv.Atoi(lower[i:j])
			return n
		}
		i = j
	}
	return 0
}

// statedAsStatus reports whether the number lower[i:j] is written as a
// status code.
func statedAsStatus(lower string, i, j int) bool {
	after := lower[j:min(len(lower), j+statusContext)]
	// At the start of the message: "429 Rate limit reached".
	if strings.TrimLeft(lower[:i], " \t\r\n") == "" && lower[i] >= '4' &&
		(after == "" || strings.ContainsRune(" \t\r\n:,-", rune(after[0]))) {
		return true
	}
	// Before its reason phrase: "(503) Service Unavailable".
	if (lower[i] == '4' || lower[i] == '5') && beforeReason(after) {
		return true
	}
	// After a word that introduces it, and not followed by more of a word or
	// a decimal: "status code: 503", but not "status 503a" or "http 503.5".
	if after != "" && (isWordByte(after[0]) || (after[0] == '.' && len(after) > 1 && isDigit(after[1]))) {
		return false
	}
	return introducesStatus(lower[max(0, i-statusContext):i])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isWordByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
