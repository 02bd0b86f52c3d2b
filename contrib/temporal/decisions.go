package reflectiontemporal

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// A replay must decide what the original run decided. The settings that
// shape the decisions (the strategy and its jitter, the input check, the
// schema lookup and tool filter, the caps, the recovery notes, an
// in-workflow Reflector) run in workflow code, and Temporal compares only
// some of what workflow code does with the history: an activity's type and
// ID, but neither its input nor a timer's duration. So from version 2 on,
// Run puts a digest of the call's decisions so far in the ID of every
// activity it schedules (Temporal fails the replay when an ID differs), and
// records the digest with workflow.SideEffect where no activity follows: a
// question, and the end of a call that needed recovery. A replay that
// decides otherwise fails its workflow task with a nondeterminism error,
// and the workflow waits, unchanged, for code that decides as it did.

// Where a digest is taken.
const (
	pointTool    = "tool"    // the ID of a tool activity
	pointReflect = "reflect" // the ID of a Reflector activity
	pointVerify  = "verify"  // the ID of a verifier activity
	pointAsk     = "ask"     // recorded before a question waits
	pointEnd     = "end"     // recorded when a call that needed recovery ends
)

// decisionDigest returns the digest of the decisions rep records, taken at
// point, for the call callID that Run began at began (on the workflow's
// clock: two calls under one ID, one after the other, get different
// digests, and so different activity IDs). It covers what recovery decided, in the call's own terms: each
// attempt's tool and input, whether it failed, the verdict of the analysis
// (recoverable, severity, the correction's type, input and tool, the
// Retry-After), whether the Reflector failed, the action and its delay, the
// wait, the question and the answer, the corrections applied or dropped,
// and, at the end, the outcome, whether the result is an error, whether a
// hard error ended the call, and how many recovery notes the result
// carries. It leaves out every free text (failure texts, root causes,
// prompts, reasons, why a correction was dropped) and the attempts' times:
// a new wording changes no decision.
func decisionDigest(callID string, began time.Time, rep *reflection.Report, point string) string {
	d := digester{h: sha256.New()}
	d.str("reflectiontemporal decisions 1")
	d.str(callID)
	d.int(began.UnixNano())
	d.str(point)
	d.int(int64(len(rep.Attempts)))
	for i := range rep.Attempts {
		d.attempt(&rep.Attempts[i])
	}
	if point == pointEnd {
		d.int(int64(rep.Outcome))
		d.bool(rep.Result.IsError)
		d.bool(rep.Error != "")
		d.int(int64(strings.Count(rep.Result.Content, "Recovery note: ")))
	}
	return hex.EncodeToString(d.h.Sum(nil)[:8])
}

// digester writes values to a hash, each one framed, so that no two
// sequences of values write the same bytes.
type digester struct{ h hash.Hash }

func (d digester) int(n int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	d.h.Write(b[:])
}

func (d digester) bool(b bool) {
	if b {
		d.int(1)
		return
	}
	d.int(0)
}

func (d digester) str(s string) {
	d.int(int64(len(s)))
	d.h.Write([]byte(s))
}

func (d digester) attempt(a *reflection.Attempt) {
	d.str(a.Call.Name)
	d.str(string(a.Call.Input))
	d.bool(a.Failed)
	d.bool(a.Analysis != nil)
	if an := a.Analysis; an != nil {
		d.bool(an.IsRecoverable)
		d.int(int64(an.Severity))
		d.int(int64(an.RetryAfter))
		d.correction(an.Correction)
	}
	d.bool(a.ReflectorError != "")
	switch act := a.Action.(type) {
	case nil:
		d.str("")
	case reflection.Retry:
		d.str("retry")
		d.int(int64(act.Delay))
	case reflection.Skip:
		d.str("skip")
	case reflection.AskUser:
		d.str("ask_user")
	case reflection.Fail:
		d.str("fail")
	default:
		d.str(fmt.Sprintf("%T", act))
	}
	d.bool(a.Wait != nil)
	if w := a.Wait; w != nil {
		d.int(int64(w.Delay))
		d.int(int64(w.Hint))
		d.bool(w.Stopped)
	}
	d.bool(a.Ask != nil)
	if ask := a.Ask; ask != nil {
		d.bool(ask.Answer != nil)
		if ans := ask.Answer; ans != nil {
			d.bool(ans.Approve)
			d.str(string(ans.Input))
		}
	}
	d.int(int64(len(a.Corrections)))
	for _, c := range a.Corrections {
		d.correction(&c.Correction)
		d.bool(c.Human)
		d.bool(c.Applied)
	}
}

func (d digester) correction(c *reflection.Correction) {
	d.bool(c != nil)
	if c == nil {
		return
	}
	d.str(string(c.Type))
	d.str(string(c.ModifiedInput))
	d.str(c.AlternativeTool)
}

// activityID returns the ID of the activity Run schedules at point for the
// current attempt: the call ID, the attempt, the point and the digest of
// the decisions so far. A call ID longer than 200 bytes is replaced by a
// digest of it.
func (rt *runtime) activityID(attempt int, point string) string {
	rep := rt.rec.Report()
	return callPart(rt.state.status.CallID) + "/" + strconv.Itoa(attempt) + "/" + point + "/" +
		decisionDigest(rt.state.status.CallID, rt.began, &rep, point)
}

// maxCallIDInActivityID is the longest call ID an activity ID holds as it
// is; a longer one is replaced by digestCallID's digest of it.
const maxCallIDInActivityID = 200

// digestCallID is the stand-in for a call ID too long for an activity ID.
func digestCallID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "sha256-" + hex.EncodeToString(sum[:8])
}

// checkDecisions records the digest of rep's decisions at point with
// workflow.SideEffect; on a replay it compares the recorded digest with the
// one the code decides now, and panics when they differ.
func (rt *runtime) checkDecisions(rep *reflection.Report, point string) {
	id := rt.state.status.CallID
	want := decisionDigest(id, rt.began, rep, point)
	var recorded string
	err := workflow.SideEffectWithOptions(rt.ctx,
		workflow.SideEffectOptions{Summary: "reflection: decisions of call " + strconv.Quote(id) + " (" + point + ")"},
		func(workflow.Context) any { return want }).Get(&recorded)
	if err != nil {
		panic(fmt.Sprintf("reflectiontemporal: read the recorded decisions of call %q: %v", id, err))
	}
	if recorded != want {
		panic(&decisionsChangedError{callID: id, point: point, recorded: recorded, replayed: want})
	}
}

// decisionsChangedError is the panic of a replay that decides otherwise
// than the run it replays: a setting that shapes recovery changed without a
// workflow.GetVersion around the change. The workflow task fails with it
// (and is retried), so the workflow waits, unchanged, for code that decides
// as it did; a replayer returns it as an error. Where an activity follows a
// decision, the replay fails instead with Temporal's own nondeterminism
// error: the activity's ID, which holds the digest, differs.
type decisionsChangedError struct {
	callID, point      string
	recorded, replayed string
}

func (e *decisionsChangedError) Error() string {
	return fmt.Sprintf("reflectiontemporal: nondeterministic replay: call %q decided otherwise at %q than the run in the history "+
		"(digest %s, recorded %s): a setting that shapes recovery changed without workflow.GetVersion",
		e.callID, e.point, e.replayed, e.recorded)
}
