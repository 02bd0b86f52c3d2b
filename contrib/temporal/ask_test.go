package reflectiontemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// permissionDenied is the analysis of a failure a human must look at: the
// default strategy asks the user about a severe failure with a correction.
var permissionDenied = reflection.FailureAnalysis{
	IsRecoverable: true,
	RootCause:     "the token lacks the read scope",
	Severity:      reflection.SeverityHigh,
	Correction:    &reflection.Correction{Type: reflection.Escalate, Guidance: "grant the read scope"},
}

const askPrompt = "high-severity failure with correction available: the token lacks the read scope"

// askingHarness is a call whose first attempt fails with a permission
// error (the tool's error wraps os.ErrPermission) and whose analysis makes
// the default strategy ask the user.
func askingHarness(t *testing.T, then ...reflectiontest.Outcome) (*harness, *reflectiontest.Tool, *reflectiontest.Reflector) {
	t.Helper()
	outcomes := append([]reflectiontest.Outcome{
		reflectiontest.Error(&os.PathError{Op: "open", Path: "/srv/a.txt", Err: os.ErrPermission}),
	}, then...)
	tool := reflectiontest.NewTool(outcomes...)
	refl := reflectiontest.NewReflector(permissionDenied, permissionDenied)
	return newHarness(t, tool.Dispatch, refl), tool, refl
}

func TestAskApprovedByUpdate(t *testing.T) {
	h, tool, _ := askingHarness(t, reflectiontest.Succeed("contents"))
	var asking rt.Status
	var approval *update
	h.at(time.Minute, func() {
		asking = h.query(readCall.ID)
		approval = h.answer(readCall.ID, reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt"}`)})
	})
	got := h.run(nil, readCall, rt.WithAsk(time.Hour))
	require.NoError(t, approval.err())

	require.NoError(t, got.err)
	assert.Equal(t, reflection.ToolResult{ID: readCall.ID, Content: "contents"}, got.res)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
	require.Len(t, tool.Calls(), 2)
	assert.JSONEq(t, `{"path":"b.txt"}`, string(tool.Calls()[1].Input), "the human's input ran")

	first := got.rep.Attempts[0]
	require.NotNil(t, first.Ask)
	assert.Equal(t, askPrompt, first.Ask.Prompt)
	assert.Equal(t, &reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt"}`)}, first.Ask.Answer)
	require.Len(t, first.Corrections, 1)
	assert.True(t, first.Corrections[0].Human)
	assert.True(t, first.Corrections[0].Applied)

	// While it waited, the Query showed the question, and it decodes into
	// the question the machine asked.
	assert.Equal(t, rt.StateAsking, asking.State)
	require.NotNil(t, asking.Ask)
	assert.Equal(t, h.start.Add(time.Hour), asking.Ask.Until)
	q := asking.Ask.Question.Rebuild()
	assert.Equal(t, readCall, q.Call)
	assert.Equal(t, permissionDenied, q.Analysis)
	assert.Equal(t, askPrompt, q.Prompt)
	assert.Equal(t, "open /srv/a.txt: permission denied", q.Failure.Error)
	assert.Equal(t, "read_file", q.Failure.Tool)
	assert.Equal(t, 6, q.Failure.MaxAttempts)
	assert.ErrorIs(t, q.Failure.Err, os.ErrPermission, "the rebuilt error keeps its typed check")
	assert.EqualError(t, q.Failure.Err, "open /srv/a.txt: permission denied")
}

func TestAskDeclinedByUpdate(t *testing.T) {
	h, tool, _ := askingHarness(t, reflectiontest.Succeed("contents"))
	var decline *update
	h.at(time.Minute, func() {
		decline = h.answer(readCall.ID, reflection.Answer{Reply: "use the public copy instead"})
	})
	got := h.run(nil, readCall, rt.WithAsk(time.Hour))
	require.NoError(t, decline.err())

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeAskedUser)
	assert.True(t, got.res.IsError)
	assert.Equal(t, "open /srv/a.txt: permission denied\n\n"+
		"A human decision is needed before this call can be retried: "+askPrompt+"\n\n"+
		"A human declined to retry this call.\n\nuse the public copy instead", got.res.Content)
	assert.Len(t, tool.Calls(), 1)
}

func TestAskTimesOut(t *testing.T) {
	h, tool, _ := askingHarness(t, reflectiontest.Succeed("contents"))
	got := h.run(nil, readCall, rt.WithAsk(30*time.Minute))

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeAskedUser)
	assert.Equal(t, "open /srv/a.txt: permission denied\n\n"+
		"A human decision is needed before this call can be retried: "+askPrompt, got.res.Content,
		"a question nobody answers ends the call as AskUser without an Asker")
	require.NotNil(t, got.rep.Attempts[0].Ask)
	assert.Equal(t, "reflectiontemporal: no answer within 30m0s", got.rep.Attempts[0].Ask.Error)
	assert.Len(t, tool.Calls(), 1)
	assert.Equal(t, h.start.Add(30*time.Minute), h.env.Now().UTC(), "the question waited its whole timeout")
}

