package rules_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// labelled is one line of testdata/messages.jsonl: a real error message, the
// class a person gave it, and the Retry-After it states, if any.
type labelled struct {
	Class      string `json:"class"`
	Text       string `json:"text"`
	RetryAfter string `json:"retry_after"`
	System     string `json:"system"`
	Source     string `json:"source"`
}

// The classes of the data set. transient is what a retry can get past, and
// rate_limit the part of it where the service asks the caller to slow down;
// auth_expired is a token that expired, which one retry cures (clients
// renew it) and a second does not; auth and quota need a human; vague says
// too little to judge; the others are the caller's or the tool's fault
// (permanent, or one of the finer classes of the first files).
var (
	knownClasses = []string{"transient", "rate_limit", "auth_expired", "auth", "quota", "permanent", "vague",
		"input", "not_found", "conflict", "bug", "config"}
	needsHuman     = map[string]bool{"auth": true, "quota": true}
	nonTransient   = map[string]bool{"quota": true, "permanent": true, "vague": true, "input": true, "not_found": true, "conflict": true, "bug": true, "config": true}
	verdictColumns = []string{"recoverable", "escalate", "other", "skipped", "error"}
)

// labelGroup is the label a class is scored under in the per-label
// figures: the finer classes of the first files are all permanent.
func labelGroup(class string) string {
	switch class {
	case "input", "not_found", "conflict", "bug", "config":
		return "permanent"
	}
	return class
}

// labelGroups are the labels of the per-label figures, in their order.
var labelGroups = []string{"transient", "rate_limit", "auth_expired", "auth", "quota", "permanent", "vague"}

func loadDataset(t testing.TB, file string) []labelled {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var m labelled
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "%s line %d", file, line)
		require.Contains(t, knownClasses, m.Class, "%s line %d", file, line)
		require.NotEmpty(t, m.Text, "%s line %d", file, line)
		require.NotEmpty(t, m.Source, "%s line %d: every message says where it came from", file, line)
		require.NotEmpty(t, m.System, "%s line %d", file, line)
		if m.RetryAfter != "" {
			_, err := time.ParseDuration(m.RetryAfter)
			require.NoError(t, err, "%s line %d", file, line)
		}
		out = append(out, m)
	}
	require.NoError(t, sc.Err())
	return out
}

// verdictOf names what an answer means for the data set.
func verdictOf(a reflection.FailureAnalysis, err error) string {
	switch {
	case errors.Is(err, reflection.ErrSkipped):
		return "skipped"
	case err != nil:
		return "error"
	case a.IsRecoverable:
		return "recoverable"
	case a.Correction != nil && a.Correction.Type == reflection.Escalate:
		return "escalate"
	default:
		return "other"
	}
}

// The data set lives in four files. messages.jsonl was collected while the
// stock table was written; holdout.jsonl was collected and labelled after the
// table was frozen, to show how it does on messages it was not shaped by.
// systems.jsonl holds the wordings of the systems agents call, collected
// while the table was widened to them; holdout_systems.jsonl was collected
// after that, and first measured before any rule changed (transient 90%
// recoverable, expired tokens 75% on the first failure, every other label
// at its bar).
var datasetFiles = []string{"testdata/messages.jsonl", "testdata/holdout.jsonl", "testdata/systems.jsonl", "testdata/holdout_systems.jsonl"}

// TestDataset measures the stock table on real error messages and fails
// below the project's bar, on all the messages together: no credential or
// spent-quota failure ever recoverable, an expired token recoverable on a
// call's first failure in at least 80% of the messages and never on a
// later one, nothing too vague to judge ever recoverable, under 3% of the
// other non-transient failures recoverable, at least 90% of the transient
// failures and of the rate limits recoverable, the Retry-After read right
// from at least 80% of the messages that state one, and, for rate limits,
// within a second of the stated wait in at least 80%. Run it with -v to see
// the scores per class and per label, for each file and for all.
func TestDataset(t *testing.T) {
	var all []labelled
	for _, file := range datasetFiles {
		data := loadDataset(t, file)
		s := scoreDataset(data)
		t.Logf("%s: %d messages%s", file, len(data), s.report())
		all = append(all, data...)
	}
	require.GreaterOrEqual(t, len(all), 150, "the data set holds at least 150 messages")
	s := scoreDataset(all)
	t.Logf("all files: %d messages%s", len(all), s.report())

	require.Zero(t, s.authRecoverable(), "an auth failure was called recoverable")
	require.Zero(t, s.group["quota"].recoverable, "a spent quota was called recoverable")
	require.Zero(t, s.group["vague"].recoverable, "a vague failure was called recoverable")
	require.Zero(t, s.group["auth_expired"].recoverableAfter, "an expired token was called recoverable after the first failure")
	require.GreaterOrEqual(t, pct(s.group["auth_expired"].recoverable, s.group["auth_expired"].n), 80.0,
		"expired tokens recoverable on the first failure")
	require.Less(t, s.nonTransientRecoverablePct(), 3.0, "non-transient failures called recoverable")
	require.GreaterOrEqual(t, s.transientRecallPct(), 90.0, "transient recall")
	require.GreaterOrEqual(t, pct(s.group["rate_limit"].recoverable, s.group["rate_limit"].n), 90.0, "rate limits recoverable")
	require.GreaterOrEqual(t, pct(s.group["rate_limit"].hintNear, s.group["rate_limit"].hintStated), 80.0,
		"rate limits: the stated wait read within a second")
	require.GreaterOrEqual(t, s.retryAfterPct(), 80.0, "Retry-After read from the messages that state one")
}

