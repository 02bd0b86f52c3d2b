package reflection_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The rules of a human in the loop, each tested through
// Driver.Run or RunWithReport with a scripted Asker. Every test runs in a
// synctest bubble, so waits take no real time.

// askCall is the call these tests make: a write the tool refuses.
var askCall = reflection.ToolCall{ID: "call-7", Name: "write_file", Input: json.RawMessage(`{"path":"/etc/report.txt"}`)}

const (
	askDenied = "open /etc/report.txt: permission denied"
	askPrompt = "write the report under /tmp instead?"
)

// askMoveToTmp is the correction the Reflector proposes for the refusal.
func askMoveToTmp() *reflection.Correction {
	return &reflection.Correction{
		Type:          reflection.InputFix,
		Description:   "write under /tmp",
		ModifiedInput: json.RawMessage(`{"path":"/tmp/report.txt"}`),
	}
}

// askAnalysis is the Reflector's answer: recoverable, severe, with c.
func askAnalysis(c *reflection.Correction) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "no write permission on /etc",
		Severity:      reflection.SeverityHigh,
		Correction:    c,
	}
}

// askerReply is one scripted answer of an askerScript: an Answer, an error,
// or a panic.
type askerReply struct {
	ans    reflection.Answer
	err    error
	panics any
}

var askApprove = askerReply{ans: reflection.Answer{Approve: true}}

// askerScript is an Asker that gives its replies in order (the last one
// again past the end) and records every question it is put, with the task
// of the ctx it was given.
type askerScript struct {
	replies []askerReply

	mu        sync.Mutex
	questions []reflection.Question
	tasks     []string
}

func newAskerScript(replies ...askerReply) *askerScript {
	return &askerScript{replies: replies}
}

func (s *askerScript) Ask(ctx context.Context, q reflection.Question) (reflection.Answer, error) {
	s.mu.Lock()
	n := len(s.questions)
	s.questions = append(s.questions, q)
	s.tasks = append(s.tasks, reflection.TaskFromContext(ctx))
	s.mu.Unlock()
	r := s.replies[min(n, len(s.replies)-1)]
	if r.panics != nil {
		panic(r.panics)
	}
	return r.ans, r.err
}

func (s *askerScript) Questions() []reflection.Question {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]reflection.Question(nil), s.questions...)
}

// askFixes renders a report's correction records of one attempt.
func askFixes(a reflection.Attempt) []string {
	var out []string
	for _, c := range a.Corrections {
		s := fmt.Sprintf("%s human=%v applied=%v", c.Correction.Type, c.Human, c.Applied)
		if c.Why != "" {
			s += " (" + c.Why + ")"
		}
		out = append(out, s)
	}
	return out
}

