package reflection

import (
	"math"
	"strings"
	"time"
)

// defaultMaxRetryAfter is the largest rate-limit hint a Driver waits for
// unless WithMaxRetryAfter says otherwise: 60s.
const defaultMaxRetryAfter = capsMaxRetryAfter

// The three forms of an HTTP date that RFC 9110 (section 5.6.7) accepts: the
// preferred IMF-fixdate, the obsolete RFC 850 form and asctime's.
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// ParseRetryAfter reads the value of a Retry-After header (RFC 9110, section
// 10.2.3): either delta-seconds, a run of digits, or an HTTP date in any of
// its three forms, which is measured from now. A date in the past gives 0 and
// true; a number of seconds too large for a time.Duration gives the largest
// one. Anything else (a negative or fractional number, an unknown date form,
// an empty value) gives 0 and false. Surrounding spaces and tabs are ignored.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.Trim(value, " \t")
	if value == "" {
		return 0, false
	}
	if d, ok := parseDeltaSeconds(value); ok {
		return d, true
	}
	for _, layout := range httpDateLayouts {
		t, err := time.Parse(layout, value)
		if err != nil {
			continue
		}
		if layout == httpDateLayouts[1] {
			t = fixTwoDigitYear(t, now)
		}
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// parseDeltaSeconds reads a run of ASCII digits as seconds, saturating at
// the largest time.Duration.
func parseDeltaSeconds(s string) (time.Duration, bool) {
	const maxSeconds = int64(math.MaxInt64 / int64(time.Second))
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > maxSeconds {
			continue // already saturated; keep checking the digits
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxSeconds {
		return math.MaxInt64, true
	}
	return time.Duration(n) * time.Second, true
}

// fixTwoDigitYear applies RFC 9110's rule for the two-digit years of the RFC
// 850 form: a date that would lie more than 50 years after now is taken to be
// in the past century, so every date lands in (now−50y, now+50y]. The
// comparison is of dates, not years: in March 2026, January 2076 is less than
// 50 years ahead and stays there, July 2076 is more and becomes 1976.
// time.Parse maps 69–99 to 19xx and 00–68 to 20xx.
func fixTwoDigitYear(t, now time.Time) time.Time {
	t = t.AddDate((now.Year()-t.Year())/100*100, 0, 0) // the century of now, give or take one
	latest := now.AddDate(50, 0, 0)
	for t.After(latest) {
		t = t.AddDate(-100, 0, 0)
	}
	for !t.After(latest.AddDate(-100, 0, 0)) {
		t = t.AddDate(100, 0, 0)
	}
	return t
}
