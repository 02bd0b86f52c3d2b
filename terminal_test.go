package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"
	"unicode/utf8"

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

// TestTerminalAskerShowsWhatYApproves: an input is shown whole, so a field
// pushed far to the right by padding is on the screen when "y" approves it.
func TestTerminalAskerShowsWhatYApproves(t *testing.T) {
	padded := `{"path":"/tmp/report.txt",` + strings.Repeat(" ", 1100) + `"cmd":"rm -rf /"}`
	long := strings.Repeat("word ", 1000) + "rm -rf /"
	tests := []struct {
		name  string
		q     func() reflection.Question
		shown []string
	}{
		{"the call's input, padded JSON", func() reflection.Question {
			q := termQuestion()
			q.Call.Input = json.RawMessage(padded)
			return q
		}, []string{`input:       {"path":"/tmp/report.txt","cmd":"rm -rf /"}` + "\n"}},
		{"a new input, padded JSON", func() reflection.Question {
			q := termQuestion()
			q.Analysis.Correction.ModifiedInput = json.RawMessage(padded)
			return q
		}, []string{`new input:   {"path":"/tmp/report.txt","cmd":"rm -rf /"}` + "\n"}},
		{"an input that is not JSON, 5 KB long", func() reflection.Question {
			q := termQuestion()
			q.Call.Input = json.RawMessage(long)
			return q
		}, []string{"input:       " + long + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out strings.Builder
				ans, err := reflection.NewTerminalAsker(strings.NewReader("y\n"), &out).Ask(context.Background(), tt.q())
				require.NoError(t, err)
				assert.True(t, ans.Approve)
				for _, s := range tt.shown {
					assert.Contains(t, out.String(), s)
				}
			})
		})
	}
}

// TestTerminalAskerNeutralisesControlSequences: no text of a question can
// reach the terminal as a control sequence, or forge a line of its own.
func TestTerminalAskerNeutralisesControlSequences(t *testing.T) {
	const hostile = "\x1b[2J\x1b[H" + // CSI: clear the screen, cursor home
		"\x1b]0;all good\x07" + // OSC: set the window title
		"\u009b31m" + // C1 CSI
		"\u202egnp.exe" + // right-to-left override
		"\u200b\xff\x00\x08\x7f"
	forged := "write_file\n  guidance:    the admin approved this\r\n  new input:   {}"
	advice := termQuestion()
	advice.Call.Name = forged
	advice.Call.Input = json.RawMessage("not json " + hostile)
	advice.Failure.Error = "denied " + hostile
	advice.Analysis.RootCause = "cause " + hostile
	advice.Analysis.Correction = &reflection.Correction{Type: reflection.Escalate, Description: "desc " + hostile, Guidance: "ask " + hostile}
	advice.Prompt = "prompt " + hostile
	toolChange := termQuestion()
	toolChange.Analysis.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: forged}
	inputFix := termQuestion()
	inputFix.Analysis.Correction.ModifiedInput = json.RawMessage(`{"path":"` + "\u202e" + `txt.exe"}` + hostile)

	for name, q := range map[string]reflection.Question{"advice": advice, "tool change": toolChange, "input fix": inputFix} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out strings.Builder
				_, err := reflection.NewTerminalAsker(strings.NewReader("n\n"), &out).Ask(context.Background(), q)
				require.NoError(t, err)
				shown := out.String()
				for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\u200b", "\xff", "\x00", "\x08", "\x7f", "\r"} {
					assert.NotContains(t, shown, bad)
				}
				assert.True(t, utf8.ValidString(shown))
				lines := strings.Split(shown, "\n")
				labels := regexp.MustCompile(`^(|A tool call failed and needs your decision\.|  (tool|input|failure|root cause|correction|new input|new tool|guidance): .*|  \S.*|Retry the call\? .*)$`)
				for _, line := range lines {
					assert.Regexp(t, labels, line)
				}
				starting := func(prefix string) (n int) {
					for _, line := range lines {
						if strings.HasPrefix(line, prefix) {
							n++
						}
					}
					return n
				}
				assert.Equal(t, 1, starting("  tool: "), "one tool line")
				assert.LessOrEqual(t, starting("  guidance: "), 1)
				assert.LessOrEqual(t, starting("  new input: "), 1)
				assert.NotContains(t, shown, "\n  guidance:    the admin approved this")
				if name != "tool change" {
					assert.Contains(t, shown, `\x1b[2J`, "the sequence is shown as text")
				} else {
					assert.Contains(t, shown, `  new tool:    "write_file\n  guidance:`, "the name is quoted")
				}
			})
		})
	}
}

// longLineReader is a reply line of n bytes, then the lines after it; it
// makes them as they are read.
type longLineReader struct {
	first byte
	n     int64
	rest  string
}

func (r *longLineReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := int(min(int64(len(p)), r.n))
		for i := range p[:k] {
			p[i] = 'a'
		}
		if r.first != 0 {
			p[0], r.first = r.first, 0
		}
		r.n -= int64(k)
		return k, nil
	}
	if r.rest == "" {
		return 0, io.EOF
	}
	k := copy(p, r.rest)
	r.rest = r.rest[k:]
	return k, nil
}

// TestTerminalAskerCapsTheReply: a reply line over 64 KiB declines, keeps
// its first 64 KiB and drops the rest, reading it without holding it; the
// next line answers the next question.
func TestTerminalAskerCapsTheReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 16 << 20
		asker := reflection.NewTerminalAsker(&longLineReader{first: 'y', n: size, rest: "\r\nyes\n"}, io.Discard)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ans, err := asker.Ask(context.Background(), termQuestion())
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		assert.False(t, ans.Approve, "a line cut short never approves")
		note := "…[truncated " + strconv.Itoa(size-64<<10+len("…[truncated 16711706 bytes]")) + " bytes]"
		assert.Len(t, ans.Reply, 64<<10, "the reply, its note included, is at most the cap")
		assert.Equal(t, "y"+strings.Repeat("a", 64<<10-1-len(note))+note, ans.Reply)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("reading a %d-byte reply line allocated %d bytes", size, allocated)
		assert.Less(t, allocated, uint64(1<<20))

		ans, err = asker.Ask(context.Background(), termQuestion())
		require.NoError(t, err)
		assert.Equal(t, reflection.Answer{Approve: true}, ans, "the line after the long one")
	})
}
