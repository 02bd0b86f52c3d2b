package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The terminal Asker, fed through strings.Reader and io.Pipe. Each test runs
// in a synctest bubble, which returns only once every goroutine started in
// it has ended: a reader goroutine left behind fails the test (and goleak,
// in TestMain, would catch one that escaped the bubble).

// termQuestion is the question these tests put on the terminal.
func termQuestion() reflection.Question {
	return reflection.Question{
		Call:     askCall,
		Failure:  reflection.Failure{Error: askDenied, Tool: askCall.Name, Input: askCall.Input, MaxAttempts: 6},
		Analysis: askAnalysis(askMoveToTmp()),
		Prompt:   askPrompt,
	}
}

// termBuffer is an io.Writer safe for the concurrent tests.
type termBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (t *termBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.Write(p)
}

func (t *termBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// TestTerminalAskerAnswers: one line decides; y or yes approves, anything
// else is a refusal whose reply is the line.
func TestTerminalAskerAnswers(t *testing.T) {
	errDisk := errors.New("input device gone")
	tests := []struct {
		name    string
		in      io.Reader
		want    reflection.Answer
		wantErr error  // matched with ErrorIs; see wantMsg
		wantMsg string // the error text, when one is expected
	}{
		{name: "y", in: strings.NewReader("y\n"), want: reflection.Answer{Approve: true}},
		{name: "YES with a trailing space", in: strings.NewReader("YES \n"), want: reflection.Answer{Approve: true}},
		{name: "Yes with spaces and CRLF", in: strings.NewReader("  Yes\t\r\n"), want: reflection.Answer{Approve: true}},
		{name: "Y", in: strings.NewReader("Y\n"), want: reflection.Answer{Approve: true}},
		{name: "y as the last line, without a line ending", in: strings.NewReader("y"), want: reflection.Answer{Approve: true}},
		{name: "only the first line counts", in: strings.NewReader("y\nno\n"), want: reflection.Answer{Approve: true}},
		{name: "n", in: strings.NewReader("n\n"), want: reflection.Answer{Reply: "n"}},
		{name: "yes please is a reply", in: strings.NewReader("yes please\n"), want: reflection.Answer{Reply: "yes please"}},
		{name: "yeah is a reply", in: strings.NewReader("yeah\n"), want: reflection.Answer{Reply: "yeah"}},
		{name: "a reply loses its CRLF", in: strings.NewReader("use /tmp instead\r\n"), want: reflection.Answer{Reply: "use /tmp instead"}},
		{name: "a reply keeps its spaces", in: strings.NewReader("  keep it in /etc  \n"), want: reflection.Answer{Reply: "  keep it in /etc  "}},
		{name: "a reply without a line ending", in: strings.NewReader("not now"), want: reflection.Answer{Reply: "not now"}},
		{name: "an empty line declines", in: strings.NewReader("\n"), want: reflection.Answer{}},
		{
			name:    "end of input before a line",
			in:      strings.NewReader(""),
			wantMsg: "reflection: the terminal's input ended before an answer was given",
		},
		{
			name:    "a read error",
			in:      iotest.ErrReader(errDisk),
			wantErr: errDisk,
			wantMsg: "reflection: read the answer: input device gone",
		},
		{
			name:    "a read error after part of a line",
			in:      io.MultiReader(strings.NewReader("ye"), iotest.ErrReader(errDisk)),
			wantErr: errDisk,
			wantMsg: "reflection: read the answer: input device gone",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out strings.Builder
				asker := reflection.NewTerminalAsker(tt.in, &out)

				got, err := asker.Ask(context.Background(), termQuestion())

				if tt.wantMsg != "" {
					require.EqualError(t, err, tt.wantMsg)
					if tt.wantErr != nil {
						assert.ErrorIs(t, err, tt.wantErr)
					}
					assert.Zero(t, got)
				} else {
					require.NoError(t, err)
					assert.Equal(t, tt.want, got)
				}
				assert.Contains(t, out.String(), "[y/N]", "the question was written")
			})
		})
	}
}

