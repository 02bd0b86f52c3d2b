package rules

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// A delay as messages write it: a Go duration ("1.5s", "1m30s", "644ms"), or
// a number with an optional unit word ("30 seconds", "5 min", "35").
const delayPattern = `(?:((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|h|m|s))+)\b|(\d+(?:\.\d+)?)\s*` +
	`(milliseconds?|millis|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|hr|h)?\b)`

// The words a sentence that asks for a wait starts with, and the pattern of
// its start, up to the delay.
var waitSentenceStarts = []string{"retry", "try again", "trying again", "try back", "wait", "reset", "available again",
	"expected available in", "take a break for"}

const waitSentence = `^(?:(?:retry|retrying|try again|trying again|try back)(?: (?:this|the|your) (?:request|call|operation))?\s+(?:after|in)|` +
	`wait(?:ing)?(?: for)?|resets?\s+in|available again\s+in|expected available\s+in|take a break for)\s+(?:about |approximately |around |roughly |at least |~)?`

// maxHintTries bounds how many places of one text a form's pattern is
// tried at: a text that repeats "retry" a thousand times costs no more than
// one that says it a few dozen times.
const maxHintTries = 48

// A hint is looked for only where one of its words occurs, and read from
// there with an anchored pattern over the next hintWidth bytes: a text costs
// a few substring searches, however long it is.
const hintWidth = 96

// hintForm is one way of stating a retry delay: the words it starts with,
// and the anchored pattern that reads it from there.
type hintForm struct {
	starts []string
	re     *regexp.Regexp
	read   func(text, lower string, m []int, now func() time.Time) (time.Duration, bool)
}

