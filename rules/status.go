package rules

import (
	"errors"
	"regexp"
	"strconv"
)

// The status-code methods that SDK error types carry: StatusCode() (many
// HTTP clients), HTTPStatusCode() (the AWS SDK's response errors).
type (
	statusCoder     interface{ StatusCode() int }
	httpStatusCoder interface{ HTTPStatusCode() int }
)

// statusOfError returns the HTTP status that a method of an error in err's
// chain reports, the first such error winning; 0 when none does, when the
// value is not a status (outside 100..599) or when a method panics.
func statusOfError(err error) (status int) {
	if err == nil {
		return 0
	}
	defer func() {
		if recover() != nil {
			status = 0
		}
	}()
	var s int
	var sc statusCoder
	var hc httpStatusCoder
	switch {
	case errors.As(err, &sc):
		s = sc.StatusCode()
	case errors.As(err, &hc):
		s = hc.HTTPStatusCode()
	}
	if s < 100 || s > 599 {
		return 0
	}
	return s
}

// statusInTextPattern finds a status code where a message states one. Each
// alternative names the code as a status: a word that introduces it ("status
// code: 503", "HTTP/1.1 503", "Error 429:", "statusCode: 403", "error_code":
// 429), the code at the very start of the message ("429 Rate limit reached"),
// or the code followed by its reason phrase ("(503) Service Unavailable").
// A number elsewhere ("line 503", "Error 1045") is not a status. The text is
// lower-cased first.
var statusInTextPattern = regexp.MustCompile(
	`(?:^|[^\w])(?:` +
		// A word that introduces a status.
		`(?:status(?:[ _-]?code)?|http(?:/\d(?:\.\d)?)?(?: error| status| response code)?|` +
		`response(?: code| status)?|error(?:[ _-]code)?|code)["']?\s*[:=]?\s*\(?["']?([1-5]\d\d)(?:[^\w.]|\.(?:\D|$)|$)` +
		// The code at the start of the text.
		`)|^\s*([45]\d\d)(?:[\s:,-]|$)` +
		// The code followed by its reason phrase.
		`|\b([45]\d\d)\)?:? (?:too many requests|service unavailable|bad gateway|gateway time-?out|` +
		`internal server error|request time-?out|unauthorized|forbidden|server error|client error|slow down|overloaded)`)

// statusOfText returns the first status code that lower-cased text states,
// or 0.
func statusOfText(lower string) int {
	m := statusInTextPattern.FindStringSubmatch(lower)
	if m == nil {
		return 0
	}
	for _, g := range m[1:] {
		if g != "" {
			n, _ := strconv.Atoi(g)
			return n
		}
	}
	return 0
}
