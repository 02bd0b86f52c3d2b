package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loopctl-go/reflection"
)

// unknownToolNeedles are the words one of which every unknown-tool message
// contains.
var unknownToolNeedles = []string{
	"unknown tool", "unknown function", "unrecognized", "unregistered", "undefined", "unsupported",
	"invalid tool", "invalid function", "no such", "no tool", "no function", "not found",
	"not exist", "n't exist", "is not available", "is not registered", "is not defined",
	"is not supported", "not a valid tool",
}

// unknownToolPattern finds the name in the ways agent frameworks and MCP
// servers say that a tool does not exist: "unknown tool \"x\"" (the MCP Go
// SDK), "Unknown tool: x" (the MCP Python SDK), "Tool x not found" (the MCP
// TypeScript SDK, eino), "no such tool: x", "unknown function x", "x is not
// a valid tool" (LangChain, langchaingo), or a bare "Unknown tool". The name
// is the one group that matched (none for the bare form). It runs on the
// lower-cased text, whose offsets are those of the original.
var unknownToolPattern = regexp.MustCompile(
	`(?:unknown|unrecognized|unregistered|undefined|unsupported|invalid) (?:tool|function)(?: name)?(?:\s*[:=]\s*|\s+)["'\x60]?([\w.\-/]+)|` +
		`no (?:such )?(?:tool|function)(?: named| called| with name)?(?:\s*[:=]\s*|\s+)["'\x60]?([\w.\-/]+)|` +
		`(?:tool|function) not found(?:\s*[:=]\s*|\s+)["'\x60]?([\w.\-/]+)|` +
		`(?:tool|function)\s+["'\x60]?([\w.\-/]+)["'\x60]?\s+(?:was )?(?:not found|does not exist|doesn't exist|is not (?:found|available|registered|defined|supported))|` +
		`["'\x60]?([\w.\-/]+)["'\x60]? is not a valid tool|` +
		`^\W*(?:unknown|unrecognized) (?:tool|function)\W*$`)

// UnknownTool returns a rule for a call to a tool that does not exist: when
// the failure says so ("unknown tool \"serach\"", "Tool serach not found",
// "no such tool: serach", "serach is not a valid tool", ...), it answers
// with a ToolChange to the name in tools closest to the one called
// (recoverable, SeverityMedium), so the Driver retries with that tool.
//
// The name in the message must be the failing tool's (Failure.Tool), when
// both are known, so "tool \"jq\" not found" from a shell tool is left
// alone. Closeness is the edit distance (with transpositions) between the
// names lower-cased, with separators and camel case ignored and word order
// too ("readFile" is "read_file", "search_web" is "web_search"); a name
// qualifies within a quarter of the longer name's length (names shorter than
// four letters must match exactly once normalised). The rule never names a
// tool the list lacks, and declines (an error wrapping reflection.ErrSkipped)
// when no name is close enough, when two are equally close, or when the list
// holds the called name itself.
//
// The called name is the model's to choose, so its cost is bounded by the
// list, not by the name: a name more than twice as long as the longest
// listed one (plus 16 bytes) is declined before anything is computed from
// it, and each distance stops as soon as it exceeds what the pair allows.
func UnknownTool(tools ...string) Rule {
	index := newToolIndex(tools)
	return unknownToolRule(func() *toolIndex { return index })
}

// UnknownToolFunc is UnknownTool with the list of tools asked of tools on
// each failure that names an unknown tool, for hosts whose tools change.
// UnknownToolFunc panics when tools is nil; a panic in tools becomes an
// error wrapping reflection.ErrInternal.
func UnknownToolFunc(tools func() []string) Rule {
	if tools == nil {
		panic("rules: UnknownToolFunc needs a non-nil function")
	}
	return unknownToolRule(func() *toolIndex { return newToolIndex(tools()) })
}

func unknownToolRule(index func() *toolIndex) Rule {
	return Rule{
		Name: "unknown-tool",
		When: Condition{match: func(v *failureView) bool {
			_, ok := unknownToolName(v)
			return ok
		}},
		Then: Verdict{compile: func(rule string) answerFunc {
			ctx := ruleContext(rule)
			return func(v *failureView) (reflection.FailureAnalysis, error) {
				name, _ := unknownToolName(v)
				best, err := index().closest(name)
				if err != nil {
					return reflection.FailureAnalysis{}, fmt.Errorf("rules: rule %q declines: %w: %w", rule, err, reflection.ErrSkipped)
				}
				return reflection.FailureAnalysis{
					IsRecoverable: true,
					RootCause:     fmt.Sprintf("the tool %q does not exist", name),
					Severity:      reflection.SeverityMedium,
					Correction: &reflection.Correction{
						Type:            reflection.ToolChange,
						Description:     fmt.Sprintf("call %q, the closest name among the host's tools", best),
						AlternativeTool: best,
					},
					Context: ctx,
				}, nil
			}
		}},
	}
}

// unknownToolName returns the tool an unknown-tool message names (the
// failing tool when the message names none it can read), and whether the
// failure is such a message about the failing tool.
func unknownToolName(v *failureView) (string, bool) {
	if !(strings.Contains(v.lower, "tool") || strings.Contains(v.lower, "function")) ||
		!containsAny(v.lower, unknownToolNeedles) {
		return "", false
	}
	m := unknownToolPattern.FindStringSubmatchIndex(v.lower)
	if m == nil {
		return "", false
	}
	name := ""
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 {
			name = strings.TrimRight(v.text[m[g]:m[g+1]], ".-/")
			break
		}
	}
	tool := v.f.Tool
	switch {
	case name == "" && tool == "":
		return "", false
	case name == "":
		return tool, true
	case tool != "" && !sameToolName(name, tool):
		return "", false // the message is about something else
	case tool != "":
		return tool, true
	default:
		return name, true
	}
}