// groupScore is how the stock table answered the messages of one label:
// recoverable on the first failure, recoverable on a later one (the call's
// second attempt), and, where the message states a wait, how often the hint
// came within a second of it.
type groupScore struct {
	n, recoverable, recoverableAfter, escalated int
	hintStated, hintNear                        int
}

// scores counts how the stock table answered each labelled class.
type scores struct {
	counts               map[string]map[string]int // class -> verdict -> n
	group                map[string]*groupScore    // label group -> scores
	hintStated, hintRead int
	misses               []string
}

func scoreDataset(data []labelled) *scores {
	r := rules.New(rules.Defaults()...)
	s := &scores{counts: map[string]map[string]int{}, group: map[string]*groupScore{}}
	for _, g := range labelGroups {
		s.group[g] = &groupScore{}
	}
	for _, m := range data {
		a, err := r.Analyze(context.Background(), reflection.Failure{Error: m.Text, Tool: "tool"})
		later, laterErr := r.Analyze(context.Background(), reflection.Failure{Error: m.Text, Tool: "tool", Attempt: 1})
		v := verdictOf(a, err)
		if s.counts[m.Class] == nil {
			s.counts[m.Class] = map[string]int{}
		}
		s.counts[m.Class][v]++
		g := s.group[labelGroup(m.Class)]
		g.n++
		if v == "recoverable" {
			g.recoverable++
		}
		if v == "escalate" {
			g.escalated++
		}
		if verdictOf(later, laterErr) == "recoverable" {
			g.recoverableAfter++
		}
		if m.RetryAfter != "" {
			s.hintStated++
			g.hintStated++
			want, _ := time.ParseDuration(m.RetryAfter)
			if a.RetryAfter == want {
				s.hintRead++
			} else {
				s.misses = append(s.misses, fmt.Sprintf("retry-after %v, want %v: %.120q", a.RetryAfter, want, m.Text))
			}
			if v == "recoverable" && (a.RetryAfter-want).Abs() <= time.Second {
				g.hintNear++
			}
		}
		want := map[string]string{"transient": "recoverable", "rate_limit": "recoverable", "auth_expired": "recoverable",
			"auth": "escalate", "quota": "escalate"}[m.Class]
		if (want != "" && v != want) || (want == "" && v == "recoverable") {
			s.misses = append(s.misses, fmt.Sprintf("%s -> %s (%s): %.120q", m.Class, v, a.Context, m.Text))
		}
		if m.Class == "auth_expired" && verdictOf(later, laterErr) == "recoverable" {
			s.misses = append(s.misses, fmt.Sprintf("%s -> recoverable on a later attempt (%s): %.120q", m.Class, later.Context, m.Text))
		}
	}
	return s
}

// total counts the messages of the classes that match, answered with
// verdict ("" for any), and all the messages of those classes.
func (s *scores) total(classes func(string) bool, verdict string) (n, of int) {
	for c, byVerdict := range s.counts {
		if !classes(c) {
			continue
		}
		for v, k := range byVerdict {
			of += k
			if verdict == "" || v == verdict {
				n += k
			}
		}
	}
	return n, of
}

func isClass(c string) func(string) bool { return func(x string) bool { return x == c } }
func anyClass(string) bool               { return true }

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func (s *scores) authRecoverable() int {
	n, _ := s.total(isClass("auth"), "recoverable")
	return n
}

