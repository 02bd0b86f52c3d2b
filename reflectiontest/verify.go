package reflectiontest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// observed is what one run of a scenario did, whoever ran it.
type observed struct {
	dispatched  []reflection.ToolCall
	keys        []string // the idempotency key of each dispatch
	failures    []reflection.Failure
	strategy    [][2]int // attempt, maxAttempts
	questions   []reflection.Question
	approved    map[int]bool   // the attempts whose question a human approved
	verified    []verification // what the verifier was asked, in order
	filterCalls [][2]string
	corrected   []bool
	finished    []reflection.CallEnd // what Observer.Finished saw (Outcome and Reason unset)
	ended       []reflection.CallEnd
	logs        *logRecorder

	ran     Ran
	elapsed time.Duration
	ctxErr  error // the caller's ctx.Err() once the call returned
	tokens  int   // the retry budget's tokens once the call returned
}

// snapshot returns what the scripted pieces recorded.
func (s *Scenario) snapshot() observed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

// The words the checks look for in texts whose wording is the machine's.
const (
	circuitText  = "tool temporarily unavailable: circuit breaker open"
	effectWords  = "taken effect"
	actedWords   = "may already have taken effect"
	budgetWords  = "retry budget"
	decisionWord = "human decision"
	declinedWord = "declined"
)

// verify checks the run against the invariants and the model's prediction.
func (s *Scenario) verify(t *testing.T, w *expect, o *observed) {
	t.Helper()
	s.verifyInvariants(t, o)
	s.verifyCourse(t, w, o)
	s.verifyResult(t, w, o)
	s.verifyRecords(t, w, o)
}

// verifyInvariants checks the rules that need no model: the ceiling, the
// effect guard, the idempotency key, a call that is never lost, the cancel.
func (s *Scenario) verifyInvariants(t *testing.T, o *observed) {
	t.Helper()
	res, err := o.ran.Result, o.ran.Err
	if n := len(o.dispatched); n > reflection.MaxRecoveryAttempts+1 {
		t.Errorf("ceiling: the tool ran %d times, at most %d may run", n, reflection.MaxRecoveryAttempts+1)
	}
	if n := len(o.failures); n > reflection.MaxRecoveryAttempts+1 {
		t.Errorf("ceiling: the Reflector was asked %d times", n)
	}
	if res.ID != s.Call.ID {
		t.Errorf("the result's ID is %q, want the caller's %q", res.ID, s.Call.ID)
	}
	succeeded := err == nil && !res.IsError
	if err != nil && !res.IsError {
		t.Errorf("a hard error (%v) came with a result whose IsError is false", err)
	}
	if o.ctxErr != nil && !succeeded && !errors.Is(err, o.ctxErr) {
		t.Errorf("cancel: ctx ended (%v) and the call neither succeeded nor returned an error matching it: %+v, %v", o.ctxErr, res, err)
	}
	if s.effects == nil {
		return
	}
	// After an ambiguous failure, a tool that is not idempotent runs again
	// only with a human's approval, and a keyed tool only unchanged; once a
	// guarded tool failed ambiguously, every later dispatch of it in the
	// call follows an approval given just before it. A verifier's "not
	// applied" takes the failure in question back: as if it had no effect.
	uncleared := s.unclearedActs(o)
	for k := 0; k+1 < len(o.dispatched) && k < len(s.steps); k++ {
		call, next := o.dispatched[k], o.dispatched[k+1]
		if o.approved[k] {
			continue
		}
		for _, j := range uncleared[k] {
			if o.dispatched[j].Name == next.Name {
				t.Errorf("effects: tool %q failed ambiguously at attempt %d and ran again at attempt %d without an approval just before",
					next.Name, j, k+1)
				break
			}
		}
		if !s.steps[k].does.ambiguous() || s.notApplied(o, k) {
			continue
		}
		switch e := s.effectOf(call.Name); e {
		case reflection.EffectReadOnly, reflection.EffectIdempotent:
		case reflection.EffectKeyed:
			if !sameCall(call, next) {
				t.Errorf("effects: keyed tool %q failed ambiguously at attempt %d and the retry ran a changed call %q %s without a human's approval",
					call.Name, k, next.Name, next.Input)
			}
		default:
			t.Errorf("effects: tool %q (%v) failed ambiguously at attempt %d and ran again without a human's approval", call.Name, e, k)
		}
	}
	key := ""
	for i, call := range o.dispatched {
		if i >= len(o.keys) {
			break
		}
		got := o.keys[i]
		if s.effectOf(call.Name) == reflection.EffectKeyed && got == "" {
			t.Errorf("effects: keyed tool %q ran at attempt %d without an idempotency key", call.Name, i)
		}
		if got != "" && key != "" && got != key {
			t.Errorf("effects: attempt %d ran under idempotency key %q, an earlier one under %q", i, got, key)
		}
		if got != "" {
			key = got
		}
	}
}