// TestTerminalAskerWritesTheQuestion: the terminal shows the tool, its
// input, the failure, the root cause, the proposed correction and the
// prompt, each on one line.
func TestTerminalAskerWritesTheQuestion(t *testing.T) {
	base := termQuestion()
	tests := []struct {
		name     string
		q        reflection.Question
		want     []string
		wantNone []string
	}{
		{
			name: "an input fix",
			q:    base,
			want: []string{
				"tool:        write_file\n",
				`input:       {"path":"/etc/report.txt"}` + "\n",
				"failure:     " + askDenied + "\n",
				"root cause:  no write permission on /etc\n",
				"correction:  input_fix: write under /tmp\n",
				`new input:   {"path":"/tmp/report.txt"}` + "\n",
				"  " + askPrompt + "\n",
				"Retry the call? [y/N]",
			},
		},
		{
			name: "a tool change",
			q: func() reflection.Question {
				q := base
				q.Analysis.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "write_tmp"}
				return q
			}(),
			want:     []string{"correction:  tool_change\n", "new tool:    write_tmp\n"},
			wantNone: []string{"new input:"},
		},
		{
			name: "advice",
			q: func() reflection.Question {
				q := base
				q.Analysis.Correction = &reflection.Correction{Type: reflection.Escalate, Description: "needs root", Guidance: "ask the admin"}
				return q
			}(),
			want: []string{"correction:  escalate: needs root\n", "guidance:    ask the admin\n"},
		},
		{
			name: "no correction, root cause or prompt",
			q: func() reflection.Question {
				q := base
				q.Analysis = reflection.FailureAnalysis{}
				q.Prompt = ""
				return q
			}(),
			want:     []string{"tool:        write_file\n", "failure:     " + askDenied + "\n"},
			wantNone: []string{"root cause:", "correction:", askPrompt},
		},
		{
			name: "multi-line texts stay on their line",
			q: func() reflection.Question {
				q := base
				q.Failure.Error = "open failed\n  errno 13\r\n"
				q.Analysis.RootCause = "line one\nline two"
				q.Prompt = "retry\nplease?"
				return q
			}(),
			want: []string{
				"failure:     open failed errno 13\n",
				"root cause:  line one line two\n",
				"  retry please?\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out strings.Builder
				_, err := reflection.NewTerminalAsker(strings.NewReader("n\n"), &out).Ask(context.Background(), tt.q)
				require.NoError(t, err)
				for _, w := range tt.want {
					assert.Contains(t, out.String(), w)
				}
				for _, w := range tt.wantNone {
					assert.NotContains(t, out.String(), w)
				}
				assert.True(t, strings.HasSuffix(out.String(), ": "), "the prompt waits on its line: %q", out.String())
			})
		})
	}
}

// TestTerminalAskerReadsOneLinePerQuestion: each question takes the next
// line; once the input has ended, every later question fails.
func TestTerminalAskerReadsOneLinePerQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		asker := reflection.NewTerminalAsker(strings.NewReader("y\nnot this time\n"), &out)
		ctx := context.Background()

		first, err := asker.Ask(ctx, termQuestion())
		require.NoError(t, err)
		second, err := asker.Ask(ctx, termQuestion())
		require.NoError(t, err)
		_, err3 := asker.Ask(ctx, termQuestion())
		_, err4 := asker.Ask(ctx, termQuestion())

		assert.Equal(t, reflection.Answer{Approve: true}, first)
		assert.Equal(t, reflection.Answer{Reply: "not this time"}, second)
		require.Error(t, err3)
		assert.Equal(t, err3, err4, "the end of input is final")
		assert.Equal(t, 3, strings.Count(out.String(), "[y/N]"), "a question after the end is not written")
	})
}