func (s *scores) nonTransientRecoverablePct() float64 {
	return pct(s.total(func(c string) bool { return nonTransient[c] }, "recoverable"))
}

func (s *scores) transientRecallPct() float64 {
	return pct(s.total(isClass("transient"), "recoverable"))
}

// groupReport is the per-label figures: what share of each label was
// answered as the label wants.
func (s *scores) groupReport() string {
	var b strings.Builder
	b.WriteString("per label:\n")
	for _, name := range labelGroups {
		g := s.group[name]
		if g.n == 0 {
			continue
		}
		switch name {
		case "transient":
			fmt.Fprintf(&b, "  %-12s %4d  recoverable %5.1f%% (%d)\n", name, g.n, pct(g.recoverable, g.n), g.recoverable)
		case "rate_limit":
			fmt.Fprintf(&b, "  %-12s %4d  recoverable %5.1f%% (%d), stated wait read within 1s %5.1f%% (%d/%d)\n",
				name, g.n, pct(g.recoverable, g.n), g.recoverable, pct(g.hintNear, g.hintStated), g.hintNear, g.hintStated)
		case "auth_expired":
			fmt.Fprintf(&b, "  %-12s %4d  recoverable on the first failure %5.1f%% (%d), on a later one %d\n",
				name, g.n, pct(g.recoverable, g.n), g.recoverable, g.recoverableAfter)
		case "auth", "quota":
			fmt.Fprintf(&b, "  %-12s %4d  not recoverable %5.1f%% (%d), escalated %d\n",
				name, g.n, pct(g.n-g.recoverable, g.n), g.n-g.recoverable, g.escalated)
		default:
			fmt.Fprintf(&b, "  %-12s %4d  not recoverable %5.1f%% (%d)\n", name, g.n, pct(g.n-g.recoverable, g.n), g.n-g.recoverable)
		}
	}
	return b.String()
}
func (s *scores) retryAfterPct() float64 { return pct(s.hintRead, s.hintStated) }

// report is the table of answers per class, the precision and recall of
// the two verdicts that act, the thresholds' figures, and the messages
// answered against their label.
func (s *scores) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-12s %5s", "class", "n")
	for _, v := range verdictColumns {
		fmt.Fprintf(&b, " %11s", v)
	}
	b.WriteString("\n")
	for _, c := range knownClasses {
		if s.counts[c] == nil {
			continue
		}
		_, n := s.total(isClass(c), "")
		fmt.Fprintf(&b, "%-12s %5d", c, n)
		for _, v := range verdictColumns {
			fmt.Fprintf(&b, " %11d", s.counts[c][v])
		}
		b.WriteString("\n")
	}
	recovTP, transientN := s.total(func(c string) bool { return c == "transient" || c == "rate_limit" || c == "auth_expired" }, "recoverable")
	recovAll, _ := s.total(anyClass, "recoverable")
	escTP, humanN := s.total(func(c string) bool { return needsHuman[c] }, "escalate")
	escAll, _ := s.total(anyClass, "escalate")
	authEsc, authN := s.total(isClass("auth"), "escalate")
	ntRecov, ntN := s.total(func(c string) bool { return nonTransient[c] }, "recoverable")
	fmt.Fprintf(&b, "transient  (answered recoverable): precision %5.1f%% (%d/%d), recall %5.1f%% (%d/%d)\n",
		pct(recovTP, recovAll), recovTP, recovAll, pct(recovTP, transientN), recovTP, transientN)
	fmt.Fprintf(&b, "auth+quota (answered escalate):    precision %5.1f%% (%d/%d), recall %5.1f%% (%d/%d)\n",
		pct(escTP, escAll), escTP, escAll, pct(escTP, humanN), escTP, humanN)
	fmt.Fprintf(&b, "auth: escalate %5.1f%% (%d/%d), recoverable %d\n", pct(authEsc, authN), authEsc, authN, s.authRecoverable())
	fmt.Fprintf(&b, "non-transient answered recoverable: %4.1f%% (%d/%d)\n", pct(ntRecov, ntN), ntRecov, ntN)
	fmt.Fprintf(&b, "Retry-After read right: %5.1f%% (%d/%d)\n", s.retryAfterPct(), s.hintRead, s.hintStated)
	b.WriteString(s.groupReport())
	if len(s.misses) > 0 {
		fmt.Fprintf(&b, "answered against the label (%d):\n  %s\n", len(s.misses), strings.Join(s.misses, "\n  "))
	}
	return b.String()
}