// verifyCourse compares what the tool, the Reflector, the strategy, the
// filter and the human were asked with the model.
func (s *Scenario) verifyCourse(t *testing.T, w *expect, o *observed) {
	t.Helper()
	if !s.sameCalls(o.dispatched, w.dispatched) {
		t.Errorf("dispatched calls:\n got %s\nwant %s", callsText(o.dispatched), callsText(w.dispatched))
	}
	if o.elapsed != w.elapsed {
		t.Errorf("time spent = %v, want %v (the tools' own time and the waits)", o.elapsed, w.elapsed)
	}
	if len(o.failures) != len(w.failures) {
		t.Errorf("the Reflector was asked %d times, want %d", len(o.failures), len(w.failures))
	}
	for i := range min(len(o.failures), len(w.failures)) {
		got, want := o.failures[i], w.failures[i]
		if !w.texts[i].match(got.Error) {
			t.Errorf("Failure[%d].Error = %q, want %v", i, got.Error, w.texts[i])
		}
		if msg := w.errs[i].check(got.Err); msg != "" {
			t.Errorf("Failure[%d].Err = %#v: %s", i, got.Err, msg)
		}
		if !s.sameFailure(got, want) {
			got.Error, got.Err = "", nil
			t.Errorf("Failure[%d]:\n got %+v\nwant %+v", i, got, want)
		}
	}
	var attempts []int
	for _, sc := range o.strategy {
		attempts = append(attempts, sc[0])
		if sc[1] != reflection.MaxRecoveryAttempts+1 {
			t.Errorf("the strategy got maxAttempts %d, want %d", sc[1], reflection.MaxRecoveryAttempts+1)
		}
	}
	if !reflect.DeepEqual(attempts, w.strategy) {
		t.Errorf("the strategy was asked about attempts %v, want %v", attempts, w.strategy)
	}
	if s.filterFn && !reflect.DeepEqual(o.filterCalls, w.filterCalls) {
		t.Errorf("tool-change filter calls %v, want %v", o.filterCalls, w.filterCalls)
	}
	if len(o.verified) != len(w.verified) {
		t.Errorf("the verifier was asked %d times, want %d", len(o.verified), len(w.verified))
	}
	for i := range min(len(o.verified), len(w.verified)) {
		if got, want := o.verified[i].call, w.verified[i]; !sameCall(got, want) {
			t.Errorf("verification %d is about %s %s, want %s %s", i, got.Name, got.Input, want.Name, want.Input)
		}
	}
	if len(o.questions) != len(w.questions) {
		t.Errorf("a human was asked %d times, want %d", len(o.questions), len(w.questions))
	}
	for i := range min(len(o.questions), len(w.questions)) {
		got, want := o.questions[i], w.questions[i]
		if got.Failure.Attempt != want.attempt {
			t.Errorf("question %d is about attempt %d, want %d", i, got.Failure.Attempt, want.attempt)
		}
		switch {
		case want.effect && !strings.Contains(got.Prompt, effectWords):
			t.Errorf("question %d: the effect guard's prompt %q does not say the call may have %s", i, got.Prompt, effectWords)
		case want.warned && (!strings.Contains(got.Prompt, effectWords) || !strings.HasSuffix(got.Prompt, want.prompt)):
			t.Errorf("question %d: prompt %q, want the effect guard's warning, then the strategy's %q", i, got.Prompt, want.prompt)
		case !want.effect && !want.warned && got.Prompt != want.prompt:
			t.Errorf("question %d: prompt %q, want the strategy's %q", i, got.Prompt, want.prompt)
		}
		if s.effects != nil && (got.Dispatches != want.dispatches || got.MayHaveActed != want.mayActed) {
			t.Errorf("question %d counts %d dispatches of which %d may have acted, want %d and %d",
				i, got.Dispatches, got.MayHaveActed, want.dispatches, want.mayActed)
		}
	}
}