// TestAskApprovedRetries: an approval applies the analysis' correction, then
// the human's own input under the guards of an InputFix, and retries at once.
func TestAskApprovedRetries(t *testing.T) {
	toTmp := json.RawMessage(`{"path":"/tmp/report.txt"}`)
	tests := []struct {
		name        string
		correction  *reflection.Correction
		answer      reflection.Answer
		opts        []reflection.Option
		wantRetry   reflection.ToolCall // the second dispatch
		wantFixes   []string
		wantChecked []string // the calls the input check saw, "tool input"
	}{
		{
			name:        "the correction applies",
			correction:  askMoveToTmp(),
			answer:      reflection.Answer{Approve: true},
			wantRetry:   reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes:   []string{"input_fix human=false applied=true"},
			wantChecked: []string{`write_file {"path":"/tmp/report.txt"}`},
		},
		{
			name:       "a reply given with an approval is ignored",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Reply: "fine"},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes:  []string{"input_fix human=false applied=true"},
			wantChecked: []string{
				`write_file {"path":"/tmp/report.txt"}`,
			},
		},
		{
			name:       "without a correction the call runs again unchanged",
			correction: nil,
			answer:     reflection.Answer{Approve: true},
			wantRetry:  askCall,
		},
		{
			name:       "advice is not applied",
			correction: &reflection.Correction{Type: reflection.Escalate, Guidance: "ask the admin"},
			answer:     reflection.Answer{Approve: true},
			wantRetry:  askCall,
		},
		{
			name:       "the human's input replaces the corrected input",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/home/ada/report.txt"}`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: json.RawMessage(`{"path":"/home/ada/report.txt"}`)},
			wantFixes:  []string{"input_fix human=false applied=true", "input_fix human=true applied=true"},
			wantChecked: []string{
				`write_file {"path":"/tmp/report.txt"}`,
				`write_file {"path":"/home/ada/report.txt"}`,
			},
		},
		{
			name:       "the human's input applies when the correction is dropped",
			correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`"/tmp"`)},
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/home/ada/report.txt"}`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: json.RawMessage(`{"path":"/home/ada/report.txt"}`)},
			wantFixes: []string{
				"input_fix human=false applied=false (modified_input is not a JSON object)",
				"input_fix human=true applied=true",
			},
			wantChecked: []string{`write_file {"path":"/home/ada/report.txt"}`},
		},
		{
			name:       "a tool change and the human's input both apply",
			correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "write_tmp"},
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"name":"report.txt"}`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_tmp", Input: json.RawMessage(`{"name":"report.txt"}`)},
			wantFixes:  []string{"tool_change human=false applied=true", "input_fix human=true applied=true"},
			wantChecked: []string{
				`write_tmp {"path":"/etc/report.txt"}`,
				`write_tmp {"name":"report.txt"}`,
			},
		},
		{
			name:       "human input that is not an object is dropped",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`["/home/ada/report.txt"]`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes: []string{
				"input_fix human=false applied=true",
				"input_fix human=true applied=false (modified_input is not a JSON object)",
			},
			wantChecked: []string{`write_file {"path":"/tmp/report.txt"}`},
		},
		{
			name:       "human input that is not JSON is dropped",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes: []string{
				"input_fix human=false applied=true",
				"input_fix human=true applied=false (modified_input is not a JSON object)",
			},
			wantChecked: []string{`write_file {"path":"/tmp/report.txt"}`},
		},
		{
			name:       "human input with duplicate keys is dropped",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/tmp/a","Path":"/etc/passwd"}`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes: []string{
				"input_fix human=false applied=true",
				"input_fix human=true applied=false (modified_input has duplicate keys (exact or differing only in case))",
			},
			wantChecked: []string{`write_file {"path":"/tmp/report.txt"}`},
		},
		{
			name:       "human input over the size limit is dropped",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/home/ada/reports/2026/report.txt"}`)},
			opts:       []reflection.Option{reflection.WithMaxCorrectedInput(30)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes: []string{
				"input_fix human=false applied=true",
				"input_fix human=true applied=false (modified_input is 44 bytes, over the limit of 30)",
			},
			wantChecked: []string{`write_file {"path":"/tmp/report.txt"}`},
		},
		{
			name:       "human input that fails the input check is dropped",
			correction: askMoveToTmp(),
			answer:     reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/root/report.txt"}`)},
			wantRetry:  reflection.ToolCall{ID: askCall.ID, Name: "write_file", Input: toTmp},
			wantFixes: []string{
				"input_fix human=false applied=true",
				"input_fix human=true applied=false (the corrected call fails the input check)",
			},
			wantChecked: []string{
				`write_file {"path":"/tmp/report.txt"}`,
				`write_file {"path":"/root/report.txt"}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var checked []string
				check := func(tool string, input json.RawMessage) error {
					checked = append(checked, tool+" "+string(input))
					if strings.Contains(string(input), "/root/") {
						return errors.New("no writes under /root")
					}
					return nil
				}
				tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
				asker := newAskerScript(askerReply{ans: tt.answer})
				opts := append([]reflection.Option{
					reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(tt.correction))),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: askPrompt})),
					reflection.WithAsker(asker),
					reflection.WithInputCheck(check),
				}, tt.opts...)
				start := time.Now()

				rep, err := reflection.NewDriver(opts...).RunWithReport(context.Background(), askCall, tool.Dispatch)

				require.NoError(t, err)
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeSucceeded)
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"}, rep.Result)
				calls := tool.Calls()
				require.Len(t, calls, 2)
				assert.Equal(t, askCall, calls[0])
				assert.Equal(t, tt.wantRetry.Name, calls[1].Name, "retried tool")
				assert.JSONEq(t, string(tt.wantRetry.Input), string(calls[1].Input), "retried input")
				assert.Len(t, asker.Questions(), 1)
				assert.Equal(t, tt.wantFixes, askFixes(rep.Attempts[0]), "corrections")
				assert.Equal(t, tt.wantChecked, checked, "input checks")
				assert.Zero(t, time.Since(start), "an approval without a hint retries at once")
			})
		})
	}
}

// TestAskCountsTowardTheCeiling: an approved retry is a retry like any other,
// so the sixth call's failure is never asked about and the call ends as it
// would without an Asker.
func TestAskCountsTowardTheCeiling(t *testing.T) {
	ask := reflection.AskUser{Prompt: askPrompt}
	retry := reflection.Retry{}
	tests := []struct {
		name      string
		actions   []reflection.RecoveryAction // one per failure
		wantAsked int
		wantErr   error
		wantText  string
		want      reflection.Outcome
	}{
		{
			name:      "asked after each of the first five failures, not the sixth",
			actions:   []reflection.RecoveryAction{ask, ask, ask, ask, ask, ask},
			wantAsked: 5,
			wantText:  "failure 6\n\nA human decision is needed before this call can be retried: " + askPrompt,
			want:      reflection.OutcomeAskedUser,
		},
		{
			name:      "retries then an AskUser on the sixth failure",
			actions:   []reflection.RecoveryAction{retry, retry, retry, retry, retry, ask},
			wantAsked: 0,
			wantText:  "failure 6\n\nA human decision is needed before this call can be retried: " + askPrompt,
			want:      reflection.OutcomeAskedUser,
		},
		{
			name:      "approvals then a Retry on the sixth failure is exhaustion",
			actions:   []reflection.RecoveryAction{ask, ask, ask, ask, ask, retry},
			wantAsked: 5,
			wantErr:   reflection.ErrToolRecoveryExhausted,
			wantText:  "failure 6",
			want:      reflection.OutcomeExhausted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var script []reflectiontest.Outcome
				var analyses []reflection.FailureAnalysis
				for i := 1; i <= 6; i++ {
					script = append(script, reflectiontest.Fail(fmt.Sprintf("failure %d", i)))
					analyses = append(analyses, askAnalysis(nil))
				}
				tool := reflectiontest.NewTool(script...)
				asker := newAskerScript(askApprove)
				d := reflection.NewDriver(
					reflection.WithReflector(reflectiontest.NewReflector(analyses...)),
					reflection.WithStrategy(reflectiontest.NewStrategy(tt.actions...)),
					reflection.WithAsker(asker),
				)

				rep, err := d.RunWithReport(context.Background(), askCall, tool.Dispatch)

				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Len(t, tool.Calls(), 6, "calls")
				questions := asker.Questions()
				require.Len(t, questions, tt.wantAsked, "questions")
				for i, q := range questions {
					assert.Equal(t, i, q.Failure.Attempt, "question %d asked about attempt", i)
				}
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: tt.wantText, IsError: true}, rep.Result)
				reflectiontest.AssertOutcome(t, rep, tt.want)
				assert.Nil(t, rep.Attempts[5].Ask, "the sixth failure's question")
			})
		})
	}
}

// TestAskEndsTheCall: a refusal, an Asker that fails, and no Asker at all
// each end the call softly, with exactly the texts of section 3.
func TestAskEndsTheCall(t *testing.T) {
	const needed = askDenied + "\n\nA human decision is needed before this call can be retried: " + askPrompt
	errBusy := errors.New("the approval service is down")
	tests := []struct {
		name      string
		prompt    string
		noAsker   bool
		reply     askerReply
		want      string
		wantAsk   *reflection.Ask // the report's record; nil when nobody was asked
		wantLog   string          // a message the log must have at Error level
		wantIsErr error           // what the Asked hook's error matches
	}{
		{
			name:    "declined",
			prompt:  askPrompt,
			reply:   askerReply{ans: reflection.Answer{}},
			want:    needed + "\n\nA human declined to retry this call.",
			wantAsk: &reflection.Ask{Prompt: askPrompt, Answer: &reflection.Answer{}},
		},
		{
			name:    "declined with a reply",
			prompt:  askPrompt,
			reply:   askerReply{ans: reflection.Answer{Reply: "keep it in /etc; ask the admin for access"}},
			want:    needed + "\n\nA human declined to retry this call.\n\nkeep it in /etc; ask the admin for access",
			wantAsk: &reflection.Ask{Prompt: askPrompt, Answer: &reflection.Answer{Reply: "keep it in /etc; ask the admin for access"}},
		},
		{
			name:   "declined with input but no approval: the input is ignored",
			prompt: askPrompt,
			reply:  askerReply{ans: reflection.Answer{Input: json.RawMessage(`{"path":"/tmp/x"}`), Reply: "no"}},
			want:   needed + "\n\nA human declined to retry this call.\n\nno",
			wantAsk: &reflection.Ask{Prompt: askPrompt,
				Answer: &reflection.Answer{Input: json.RawMessage(`{"path":"/tmp/x"}`), Reply: "no"}},
		},
		{
			name:    "declined, no prompt",
			prompt:  "",
			reply:   askerReply{ans: reflection.Answer{Reply: "not now"}},
			want:    askDenied + "\n\nA human decision is needed before this call can be retried.\n\nA human declined to retry this call.\n\nnot now",
			wantAsk: &reflection.Ask{Answer: &reflection.Answer{Reply: "not now"}},
		},
		{
			name:      "the asker fails",
			prompt:    askPrompt,
			reply:     askerReply{err: errBusy},
			want:      needed,
			wantAsk:   &reflection.Ask{Prompt: askPrompt, Error: errBusy.Error()},
			wantLog:   "reflection: asker failed",
			wantIsErr: errBusy,
		},
		{
			name:      "the asker fails but also approves: the error wins",
			prompt:    askPrompt,
			reply:     askerReply{ans: reflection.Answer{Approve: true}, err: errBusy},
			want:      needed,
			wantAsk:   &reflection.Ask{Prompt: askPrompt, Error: errBusy.Error()},
			wantLog:   "reflection: asker failed",
			wantIsErr: errBusy,
		},
		{
			name:      "the asker returns a cancel of its own while the call's ctx lives",
			prompt:    askPrompt,
			reply:     askerReply{err: context.Canceled},
			want:      needed,
			wantAsk:   &reflection.Ask{Prompt: askPrompt, Error: context.Canceled.Error()},
			wantLog:   "reflection: asker failed",
			wantIsErr: context.Canceled,
		},
		{
			name:      "the asker panics",
			prompt:    askPrompt,
			reply:     askerReply{panics: "terminal gone"},
			want:      needed,
			wantAsk:   &reflection.Ask{Prompt: askPrompt, Error: "asker panicked: terminal gone"},
			wantLog:   "reflection: asker failed",
			wantIsErr: reflection.ErrPanicked,
		},
		{
			name:      "the asker panics with an error",
			prompt:    askPrompt,
			reply:     askerReply{panics: errBusy},
			want:      needed,
			wantAsk:   &reflection.Ask{Prompt: askPrompt, Error: "asker panicked: " + errBusy.Error()},
			wantLog:   "reflection: asker failed",
			wantIsErr: reflection.ErrPanicked,
		},
		{
			name:    "no asker",
			prompt:  askPrompt,
			noAsker: true,
			want:    needed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs bytes.Buffer
				logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				var hookErr error
				hooks := 0
				tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
				asker := newAskerScript(tt.reply)
				opts := []reflection.Option{
					reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(askMoveToTmp()))),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: tt.prompt})),
					reflection.WithLogger(logger),
					reflection.WithObserver(reflection.Observer{Asked: func(_ context.Context, _ int, _ reflection.Question, _ reflection.Answer, err error) {
						hooks++
						hookErr = err
					}}),
				}
				if !tt.noAsker {
					opts = append(opts, reflection.WithAsker(asker))
				}

				rep, err := reflection.NewDriver(opts...).RunWithReport(context.Background(), askCall, tool.Dispatch)

				require.NoError(t, err, "a soft end")
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: tt.want, IsError: true}, rep.Result)
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeAskedUser)
				assert.Len(t, tool.Calls(), 1, "calls")
				assert.Equal(t, tt.wantAsk, rep.Attempts[0].Ask, "the report's record of the question")
				assert.Empty(t, rep.Attempts[0].Corrections, "nothing applied")
				if tt.noAsker {
					assert.Empty(t, asker.Questions())
					assert.Zero(t, hooks, "Asked hook calls")
					return
				}
				assert.Len(t, asker.Questions(), 1)
				assert.Equal(t, 1, hooks, "Asked hook calls")
				if tt.wantIsErr != nil {
					assert.ErrorIs(t, hookErr, tt.wantIsErr, "the Asked hook's error")
				} else {
					assert.NoError(t, hookErr)
				}
				if tt.wantLog != "" {
					assert.Contains(t, logs.String(), `"level":"ERROR","msg":"`+tt.wantLog+`"`)
				} else {
					assert.NotContains(t, logs.String(), `"level":"ERROR"`)
				}
			})
		})
	}
}

// TestAskCancelWhileAsking: when the call's ctx ends while the human is
// being asked, Run returns the hard cancel error, whatever the Asker says.
func TestAskCancelWhileAsking(t *testing.T) {
	errShutdown := errors.New("host shutting down")
	tests := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		asker  func(cancel context.CancelFunc) reflection.Asker
		wantIs []error
	}{
		{
			name: "the deadline passes while the human thinks",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Minute)
			},
			asker: func(context.CancelFunc) reflection.Asker {
				return reflection.AskerFunc(func(ctx context.Context, _ reflection.Question) (reflection.Answer, error) {
					<-ctx.Done()
					return reflection.Answer{}, ctx.Err()
				})
			},
			wantIs: []error{context.DeadlineExceeded},
		},
		{
			name: "the caller cancels while the human thinks",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(10*time.Second, cancel)
				return ctx, cancel
			},
			asker: func(context.CancelFunc) reflection.Asker {
				return reflection.AskerFunc(func(ctx context.Context, _ reflection.Question) (reflection.Answer, error) {
					<-ctx.Done()
					return reflection.Answer{}, ctx.Err()
				})
			},
			wantIs: []error{context.Canceled},
		},
		{
			name: "a cancel with a cause",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancelCause(context.Background())
				return ctx, func() { cancel(errShutdown) }
			},
			asker: func(cancel context.CancelFunc) reflection.Asker {
				return reflection.AskerFunc(func(ctx context.Context, _ reflection.Question) (reflection.Answer, error) {
					cancel()
					return reflection.Answer{}, ctx.Err()
				})
			},
			wantIs: []error{context.Canceled, errShutdown},
		},
		{
			name: "the human approves after the cancel: the cancel wins",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithCancel(context.Background())
			},
			asker: func(cancel context.CancelFunc) reflection.Asker {
				return reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
					cancel()
					return reflection.Answer{Approve: true}, nil
				})
			},
			wantIs: []error{context.Canceled},
		},
		{
			name: "the asker fails after the cancel: the cancel wins",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithCancel(context.Background())
			},
			asker: func(cancel context.CancelFunc) reflection.Asker {
				return reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
					cancel()
					panic("the terminal closed")
				})
			},
			wantIs: []error{context.Canceled},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := tt.ctx()
				defer cancel()
				tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
				d := reflection.NewDriver(
					reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(askMoveToTmp()))),
					reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: askPrompt})),
					reflection.WithAsker(tt.asker(cancel)),
				)

				rep, err := d.RunWithReport(ctx, askCall, tool.Dispatch)

				for _, want := range tt.wantIs {
					require.ErrorIs(t, err, want)
				}
				assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: askDenied, IsError: true}, rep.Result,
					"the hard error carries the latest failure text")
				reflectiontest.AssertOutcome(t, rep, reflection.OutcomeStopped)
				assert.Equal(t, err.Error(), rep.Error)
				assert.Len(t, tool.Calls(), 1, "no call after the cancel")
			})
		})
	}
}

// TestAskQuestion: the Asker is given the call as it last ran, the failure
// the Reflector saw, what it answered and the strategy's prompt, with the
// caller's ctx.
func TestAskQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errDenied := errors.New(askDenied)
		toHome := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/home/report.txt"}`)}
		second := askAnalysis(askMoveToTmp())
		second.Context = "home is read-only too"
		tool := reflectiontest.NewTool(reflectiontest.Fail("first failure"), reflectiontest.Error(errDenied),
			reflectiontest.Succeed("wrote 4 bytes"))
		asker := newAskerScript(askApprove)
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(toHome), second)),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.AskUser{Prompt: askPrompt})),
			reflection.WithAsker(asker),
		)
		ctx := reflection.ContextWithTask(context.Background(), "file the weekly report")

		res, err := d.Run(ctx, askCall, tool.Dispatch)

		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"}, res)
		questions := asker.Questions()
		require.Len(t, questions, 1)
		q := questions[0]
		atHome := reflection.ToolCall{ID: askCall.ID, Name: askCall.Name, Input: toHome.ModifiedInput}
		assert.Equal(t, atHome, q.Call, "the call as it last ran")
		assert.Equal(t, askDenied, q.Failure.Error)
		assert.Equal(t, askCall.Name, q.Failure.Tool)
		assert.Equal(t, toHome.ModifiedInput, q.Failure.Input)
		assert.Equal(t, "file the weekly report", q.Failure.Task)
		assert.Equal(t, 1, q.Failure.Attempt)
		assert.Equal(t, reflection.MaxRecoveryAttempts+1, q.Failure.MaxAttempts)
		assert.ErrorIs(t, q.Failure.Err, errDenied)
		assert.Equal(t, second, q.Analysis)
		assert.Equal(t, askPrompt, q.Prompt)
		assert.Equal(t, []string{"file the weekly report"}, asker.tasks, "the Asker gets the caller's ctx")
		calls := tool.Calls()
		require.Len(t, calls, 3)
		assert.JSONEq(t, `{"path":"/tmp/report.txt"}`, string(calls[2].Input), "the approved retry")
	})
}

