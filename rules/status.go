package rules

import (
	"regexp"
	"strconv"
	"strings"
)

// A status code in a text counts only where the text writes it as one:
// after a word that introduces it ("status code: 503", "HTTP/1.1 503",
// "Error 429:", "statusCode: 403", "error_code": 429), at the very start of
// the message ("429 Rate limit reached"), or before its reason phrase
// ("(503) Service Unavailable"). A number elsewhere ("line 503", "Error
// 1045") is not a status. The text is lower-cased first. Only the few bytes
// around each three-digit number are read by the patterns below, so a long
// text costs one pass over its bytes.
var (
	statusIntroPattern = regexp.MustCompile(`(?:^|[^\w])(?:status(?:[ _-]?code)?|http(?:/\d(?:\.\d)?)?(?: error| status| response code)?|` +
		`response(?: code| status)?|error(?:[ _-]code)?|code)["']?\s*[:=]?\s*\(?["']?$`)
	statusReasonPattern = regexp.MustCompile(`^\)?:? (?:too many requests|service unavailable|bad gateway|gateway time-?out|` +
		`internal server error|request time-?out|unauthorized|forbidden|server error|client error|slow down|overloaded)`)
)

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
	if (lower[i] == '4' || lower[i] == '5') && statusReasonPattern.MatchString(after) {
		return true
	}
	// After a word that introduces it, and not followed by more of a word or
	// a decimal: "status code: 503", but not "status 503a" or "http 503.5".
	if after != "" && (isWordByte(after[0]) || (after[0] == '.' && len(after) > 1 && isDigit(after[1]))) {
		return false
	}
	before := lower[max(0, i-statusContext):i]
	// Every word that introduces a status ends in one of these; a cheap test
	// before the pattern, as most numbers ("line 120") fail it.
	word := strings.TrimRight(before, "\"' \t:=(")
	for _, end := range statusWordEnds {
		if strings.HasSuffix(word, end) {
			return statusIntroPattern.MatchString(before)
		}
	}
	return false
}

// statusWordEnds are the last letters of every word that introduces a status
// in statusIntroPattern.
var statusWordEnds = []string{"status", "code", "error", "response", "http", "http/1.1", "http/1.0", "http/2", "http/2.0", "http/3"}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isWordByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