var hintForms = []hintForm{
	{
		// A Retry-After header or a retry_after field given in milliseconds
		// ("retry-after-ms: 2000", "x-ms-retry-after-ms: 2000").
		starts: []string{"retry-after-ms", "retry_after_ms"},
		re:     regexp.MustCompile(`^retry[-_]after[-_]ms["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)`),
		read: func(_, lower string, m []int, _ func() time.Time) (time.Duration, bool) {
			return parseDelay(lower[m[2]:m[3]], "", "ms")
		},
	},
	{
		// A Retry-After header, a retry_after field or a retryAfter property
		// ("Retry-After: 30", "\"retry_after\": 0.5", "retry-after: Wed, 21 Oct
		// 2015 07:28:00 GMT").
		starts: []string{"retry-after", "retry_after", "retry after", "retryafter"},
		re:     regexp.MustCompile(`^retry[-_ ]?after["']?\s*[:=]\s*["']?([^"'\r\n;}\]]{1,40})`),
		read: func(text, lower string, m []int, now func() time.Time) (time.Duration, bool) {
			return readHeaderValue(text[m[2]:m[3]], lower[m[2]:m[3]], now)
		},
	},
	{
		// A sentence that asks for a wait ("Please try again in 2.4s", "retry
		// after 20 seconds", "Too Many Requests: retry after 35", "Please retry
		// in 43.1s", "you may retry this request in 30 seconds", "wait 30
		// seconds before", "the limit resets in 3 minutes", "try again in 2
		// minutes and 30 seconds").
		starts: waitSentenceStarts,
		re:     regexp.MustCompile(waitSentence + delayPattern + `(?:,?\s*(?:and\s+)?(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?)\b)?`),
		read: func(_, lower string, m []int, _ func() time.Time) (time.Duration, bool) {
			d, ok := delayFromMatch(lower, m[2:])
			if ok && m[8] >= 0 {
				more, ok2 := parseDelay(lower[m[8]:m[9]], lower[m[10]:m[11]], "s")
				if ok2 && d <= math.MaxInt64-more {
					d += more
				}
			}
			return d, ok
		},
	},
	{
		// A sentence that asks for a wait in words ("Please wait a few minutes
		// before you try again", "try again in a minute", "retry in an
		// hour"). The wait is read as the most a reader would take it for: a
		// or an is 1, a couple 2, a few 3, several 5.
		starts: waitSentenceStarts,
		re: regexp.MustCompile(waitSentence + `(?:(a|an|one)\s+)?(?:(few|couple(?: of)?|several)\s+)?` +
			`(seconds?|minutes?|hours?)\b`),
		read: func(_, lower string, m []int, _ func() time.Time) (time.Duration, bool) {
			if m[2] < 0 && m[4] < 0 {
				return 0, false // "wait minutes": no count at all
			}
			count := 1
			if m[4] >= 0 {
				switch lower[m[4]] {
				case 'c':
					count = 2
				case 'f':
					count = 3
				default: // several
					count = 5
				}
			}
			return parseDelay(strconv.Itoa(count), lower[m[6]:m[7]], "s")
		},
	},
	{
		// Hugging Face's loading model ("estimated_time": 20.0, in seconds).
		starts: []string{"estimated_time"},
		re:     regexp.MustCompile(`^estimated_time["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)`),
		read: func(_, lower string, m []int, _ func() time.Time) (time.Duration, bool) {
			return parseDelay(lower[m[2]:m[3]], "", "s")
		},
	},
	{
		// A rate limit's reset as a header: Discord's X-RateLimit-Reset-After
		// (seconds), and X-RateLimit-Reset or RateLimit-Reset, seconds from
		// now or, from 10^9 on, the Unix time of the reset (GitHub's).
		starts: []string{"ratelimit-reset", "ratelimit_reset"},
		re:     regexp.MustCompile(`^ratelimit[-_]reset([-_]after)?["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)\b`),
		read: func(_, lower string, m []int, now func() time.Time) (time.Duration, bool) {
			value := lower[m[4]:m[5]]
			if m[2] < 0 && len(value) >= 10 && isDigits(value) {
				unix, err := strconv.ParseInt(value, 10, 64)
				if err != nil {
					return 0, false
				}
				return max(time.Unix(unix, 0).Sub(now()), 0), true
			}
			return parseDelay(value, "", "s")
		},
	},
	{
		// Google's RetryInfo as JSON ("retryDelay": "43s").
		starts: []string{"retrydelay"},
		re:     regexp.MustCompile(`^retrydelay["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)s`),
		read: func(_, lower string, m []int, _ func() time.Time) (time.Duration, bool) {
			return parseDelay(lower[m[2]:m[3]], "", "s")
		},
	},
}

// delayValuePattern reads the start of a value that is a delay, not a date.
var delayValuePattern = regexp.MustCompile(`^` + delayPattern)

// hintRoots are short words that every start word of hintForms contains:
// the text is searched for these few, and a form is tried only where one
// of its start words stands around an occurrence.
var hintRoots = []string{"try", "wait", "reset", "estimated_time", "available", "take a break"}

// hintStart is a start word of a form, placed around its root: the word
// begins offset bytes before the root's occurrence.
type hintStart struct {
	form   int
	word   string
	offset int
}

// hintStartsByRoot lists, for each of hintRoots, the start words that hold
// it, in the order of hintForms.
var hintStartsByRoot = func() [][]hintStart {
	out := make([][]hintStart, len(hintRoots))
	for f, form := range hintForms {
		for _, word := range form.starts {
			placed := false
			for r, root := range hintRoots {
				if i := strings.Index(word, root); i >= 0 {
					out[r] = append(out[r], hintStart{form: f, word: word, offset: i})
					placed = true
					break
				}
			}
			if !placed {
				panic("rules: the hint start " + word + " holds none of hintRoots")
			}
		}
	}
	return out
}()

// maxHintOffset is the farthest a start word begins before its root.
var maxHintOffset = func() int {
	n := 0
	for _, starts := range hintStartsByRoot {
		for _, st := range starts {
			n = max(n, st.offset)
		}
	}
	return n
}()