// verifyResult compares what the call returned with the model.
func (s *Scenario) verifyResult(t *testing.T, w *expect, o *observed) {
	t.Helper()
	res, err := o.ran.Result, o.ran.Err
	// The latest failure text, exactly as the Reflector saw it when it did.
	var latest text
	if n := len(w.texts); n > 0 {
		latest = w.texts[n-1]
		if len(o.failures) == n {
			latest = exactText(o.failures[n-1].Error)
		}
	}
	switch {
	case w.outcome == reflection.OutcomeSucceeded:
		if err != nil || res != w.success {
			t.Errorf("the call returned %+v, %v; want %+v, nil", res, err, w.success)
		}
		return
	case w.hard == hardNone:
		if err != nil {
			t.Errorf("the call returned the error %v, want a soft result (%v, %s)", err, w.outcome, w.reason)
		}
		if !res.IsError {
			t.Errorf("the soft result %+v has IsError false", res)
		}
	default:
		if err == nil {
			t.Errorf("the call returned %+v and no error, want a hard error (%v)", res, w.hard)
			return
		}
		s.verifyHardError(t, w, o)
	}
	s.verifyContent(t, res.Content, w.content, latest, err)
	if w.hard != hardExhausted && errors.Is(err, reflection.ErrToolRecoveryExhausted) {
		t.Errorf("the call returned %v: exhausted without a sixth failed call", err)
	}
}

// verifyHardError checks a hard error against its kind.
func (s *Scenario) verifyHardError(t *testing.T, w *expect, o *observed) {
	t.Helper()
	err := o.ran.Err
	var ex *reflection.ToolRecoveryExhaustedError
	isEx := errors.As(err, &ex)
	switch w.hard {
	case hardExhausted:
		if !isEx || !errors.Is(err, reflection.ErrToolRecoveryExhausted) {
			t.Errorf("the call returned %v, want a *ToolRecoveryExhaustedError", err)
		} else if *ex != (reflection.ToolRecoveryExhaustedError{Tool: s.Call.Name, Attempts: reflection.MaxRecoveryAttempts + 1}) {
			t.Errorf("exhausted error %+v, want Tool %q and Attempts %d", *ex, s.Call.Name, reflection.MaxRecoveryAttempts+1)
		}
	case hardCanceled:
		if isEx || !errors.Is(err, context.Canceled) || !errors.Is(err, o.ctxErr) {
			t.Errorf("the call returned %v, want an error matching context.Canceled (ctx.Err() = %v)", err, o.ctxErr)
		}
		if s.withCause && !errors.Is(err, errCause) {
			t.Errorf("the call returned %v, want it to carry the cancel cause", err)
		}
	case hardDeadline:
		if isEx || !errors.Is(err, context.DeadlineExceeded) || o.ctxErr != nil && !errors.Is(err, o.ctxErr) {
			t.Errorf("the call returned %v, want an error matching context.DeadlineExceeded (ctx.Err() = %v)", err, o.ctxErr)
		}
	case hardWaitRefused:
		if isEx || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the call returned %v, want a refused wait matching context.DeadlineExceeded", err)
		}
	case hardLoop:
		var le *reflection.LoopDetectedError
		if !errors.As(err, &le) || !errors.Is(err, reflection.ErrLoopDetected) {
			t.Errorf("the call returned %v, want a *LoopDetectedError", err)
		} else if *le != w.loop {
			t.Errorf("loop detected %+v, want %+v", *le, w.loop)
		}
	}
}