// TestTerminalAskerNeverAnswered: a reader that never answers while ctx
// ends. Ask returns ctx's error; the reading goroutine stays until the
// input ends, and its line, if one comes, answers the next question.
func TestTerminalAskerNeverAnswered(t *testing.T) {
	tests := []struct {
		name string
		// after runs once the first question has been given up; it writes
		// to or closes the input, and asks again.
		after func(t *testing.T, asker reflection.Asker, w *io.PipeWriter)
	}{
		{
			name: "the input is closed: the reader ends, later questions fail",
			after: func(t *testing.T, asker reflection.Asker, w *io.PipeWriter) {
				require.NoError(t, w.Close())
				synctest.Wait()
				_, err := asker.Ask(context.Background(), termQuestion())
				assert.EqualError(t, err, "reflection: the terminal's input ended before an answer was given")
			},
		},
		{
			name: "the input fails: later questions get its error",
			after: func(t *testing.T, asker reflection.Asker, w *io.PipeWriter) {
				errGone := errors.New("pty hung up")
				require.NoError(t, w.CloseWithError(errGone))
				_, err := asker.Ask(context.Background(), termQuestion())
				assert.ErrorIs(t, err, errGone)
			},
		},
		{
			name: "the line comes while the next question waits: it answers it",
			after: func(t *testing.T, asker reflection.Asker, w *io.PipeWriter) {
				go func() {
					time.Sleep(time.Second)
					_, _ = io.WriteString(w, "y\n")
				}()
				ans, err := asker.Ask(context.Background(), termQuestion())
				require.NoError(t, err)
				assert.Equal(t, reflection.Answer{Approve: true}, ans)
				require.NoError(t, w.Close())
			},
		},
		{
			name: "the line comes while no question waits: it is dropped",
			after: func(t *testing.T, asker reflection.Asker, w *io.PipeWriter) {
				_, err := io.WriteString(w, "y\n")
				require.NoError(t, err)
				synctest.Wait() // the reader has the line, and nobody to give it to
				go func() {
					time.Sleep(time.Second)
					_, _ = io.WriteString(w, "no\n")
				}()
				ans, err := asker.Ask(context.Background(), termQuestion())
				require.NoError(t, err)
				assert.Equal(t, reflection.Answer{Reply: "no"}, ans)
				require.NoError(t, w.Close())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, w := io.Pipe()
				defer r.Close()
				var out termBuffer
				asker := reflection.NewTerminalAsker(r, &out)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				start := time.Now()

				_, err := asker.Ask(ctx, termQuestion())

				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, time.Minute, time.Since(start), "Ask returned when ctx ended")
				assert.Contains(t, out.String(), "[y/N]")
				tt.after(t, asker, w)
			})
		})
	}
}

// TestTerminalAskerCancelledBeforeAsking: a ctx that has already ended gets
// its error at once; nothing is written and no line is taken from the input.
func TestTerminalAskerCancelledBeforeAsking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Ask chooses among ready cases at random: repeat, so a lost race
		// would show.
		for range 50 {
			var out strings.Builder
			asker := reflection.NewTerminalAsker(strings.NewReader("y\n"), &out)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()

			_, err := asker.Ask(ctx, termQuestion())

			require.ErrorIs(t, err, context.Canceled)
			require.Empty(t, out.String(), "a question for an ended ctx is not written")
			ans, err := asker.Ask(context.Background(), termQuestion())
			require.NoError(t, err)
			require.Equal(t, reflection.Answer{Approve: true}, ans, "the line is still there for the next question")
		}
	})
}