// retryAfterInText returns the first retry delay that the failure text
// states: the one that starts earliest, and of two at the same place, the
// one of the form listed first. text is the original and lower its
// ASCII-lower-cased copy (same offsets); an HTTP date is read from text,
// measured from now().
func retryAfterInText(text, lower string, now func() time.Time) (time.Duration, bool) {
	best, bestAt, bestForm, found := time.Duration(0), len(lower)+1, 0, false
	tries := 0
	for r, root := range hintRoots {
		for from := 0; ; {
			i := strings.Index(lower[from:], root)
			if i < 0 {
				break
			}
			p := from + i
			from = p + 1
			if p-maxHintOffset >= bestAt {
				break // every later start would begin after the best
			}
			for _, st := range hintStartsByRoot[r] {
				at := p - st.offset
				if at < 0 || at > bestAt || (at == bestAt && st.form >= bestForm) || !strings.HasPrefix(lower[at:], st.word) {
					continue
				}
				if tries++; tries > maxHintTries {
					return best, found
				}
				form := &hintForms[st.form]
				m := form.re.FindStringSubmatchIndex(lower[at:min(len(lower), at+hintWidth)])
				if m == nil {
					continue
				}
				for k := range m {
					if m[k] >= 0 {
						m[k] += at
					}
				}
				if d, ok := form.read(text, lower, m, now); ok {
					best, bestAt, bestForm, found = d, at, st.form, true
				}
			}
		}
	}
	return best, found
}

// readHeaderValue reads the value of a Retry-After field: a delay (seconds
// when it has no unit) or an HTTP date in any of its three forms.
func readHeaderValue(value, lower string, now func() time.Time) (time.Duration, bool) {
	if m := delayValuePattern.FindStringSubmatchIndex(lower); m != nil {
		return delayFromMatch(lower, m[2:])
	}
	value = strings.TrimSpace(value)
	if i := strings.Index(lower, "gmt"); i >= 0 {
		// The IMF-fixdate and RFC 850 forms end with GMT.
		return reflection.ParseRetryAfter(strings.TrimSpace(value[:i+3]), now())
	}
	const asctimeLen = len("Mon Jan _2 15:04:05 2006")
	if len(value) >= asctimeLen {
		return reflection.ParseRetryAfter(value[:asctimeLen], now())
	}
	return 0, false
}

// delayFromMatch reads the groups of delayPattern: g holds the index pairs
// of its three groups (Go duration; number; unit word).
func delayFromMatch(s string, g []int) (time.Duration, bool) {
	if g[0] >= 0 {
		return parseDelay(s[g[0]:g[1]], "", "")
	}
	unit := ""
	if g[4] >= 0 {
		unit = s[g[4]:g[5]]
	}
	return parseDelay(s[g[2]:g[3]], unit, "s")
}

// parseDelay turns a number and a unit word into a duration. A number with
// no unit word is read as Go duration syntax when fallback is "", else in the
// fallback unit. A delay too long for a time.Duration gives the longest one.
func parseDelay(number, unit, fallback string) (time.Duration, bool) {
	var suffix string
	switch {
	case unit == "":
		suffix = fallback
	case strings.HasPrefix(unit, "ms"), strings.HasPrefix(unit, "milli"):
		suffix = "ms"
	case strings.HasPrefix(unit, "s"):
		suffix = "s"
	case strings.HasPrefix(unit, "m"):
		suffix = "m"
	case strings.HasPrefix(unit, "h"):
		suffix = "h"
	default:
		return 0, false
	}
	d, err := time.ParseDuration(number + suffix)
	if err != nil {
		if strings.Contains(err.Error(), "invalid duration") && isDecimal(number) {
			// Only overflow makes a well-formed number fail.
			return math.MaxInt64, true
		}
		return 0, false
	}
	return d, true
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// isDecimal reports whether s is digits with at most one decimal point.
func isDecimal(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot && i > 0:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return s != ""
}

// containsAny reports whether s contains any of the needles.
func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}