// verifyContent checks the Content of a call that did not succeed.
func (s *Scenario) verifyContent(t *testing.T, content string, c contentWant, latest text, err error) {
	t.Helper()
	if c.acted > 0 { // a closing warning, after everything else
		i := strings.LastIndex(content, "\n\n")
		if i < 0 || !strings.Contains(content[i:], actedWords) || !strings.Contains(content[i:], strconv.Itoa(c.acted)) {
			t.Errorf("Content = %q: want a closing paragraph that says the call %s, %d times", content, actedWords, c.acted)
			return
		}
		content = content[:i]
	}
	switch {
	case c.circuit:
		want := circuitText
		if c.retryIn > 0 {
			want += "; retry in about " + strconv.Itoa(c.retryIn) + "s"
		}
		base := content
		if c.afterFailure {
			i := strings.LastIndex(content, "\n\n")
			if i < 0 || !latest.match(content[:i]) {
				t.Errorf("Content = %q, want the latest failure text %v, then the breaker's refusal", content, latest)
				return
			}
			base = content[i+2:]
		}
		if base != want {
			t.Errorf("Content = %q, want the breaker's %q", content, want)
		}
		return
	case c.budget:
		i := strings.LastIndex(content, "\n\n")
		if i < 0 || !latest.match(content[:i]) || !strings.Contains(content[i:], budgetWords) {
			t.Errorf("Content = %q, want the latest failure text %v, then a sentence on the %s", content, latest, budgetWords)
		}
		return
	case c.loop:
		if !strings.Contains(content, err.Error()) || !strings.Contains(content, "refused") {
			t.Errorf("Content = %q, want it to say the dispatch was refused, with %q", content, err.Error())
		}
		return
	case c.fromErr:
		if content != errchain.Text(err) {
			t.Errorf("Content = %q, want the error's text %q (no attempt failed)", content, errchain.Text(err))
		}
		return
	case !c.ask:
		if !latest.match(content) {
			t.Errorf("Content = %q, want the latest failure text %v", content, latest)
		}
		return
	}
	// The failure text, then a blank line and a sentence that a human
	// decision is needed; a refusal adds another, and the reply.
	base, rest := content, ""
	if latest.isExact && strings.HasPrefix(content, latest.exact) {
		base, rest = latest.exact, content[len(latest.exact):]
	} else if i := strings.Index(content, "\n\n"); i >= 0 {
		base, rest = content[:i], content[i:]
	}
	if !latest.match(base) {
		t.Errorf("Content = %q, want it to start with the latest failure text %v", content, latest)
	}
	parts := strings.Split(strings.TrimPrefix(rest, "\n\n"), "\n\n")
	want := 1
	if c.declined {
		want = 2
		if c.reply != "" {
			want = 3
		}
	}
	if !strings.HasPrefix(rest, "\n\n") || len(parts) != want {
		t.Errorf("Content = %q: after the failure text, want %d paragraph(s), got %q", content, want, rest)
		return
	}
	switch sentence := parts[0]; {
	case !strings.Contains(sentence, decisionWord):
		t.Errorf("Content = %q: %q does not say a %s is needed", content, sentence, decisionWord)
	case c.effect && !strings.Contains(sentence, effectWords):
		t.Errorf("Content = %q: %q does not say the call may have %s", content, sentence, effectWords)
	case !c.effect && !strings.Contains(sentence, c.prompt):
		t.Errorf("Content = %q: %q does not carry the prompt %q", content, sentence, c.prompt)
	}
	if c.declined && !strings.Contains(parts[1], declinedWord) {
		t.Errorf("Content = %q: %q does not say a human %s", content, parts[1], declinedWord)
	}
	if c.reply != "" && parts[2] != c.reply {
		t.Errorf("Content = %q: the reply is %q, want %q", content, parts[2], c.reply)
	}
}