func TestAskWithoutWithAskEndsAtOnce(t *testing.T) {
	h, tool, _ := askingHarness(t)
	// A Driver with an Asker makes the machine ask; workflow code cannot
	// call it, so the question is answered with an error at once.
	d := reflection.NewDriver(reflection.WithAsker(reflection.AskerFunc(
		func(_ context.Context, _ reflection.Question) (reflection.Answer, error) {
			t.Error("the Driver's Asker was called from workflow code")
			return reflection.Answer{}, nil
		})))
	got := h.run(d, readCall)

	require.NoError(t, got.err)
	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeAskedUser)
	require.NotNil(t, got.rep.Attempts[0].Ask)
	assert.Contains(t, got.rep.Attempts[0].Ask.Error, "no human can be asked")
	assert.Len(t, tool.Calls(), 1)
}

func TestAnswerValidation(t *testing.T) {
	// The call first waits 10s on a rate-limit hint, then asks about a
	// permission error, is approved, succeeds, and the workflow goes on
	// for an hour.
	tool := reflectiontest.NewTool(
		reflectiontest.Error(rateLimited{after: 10 * time.Second}),
		reflectiontest.Error(&os.PathError{Op: "open", Path: "/srv/a.txt", Err: os.ErrPermission}),
		reflectiontest.Succeed("contents"),
	)
	h := newHarness(t, tool.Dispatch, reflectiontest.NewReflector(recoverable("rate limited"), permissionDenied))
	h.after = func(ctx workflow.Context) { _ = workflow.Sleep(ctx, time.Hour) }
	// The input check runs on an approved input too: the validator asks
	// the machine (Recovery.CheckAnswer) whether it would use the answer.
	d := reflection.NewDriver(reflection.WithInputCheck(func(_ string, input json.RawMessage) error {
		if strings.Contains(string(input), "/secret") {
			return errors.New("the secret directory is off limits")
		}
		return nil
	}))

	type attempt struct {
		name   string
		callID string
		answer reflection.Answer
		want   error  // nil: accepted; errUnknownUpdate: no handler has the name
		says   string // what the rejection says besides want's text
		sent   *update
	}
	var sent []*attempt
	send := func(cases ...attempt) func() {
		return func() {
			for _, c := range cases {
				c.sent = h.answer(c.callID, c.answer)
				sent = append(sent, &c)
			}
		}
	}
	h.at(5*time.Second, send(
		attempt{name: "while the call waits", callID: readCall.ID, answer: reflection.Answer{Approve: true}, want: rt.ErrNoQuestion},
	))
	h.at(time.Minute, send(
		attempt{name: "input that is a string", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`"{\"path\":"`)}, want: reflection.ErrAnswerInput},
		attempt{name: "input that is null", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`null`)}, want: reflection.ErrAnswerInput},
		attempt{name: "input that is an array", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`["b.txt"]`)}, want: reflection.ErrAnswerInput},
		attempt{name: "input whose key repeats", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt","path":"/etc/passwd"}`)},
			want:   reflection.ErrAnswerInput, says: "duplicate keys"},
		attempt{name: "input whose keys differ only in case", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt","PATH":"/etc/passwd"}`)},
			want:   reflection.ErrAnswerInput, says: "duplicate keys"},
		attempt{name: "input the input check refuses", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/secret/b.txt"}`)},
			want:   reflection.ErrAnswerInput, says: "the secret directory is off limits"},
		attempt{name: "another call", callID: "call_9", answer: reflection.Answer{Approve: true}, want: errUnknownUpdate},
		attempt{name: "a valid approval", callID: readCall.ID,
			answer: reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt"}`)}},
		attempt{name: "a second answer", callID: readCall.ID, answer: reflection.Answer{Approve: true}, want: rt.ErrNoQuestion},
	))
	h.at(30*time.Minute, send(
		attempt{name: "after the call ended", callID: readCall.ID, answer: reflection.Answer{Approve: true}, want: rt.ErrNoQuestion},
	))
	got := h.run(d, readCall, rt.WithAsk(time.Hour))

	reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
	assert.Len(t, tool.Calls(), 3)
	assert.Equal(t, &reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"b.txt"}`)}, got.rep.Attempts[1].Ask.Answer,
		"only the valid answer reached the machine")
	require.Len(t, sent, 11)
	for _, c := range sent {
		err := c.sent.err()
		switch c.want {
		case nil:
			assert.NoError(t, err, c.name)
		case errUnknownUpdate:
			assert.ErrorContains(t, err, "unknown update", c.name)
		default:
			assert.ErrorContains(t, err, c.want.Error(), c.name)
			assert.ErrorContains(t, err, c.says, c.name)
			assert.False(t, c.sent.accepted, "%s: the validator accepted it", c.name)
		}
	}
}

// errUnknownUpdate stands for the SDK's rejection of an Update no handler
// is registered for.
var errUnknownUpdate = errors.New("unknown update")