// TestTerminalAskerOneQuestionAtATime: concurrent questions take turns; one
// whose ctx ends while it waits for its turn returns without writing.
func TestTerminalAskerOneQuestionAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		defer r.Close()
		var out termBuffer
		asker := reflection.NewTerminalAsker(r, &out)

		var wg sync.WaitGroup
		answers := make([]reflection.Answer, 2)
		for i := range answers {
			wg.Go(func() {
				ans, err := asker.Ask(context.Background(), termQuestion())
				assert.NoError(t, err)
				answers[i] = ans
			})
		}
		synctest.Wait()
		assert.Equal(t, 1, strings.Count(out.String(), "[y/N]"), "the second question waits for the first")

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := asker.Ask(ctx, termQuestion())
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, strings.Count(out.String(), "[y/N]"), "a question given up before its turn is not written")

		_, err = io.WriteString(w, "y\nlater\n")
		require.NoError(t, err)
		wg.Wait()
		require.NoError(t, w.Close())

		assert.ElementsMatch(t, []reflection.Answer{{Approve: true}, {Reply: "later"}}, answers)
		assert.Equal(t, 2, strings.Count(out.String(), "[y/N]"))
	})
}

// TestTerminalAskerWriteError: a question that cannot be written fails and
// takes no line from the input.
func TestTerminalAskerWriteError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errFull := errors.New("disk full")
		var attempts int
		out := termWriterFunc(func(p []byte) (int, error) {
			attempts++
			if attempts == 1 {
				return 0, errFull
			}
			return len(p), nil
		})
		asker := reflection.NewTerminalAsker(strings.NewReader("y\n"), out)

		_, err := asker.Ask(context.Background(), termQuestion())
		require.ErrorIs(t, err, errFull)
		assert.ErrorContains(t, err, "reflection: write the question")

		ans, err := asker.Ask(context.Background(), termQuestion())
		require.NoError(t, err)
		assert.Equal(t, reflection.Answer{Approve: true}, ans)
	})
}

type termWriterFunc func(p []byte) (int, error)

func (f termWriterFunc) Write(p []byte) (int, error) { return f(p) }

// TestTerminalAskerWithDriver: the terminal asker behind a Driver. A "y"
// retries the call with the correction; a reader that never answers ends
// the call with the cancel once the deadline passes, and its goroutine ends
// when the input is closed.
func TestTerminalAskerWithDriver(t *testing.T) {
	newDriver := func(in io.Reader, out io.Writer) *reflection.Driver {
		return reflection.NewDriver(
			reflection.WithReflector(reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
				return askAnalysis(askMoveToTmp()), nil
			})),
			reflection.WithStrategy(reflection.NewExponentialBackoff(3)),
			reflection.WithAsker(reflection.NewTerminalAsker(in, out)),
		)
	}

	t.Run("approved", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var out strings.Builder
			tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))

			res, err := newDriver(strings.NewReader("y\n"), &out).Run(context.Background(), askCall, tool.Dispatch)

			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: "wrote 4 bytes"}, res)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			assert.Equal(t, json.RawMessage(`{"path":"/tmp/report.txt"}`), calls[1].Input)
			assert.Contains(t, out.String(), "high-severity failure with correction available")
		})
	})

	t.Run("declined with a reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var out strings.Builder
			tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))

			res, err := newDriver(strings.NewReader("ask the admin\n"), &out).Run(context.Background(), askCall, tool.Dispatch)

			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.True(t, strings.HasSuffix(res.Content, "\n\nA human declined to retry this call.\n\nask the admin"), res.Content)
			assert.Len(t, tool.Calls(), 1)
		})
	})

	t.Run("never answered", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r, w := io.Pipe()
			var out termBuffer
			tool := reflectiontest.NewTool(reflectiontest.Fail(askDenied), reflectiontest.Succeed("wrote 4 bytes"))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()

			res, err := newDriver(r, &out).Run(ctx, askCall, tool.Dispatch)

			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, reflection.ToolResult{ID: askCall.ID, Content: askDenied, IsError: true}, res)
			assert.Len(t, tool.Calls(), 1)
			// The reader is still blocked on the input; closing it ends the
			// goroutine, and the bubble proves none is left.
			require.NoError(t, w.Close())
		})
	})
}
