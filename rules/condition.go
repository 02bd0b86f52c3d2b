package rules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// Condition decides whether a Rule applies to a failure. Build one with
// ErrorIs, ErrorAs, Status, Text, Regexp, Contains or Func, and combine them
// with All, Any and Not. Conditions are values, safe to share between rules
// and between Reflectors, and safe for concurrent use.
//
// Conditions on the error (ErrorIs, ErrorAs, Status) look at
// Failure.Err, the error dispatch returned; conditions on text (Status,
// Text, Regexp, Contains) look at Failure.Error, or at Failure.Err's text
// when Failure.Error is empty. A text longer than 8 KiB is read as its first
// and last 4 KiB.
//
// A condition that panics (a host error whose Is, As, Error, StatusCode or
// RetryAfter method panics, say) counts as not holding. The zero Condition
// is invalid: New panics on it.
type Condition struct {
	match func(v *failureView) bool
}

// ErrorIs holds when an error in Failure.Err's chain is any of targets, by
// the rules of errors.Is (equal to it, or an Is method that says so). The
// walk is bounded and guarded, as the root package's is: a chain that loops
// ends, and a method that panics means no match.
func ErrorIs(targets ...error) Condition {
	targets = slices.Clone(targets)
	return Condition{match: func(v *failureView) bool {
		if v.f.Err == nil {
			return false
		}
		for _, t := range targets {
			if errchain.Is(v.f.Err, t) {
				return true
			}
		}
		return false
	}}
}

// ErrorAs holds when an error in Failure.Err's chain is a T (by the rules of
// errors.As, in a bounded and guarded walk) and match, when not nil, accepts
// it. T may be an interface:
//
//	rules.ErrorAs(func(e net.Error) bool { return e.Timeout() })
//	rules.ErrorAs[*net.DNSError](nil)
func ErrorAs[T error](match func(T) bool) Condition {
	return Condition{match: func(v *failureView) bool {
		if v.f.Err == nil {
			return false
		}
		target, ok := errchain.As[T](v.f.Err)
		if !ok {
			return false
		}
		return match == nil || match(target)
	}}
}

// Status holds when the failure's HTTP status is one of codes. The status is
// the one a StatusCode() int or HTTPStatusCode() int method of an error in
// Failure.Err's chain reports; without such a method, the first one the text
// states where a status is written: after a word that introduces it ("status
// code: 503", "HTTP/1.1 503", "Error 429:", "statusCode: 403"), at the very
// start ("429 Rate limit reached ..."), or before its reason phrase
// ("(503) Service Unavailable").
func Status(codes ...int) Condition {
	codes = slices.Clone(codes)
	return Condition{match: func(v *failureView) bool {
		return slices.Contains(codes, v.status())
	}}
}

// errorStatus is Status for the error chain alone.
func errorStatus(codes ...int) Condition {
	return Condition{match: func(v *failureView) bool {
		return slices.Contains(codes, v.errorStatus())
	}}
}

// textStatus is Status for the text alone.
func textStatus(codes ...int) Condition {
	return Condition{match: func(v *failureView) bool {
		return slices.Contains(codes, v.statusInText())
	}}
}

// Text holds when the regular expression pattern (RE2 syntax, see
// regexp/syntax) matches the failure text, without regard to the case of
// ASCII letters. The pattern is compiled here, once; Text panics when it
// does not compile, as regexp.MustCompile does.
func Text(pattern string) Condition {
	re := regexp.MustCompile("(?i)" + pattern)
	return Condition{match: func(v *failureView) bool { return re.MatchString(v.lower) }}
}

// Regexp holds when re matches the failure text as it is (case counts unless
// re says otherwise). Regexp panics when re is nil.
func Regexp(re *regexp.Regexp) Condition {
	if re == nil {
		panic("rules: Regexp needs a non-nil *regexp.Regexp")
	}
	return Condition{match: func(v *failureView) bool { return re.MatchString(v.text) }}
}

// Contains holds when the failure text contains any of substrs, without
// regard to the case of ASCII letters. An empty substring always matches.
func Contains(substrs ...string) Condition {
	needles := make([]string, len(substrs))
	for i, s := range substrs {
		needles[i] = lowerASCII(s)
	}
	return Condition{match: func(v *failureView) bool { return containsAny(v.lower, needles) }}
}

// Func holds when fn(Failure) returns true. Func panics when fn is nil.
func Func(fn func(f reflection.Failure) bool) Condition {
	if fn == nil {
		panic("rules: Func needs a non-nil function")
	}
	return Condition{match: func(v *failureView) bool { return fn(*v.f) }}
}

// All holds when every one of cs holds, asked in order until one does not.
// All() with no conditions always holds. All panics on a zero Condition.
func All(cs ...Condition) Condition {
	cs = checked("All", cs)
	return Condition{match: func(v *failureView) bool {
		for _, c := range cs {
			if !c.match(v) {
				return false
			}
		}
		return true
	}}
}

// Any holds when at least one of cs holds, asked in order until one does.
// Any() with no conditions never holds. Any panics on a zero Condition.
func Any(cs ...Condition) Condition {
	cs = checked("Any", cs)
	return Condition{match: func(v *failureView) bool {
		for _, c := range cs {
			if c.match(v) {
				return true
			}
		}
		return false
	}}
}