// toolIndex is a host's list of tools, normalised once.
type toolIndex struct {
	names   []string
	keys    []toolKey
	longest int // the longest name, in bytes
	widest  int // the longest key, in runes
}

// toolKey is a tool name normalised two ways: its words joined in order,
// and joined sorted.
type toolKey struct{ ordered, sorted []rune }

func newToolIndex(tools []string) *toolIndex {
	ix := &toolIndex{}
	for _, t := range tools {
		if t == "" || slices.Contains(ix.names, t) {
			continue
		}
		k := keyOf(t)
		ix.names = append(ix.names, t)
		ix.keys = append(ix.keys, k)
		ix.longest = max(ix.longest, len(t))
		ix.widest = max(ix.widest, len(k.ordered))
	}
	return ix
}

// longestCalledName is the longest called name, in bytes, that closest
// reads for a list whose longest name is longest bytes. A name qualifies
// only within a quarter of the longer name's length, so it can be at most a
// third longer than a listed one once normalised; twice as long, plus room
// for separators, is a margin no real name needs. A longer name is
// refused before anything is computed from it: the model chooses it, and
// nothing else bounds it.
func longestCalledName(longest int) int { return 2*longest + 16 }

// closest returns the one tool whose name is closest to name, or an error
// that says why there is none.
func (ix *toolIndex) closest(name string) (string, error) {
	if len(name) > longestCalledName(ix.longest) {
		return "", fmt.Errorf("the called name is %d bytes, longer than any of %d tools can be close to", len(name), len(ix.names))
	}
	if slices.Contains(ix.names, name) {
		return "", fmt.Errorf("the host lists %q itself", name)
	}
	want := keyOf(name)
	rows := newDistanceRows(ix.widest)
	best, bestDist, ties := "", -1, 0
	for i, k := range ix.keys {
		limit := allowedDistance(len(want.ordered), len(k.ordered))
		d := min(editDistanceWithin(want.ordered, k.ordered, limit, rows), editDistanceWithin(want.sorted, k.sorted, limit, rows))
		if d > limit {
			continue
		}
		switch {
		case bestDist < 0 || d < bestDist:
			best, bestDist, ties = ix.names[i], d, 1
		case d == bestDist:
			ties++
		}
	}
	switch {
	case bestDist < 0:
		return "", fmt.Errorf("no tool among %d is close to %q", len(ix.names), name)
	case ties > 1:
		return "", fmt.Errorf("%d tools are equally close to %q", ties, name)
	}
	return best, nil
}

// allowedDistance is how far two normalised names of lengths a and b may be
// apart: a quarter of the longer one, so names under four letters must be
// equal.
func allowedDistance(a, b int) int { return max(a, b) / 4 }

// sameToolName reports whether a and b are one name once normalised: the
// same letters and digits, ignoring case and separators ("readFile",
// "read_file", "READ-FILE"). It compares them rune by rune without building
// either form, so a long name costs no more than the shorter one's length
// and the separators read on the way.
func sameToolName(a, b string) bool {
	for {
		ra, na := nextNameRune(a)
		rb, nb := nextNameRune(b)
		if ra != rb {
			return false
		}
		if ra < 0 {
			return true
		}
		a, b = a[na:], b[nb:]
	}
}

// nextNameRune returns the first letter or digit of s, lower-cased, and the
// bytes read to reach past it; -1 when s has none.
func nextNameRune(s string) (rune, int) {
	for i, r := range s {
		if isWordRune(r) {
			return unicode.ToLower(r), i + utf8.RuneLen(r)
		}
	}
	return -1, len(s)
}

// keyOf splits name into lower-case words (at separators and at camel-case
// humps: "readFile", "read_file", "read-file" and "READ FILE" give read,
// file) and joins them, in order and sorted.
func keyOf(name string) toolKey {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case !isWordRune(r):
			flush()
			continue
		case isUpper(r) && i > 0 && (isLower(runes[i-1]) || (i+1 < len(runes) && isLower(runes[i+1]) && isUpper(runes[i-1]))):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	ordered := []rune(strings.Join(words, ""))
	slices.Sort(words)
	return toolKey{ordered: ordered, sorted: []rune(strings.Join(words, ""))}
}

func isWordRune(r rune) bool {
	return r >= '0' && r <= '9' || isLower(r) || isUpper(r) || r > 0x7f
}
func isLower(r rune) bool { return r >= 'a' && r <= 'z' }
func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }

// distanceRows are the three rows editDistanceWithin works in, sized for
// the longest key of a tool list and reused across its keys.
type distanceRows [3][]int

func newDistanceRows(width int) *distanceRows {
	var r distanceRows
	for i := range r {
		r[i] = make([]int, width+1)
	}
	return &r
}

// editDistanceWithin is the optimal-string-alignment distance between a and
// b (insertions, deletions, substitutions and swaps of neighbours each cost
// 1) when it is at most limit, and limit+1 when it is more. It fills only the
// cells within limit of the diagonal and stops at the first row with none
// within limit, so it costs O(limit·len(a)) however the strings differ.
// rows must hold len(b)+1 cells each.
func editDistanceWithin(a, b []rune, limit int, rows *distanceRows) int {
	over := limit + 1
	if limit < 0 {
		return over
	}
	if d := len(a) - len(b); d > limit || -d > limit {
		return over
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = min(j, over)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		if lo == 1 {
			cur[0] = min(i, over)
		} else {
			cur[lo-1] = over
		}
		if hi < len(b) {
			cur[hi+1] = over
		}
		best := over
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			c = min(c, over)
			cur[j] = c
			best = min(best, c)
		}
		if best > limit {
			return over
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