// verifyRecords checks the Outcome and the Reason, the Report, the
// Observer, the log and the retry budget.
func (s *Scenario) verifyRecords(t *testing.T, w *expect, o *observed) {
	t.Helper()
	res, err := o.ran.Result, o.ran.Err
	if rep := o.ran.Report; rep != nil {
		if rep.Result != res {
			t.Errorf("the Report's result %+v, the call returned %+v", rep.Result, res)
		}
		if rep.Outcome != w.outcome || rep.Reason != w.reason {
			t.Errorf("the Report says %v/%q, want %v/%q", rep.Outcome, rep.Reason, w.outcome, w.reason)
		}
		// A runtime may wrap the machine's error for its platform (a
		// workflow's non-retryable error): its text then carries the
		// Report's.
		if text := errchain.Text(err); (rep.Error == "") != (err == nil) || !strings.Contains(text, rep.Error) {
			t.Errorf("the Report's error %q, the call returned %q", rep.Error, text)
		}
		calls := make([]reflection.ToolCall, len(rep.Attempts))
		var corrected []bool
		for i, a := range rep.Attempts {
			calls[i] = a.Call
			for _, c := range a.Corrections {
				corrected = append(corrected, c.Applied)
			}
		}
		if !s.sameCalls(calls, o.dispatched) {
			t.Errorf("the Report's attempts ran %s, the tool saw %s", callsText(calls), callsText(o.dispatched))
		}
		if !reflect.DeepEqual(corrected, w.corrected) {
			t.Errorf("the Report's corrections applied %v, want %v", corrected, w.corrected)
		}
	}
	if s.observer {
		if len(o.finished) != 1 || len(o.ended) != 1 {
			t.Errorf("Observer.Finished called %d times and Ended %d times, want once each", len(o.finished), len(o.ended))
		} else {
			f, e := o.finished[0], o.ended[0]
			if f.Result != res || f.Err != err || f.Calls != len(o.dispatched) {
				t.Errorf("Observer.Finished saw %+v, %v after %d calls; the call returned %+v, %v after %d", f.Result, f.Err, f.Calls, res, err, len(o.dispatched))
			}
			if e.Result != res || e.Err != err || e.Outcome != w.outcome || e.Reason != w.reason || e.Calls != len(o.dispatched) {
				t.Errorf("Observer.Ended saw %+v, want %v/%q after %d calls", e, w.outcome, w.reason, len(o.dispatched))
			}
		}
		if !reflect.DeepEqual(o.corrected, w.corrected) {
			t.Errorf("Observer.Corrected applied flags %v, want %v", o.corrected, w.corrected)
		}
	}
	if s.logger {
		if got := o.logs.count(slog.LevelWarn, "correction dropped"); got != w.dropped {
			t.Errorf("%d warn logs of dropped corrections, want %d\n%s", got, w.dropped, o.logs.text())
		}
	}
	if s.budget > 0 && o.tokens != w.tokens {
		t.Errorf("the retry budget has %d tokens after the call, want %d", o.tokens, w.tokens)
	}
}

// check returns what is wrong with err, or "".
func (k errWant) check(err error) string {
	switch k {
	case errNil:
		if err != nil {
			return "want nil for a result with IsError"
		}
	case errPanic:
		if !errors.Is(err, reflection.ErrPanicked) {
			return "want an error matching ErrPanicked"
		}
	case errNoEffect:
		if !errors.Is(err, reflection.ErrNoEffect) {
			return "want an error matching ErrNoEffect"
		}
	case errTimeout:
		if !errors.Is(err, context.DeadlineExceeded) {
			return "want an error matching context.DeadlineExceeded"
		}
	default:
		if err == nil {
			return "want the error dispatch returned"
		}
	}
	return ""
}