// TestAskWithTheStockStrategy: ExponentialBackoff answers a severe failure
// that has a correction with AskUser; with an Asker, an approval retries it.
func TestAskWithTheStockStrategy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
		asker := newAskerScript(askApprove)
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(askMoveToTmp()))),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
			reflection.WithAsker(asker),
		)

		res, err := d.Run(context.Background(), askCall, tool.Dispatch)

		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"}, res)
		require.Len(t, asker.Questions(), 1)
		assert.Equal(t, "high-severity failure with correction available: no write permission on /etc",
			asker.Questions()[0].Prompt)
	})
}

// TestAskReport: the report of a run shows the question and the answer, the
// correction the approval applied, and the Observer sees the same course.
func TestAskReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
		rec := reflectiontest.NewRecorder()
		human := json.RawMessage(`{"path":"/home/ada/report.txt"}`)
		d := reflection.NewDriver(
			reflection.WithReflector(reflectiontest.NewReflector(askAnalysis(askMoveToTmp()))),
			reflection.WithStrategy(reflectiontest.NewStrategy(reflection.AskUser{Prompt: askPrompt})),
			reflection.WithAsker(newAskerScript(askerReply{ans: reflection.Answer{Approve: true, Input: human}})),
			reflection.WithObserver(rec.Observer()),
		)

		rep, err := d.RunWithReport(context.Background(), askCall, tool.Dispatch)

		require.NoError(t, err)
		require.Len(t, rep.Attempts, 2)
		first := rep.Attempts[0]
		assert.Equal(t, reflection.AskUser{Prompt: askPrompt}, first.Action)
		assert.Equal(t, &reflection.Ask{Prompt: askPrompt, Answer: &reflection.Answer{Approve: true, Input: human}}, first.Ask)
		assert.Nil(t, first.Wait, "an approval without a hint waits for nothing")
		assert.Equal(t, []string{"input_fix human=false applied=true", "input_fix human=true applied=true"}, askFixes(first))
		assert.Equal(t, human, rep.Attempts[1].Call.Input)
		assert.Equal(t, []string{
			`dispatch 0 write_file {"path":"/etc/report.txt"}`,
			"failed 0: " + askDenied,
			"analyzed 0: recoverable high input_fix",
			"decided 0: ask user: " + askPrompt,
			"asked 0: approved",
			"corrected 0: input_fix applied",
			"corrected 0: input_fix applied",
			`dispatch 1 write_file {"path":"/home/ada/report.txt"}`,
			"succeeded 1",
			"finished: 2 calls, ok",
		}, rec.Events())

		// The record of the question survives JSON.
		b, err := json.Marshal(rep)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"ask":{"prompt":"`+askPrompt+`","answer":{"approve":true,"input":{"path":"/home/ada/report.txt"}}}`)
		var back reflection.Report
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, rep.Attempts[0].Ask, back.Attempts[0].Ask)
	})
}

// TestAskConcurrentCalls: one Driver and one Asker serve many calls at once.
func TestAskConcurrentCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		asker := newAskerScript(askApprove)
		d := reflection.NewDriver(
			reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return askAnalysis(askMoveToTmp()), nil
			})),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
			reflection.WithAsker(asker),
		)
		const n = 32
		var wg sync.WaitGroup
		results := make([]reflection.ToolResult, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed(fmt.Sprint("wrote ", i)))
				call := askCall
				call.ID = fmt.Sprint("call-", i)
				results[i], errs[i] = d.Run(context.Background(), call, tool.Dispatch)
			})
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			assert.Equal(t, reflection.ToolResult{ID: fmt.Sprint("call-", i), Content: fmt.Sprint("wrote ", i)}, results[i])
		}
		assert.Len(t, asker.Questions(), n)
	})
}

// TestAnswerJSON: an Answer travels as approve, input and reply.
func TestAnswerJSON(t *testing.T) {
	tests := []struct {
		name string
		ans  reflection.Answer
		want string
	}{
		{"approval", reflection.Answer{Approve: true}, `{"approve":true}`},
		{"approval with input", reflection.Answer{Approve: true, Input: json.RawMessage(`{"path":"/tmp/x"}`)}, `{"approve":true,"input":{"path":"/tmp/x"}}`},
		{"refusal with a reply", reflection.Answer{Reply: "not now"}, `{"approve":false,"reply":"not now"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.ans)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
			var back reflection.Answer
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.ans, back)
		})
	}
}