// Not holds when c does not. Not panics on the zero Condition.
func Not(c Condition) Condition {
	checked("Not", []Condition{c})
	return Condition{match: func(v *failureView) bool { return !c.match(v) }}
}

// checked copies cs and panics on a zero Condition among them.
func checked(fn string, cs []Condition) []Condition {
	for i, c := range cs {
		if c.match == nil {
			panic("rules: " + fn + " was given a zero Condition at position " + strconv.Itoa(i))
		}
	}
	return slices.Clone(cs)
}

// phrases holds when the lower-cased text contains any of needles, which
// must be lower case already (the stock table's cheap test).
func (s *needleSet) phrases(needles ...string) Condition {
	mask := maskOf(s.add(needles...))
	return Condition{match: func(v *failureView) bool {
		return mask.any(v.needlesFound(s))
	}}
}

// pattern holds when the lower-cased text contains one of needles and re,
// written for lower-case text, matches near one of their occurrences: in
// the patternReach bytes on either side of it (the stock table's precise
// test, behind a cheap one). Every match of re must contain one of needles
// and stay within that reach of it; a match can then be looked for in a few
// hundred bytes around each occurrence instead of in the whole text, so a
// pattern costs the same on a long text as on a short one. At most
// maxOccurrences occurrences of each needle are tried.
func (s *needleSet) pattern(re string, needles ...string) Condition {
	compiled := regexp.MustCompile(re)
	ids := s.add(needles...)
	mask := maskOf(ids)
	needles = slices.Clone(needles)
	return Condition{match: func(v *failureView) bool {
		found := v.needlesFound(s)
		if !mask.any(found) {
			return false
		}
		for k, id := range ids {
			if !found.has(id) {
				continue
			}
			needle := needles[k]
			for from, tries := 0, 0; tries < maxOccurrences; tries++ {
				i := strings.Index(v.lower[from:], needle)
				if i < 0 {
					break
				}
				at := from + i
				window := v.lower[max(0, at-patternReach):min(len(v.lower), at+len(needle)+patternReach)]
				if compiled.MatchString(window) {
					return true
				}
				from = at + 1
			}
		}
		return false
	}}
}

// startingAt holds when re, which must begin with ^ and one of needles,
// matches from an occurrence of one of needles that does not continue a
// word: a pattern read from its first word, so each try costs a few steps.
func (s *needleSet) startingAt(re string, needles ...string) Condition {
	return s.anchored(re, false, needles)
}

// endingAt holds when re, which must end with one of needles and $,
// matches up to an occurrence of one of needles that no word continues:
// a pattern read back from its last word.
func (s *needleSet) endingAt(re string, needles ...string) Condition {
	return s.anchored(re, true, needles)
}

func (s *needleSet) anchored(re string, atEnd bool, needles []string) Condition {
	compiled := regexp.MustCompile(re)
	ids := s.add(needles...)
	mask := maskOf(ids)
	needles = slices.Clone(needles)
	return Condition{match: func(v *failureView) bool {
		found := v.needlesFound(s)
		if !mask.any(found) {
			return false
		}
		lower := v.lower
		for k, id := range ids {
			if !found.has(id) {
				continue
			}
			needle := needles[k]
			for from, tries := 0, 0; tries < maxOccurrences; tries++ {
				i := strings.Index(lower[from:], needle)
				if i < 0 {
					break
				}
				at, end := from+i, from+i+len(needle)
				from = at + 1
				var window string
				if atEnd {
					if end < len(lower) && isWordByte(lower[end]) {
						continue
					}
					window = lower[max(0, at-anchoredReach):end]
				} else {
					if at > 0 && isWordByte(lower[at-1]) {
						continue
					}
					window = lower[at:min(len(lower), end+anchoredReach)]
				}
				if compiled.MatchString(window) {
					return true
				}
			}
		}
		return false
	}}
}

// patternReach is how far from its needle a match of a pattern may reach,
// anchoredReach the same for one anchored at its needle (startingAt,
// endingAt), and maxOccurrences how many occurrences of one needle a
// pattern tries.
const (
	patternReach   = 160
	anchoredReach  = 96
	maxOccurrences = 16
)

// patternWhole is pattern for a regular expression that must see the whole
// text (one anchored at its end).
func (s *needleSet) patternWhole(re string, needles ...string) Condition {
	compiled := regexp.MustCompile(re)
	cheap := s.phrases(needles...)
	return Condition{match: func(v *failureView) bool {
		return cheap.match(v) && compiled.MatchString(v.lower)
	}}
}

// phrasesBeyondWindow holds when the text beyond the scan window (up to
// authScanLimit) contains any of needles, in either case; s must be a set
// with foldCase.
func (s *needleSet) phrasesBeyondWindow(needles ...string) Condition {
	mask := maskOf(s.add(needles...))
	return Condition{match: func(v *failureView) bool {
		if len(v.full) <= scanLimit {
			return false // the window holds the whole text
		}
		return mask.any(v.needlesFoundBeyondWindow(s))
	}}
}