// sameInput compares inputs byte for byte, or over the wire as JSON values.
func (s *Scenario) sameInput(a, b []byte) bool {
	if s.wire {
		return sameJSON(a, b)
	}
	return bytes.Equal(a, b)
}

func (s *Scenario) sameCalls(a, b []reflection.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Name != b[i].Name || !s.sameInput(a[i].Input, b[i].Input) {
			return false
		}
	}
	return true
}

// sameFailure compares a Failure with the model's, but for Error and Err.
func (s *Scenario) sameFailure(got, want reflection.Failure) bool {
	return got.Tool == want.Tool && s.sameInput(got.Input, want.Input) && got.Task == want.Task &&
		got.Attempt == want.Attempt && got.MaxAttempts == want.MaxAttempts && got.Effect == want.Effect &&
		(got.Schema == nil) == (want.Schema == nil) &&
		(got.Schema == nil || got.Schema.Name == want.Schema.Name && got.Schema.Description == want.Schema.Description &&
			s.sameInput(got.Schema.InputSchema, want.Schema.InputSchema))
}

func callsText(cs []reflection.ToolCall) string {
	var sb strings.Builder
	for _, c := range cs {
		in := c.Input
		if len(in) > 40 {
			in = append(bytes.Clone(in[:40]), "…"...)
		}
		fmt.Fprintf(&sb, "{%q %q %q} ", c.ID, c.Name, in)
	}
	return sb.String()
}

// logRecorder is a slog.Handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// count returns how many records at level have a message containing msg.
func (h *logRecorder) count(level slog.Level, msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.records {
		if r.Level == level && strings.Contains(r.Message, msg) {
			n++
		}
	}
	return n
}

// text renders every record, one a line.
func (h *logRecorder) text() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var sb strings.Builder
	for _, r := range h.records {
		fmt.Fprintf(&sb, "%s %s", r.Level, r.Message)
		r.Attrs(func(a slog.Attr) bool {
			fmt.Fprintf(&sb, " %s=%q", a.Key, a.Value.String())
			return true
		})
		sb.WriteByte('\n')
	}
	return sb.String()
}

// verification is one question the verifier was asked: about which call,
// after which attempt.
type verification struct {
	attempt int
	call    reflection.ToolCall
}

// unclearedActs returns, for each attempt k, the earlier dispatches (k
// included) of guarded tools that failed ambiguously and that no verifier
// took back by the end of attempt k, as the machine keeps them: a
// verification is about the latest such dispatch of its call's tool.
func (s *Scenario) unclearedActs(o *observed) map[int][]int {
	out := map[int][]int{}
	var acts []int
	n := 0
	for k := 0; k < len(o.dispatched) && k < len(s.steps); k++ {
		if s.steps[k].does.ambiguous() {
			if e := s.effectOf(o.dispatched[k].Name); e == reflection.EffectNonIdempotent || e == reflection.EffectUndeclared {
				acts = append(acts, k)
			}
		}
		for ; n < len(o.verified) && o.verified[n].attempt == k; n++ {
			if s.verdicts[min(n, len(s.verdicts)-1)] != verdictNotAppliedDraw {
				continue
			}
			for i := len(acts) - 1; i >= 0; i-- {
				if o.dispatched[acts[i]].Name == o.verified[n].call.Name {
					acts = append(acts[:i:i], acts[i+1:]...)
					break
				}
			}
		}
		out[k] = append([]int(nil), acts...)
	}
	return out
}

// notApplied reports whether a verifier said, after attempt k, that the
// failed attempt in question did not act: as good as an approval.
func (s *Scenario) notApplied(o *observed, k int) bool {
	n := 0
	for _, v := range o.verified {
		if v.attempt == k && s.verdicts[min(n, len(s.verdicts)-1)] == verdictNotAppliedDraw {
			return true
		}
		n++
	}
	return false
}
