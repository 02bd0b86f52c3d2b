package reflection_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// The session's loop detector (LoopDetector, WithLoopDetection), through
// Driver.Run under a ctx that carries it.

const sfRefusedPrefix = "dispatch refused before execution: "

// sfRepeatNote is the note a result carries once its count reaches warnAt.
func sfRepeatNote(n int) string {
	return fmt.Sprintf("Recovery note: this call returned the same result %d times in this run; repeating it will not change it.", n)
}

// sfSession is one agent run: a detector in a ctx, and a Driver that uses it.
type sfSession struct {
	ctx context.Context
	d   *reflection.Driver
	det *reflection.LoopDetector
}

func newSfSession(warnAt, stopAt int, opts ...reflection.Option) sfSession {
	det := reflection.NewLoopDetector(warnAt, stopAt)
	return sfSession{
		ctx: reflection.ContextWithLoopDetector(context.Background(), det),
		d:   reflection.NewDriver(append([]reflection.Option{reflection.WithLoopDetection()}, opts...)...),
		det: det,
	}
}

// sfCheckLoopRefusal checks a Run the detector refused.
func sfCheckLoopRefusal(t *testing.T, res reflection.ToolResult, err error, call reflection.ToolCall, tool string, count int) {
	t.Helper()
	var lde *reflection.LoopDetectedError
	require.ErrorAs(t, err, &lde, "a refused dispatch is a hard *LoopDetectedError")
	assert.ErrorIs(t, err, reflection.ErrLoopDetected)
	assert.Equal(t, tool, lde.Tool, "LoopDetectedError.Tool")
	assert.Equal(t, count, lde.Count, "LoopDetectedError.Count")
	assert.Equal(t, reflection.ToolResult{ID: call.ID, Content: sfRefusedPrefix + lde.Error(), IsError: true}, res)
}

func TestLoopDetectedErrorMatches(t *testing.T) {
	err := error(&reflection.LoopDetectedError{Tool: "search", Count: 10})
	assert.ErrorIs(t, err, reflection.ErrLoopDetected)
	assert.ErrorIs(t, fmt.Errorf("run: %w", err), reflection.ErrLoopDetected)
	assert.NotErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
	assert.Contains(t, err.Error(), "search")
	assert.Contains(t, err.Error(), "10")
}

// TestLoopDetectorThresholds checks warnAt and stopAt, with loopctl's
// defaults for 0 (and less): the warnAt-th identical result and each after it
// carry the note; once stopAt have come back the next dispatch is refused.
func TestLoopDetectorThresholds(t *testing.T) {
	tests := []struct {
		name           string
		warnAt, stopAt int
		wantWarn       int
		wantStop       int
	}{
		{"defaults", 0, 0, 3, 10},
		{"negative means the defaults", -1, -1, 3, 10},
		{"two and four", 2, 4, 2, 4},
		{"one and one", 1, 1, 1, 1},
		{"default warnAt only", 0, 5, 3, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSfSession(tt.warnAt, tt.stopAt, reflection.WithRecoveryNotes())
			tool := reflectiontest.NewTool(reflectiontest.Succeed("3 results"))
			call := sfCall("search", `{"q":"loop"}`)
			for n := 1; n <= tt.wantStop; n++ {
				res, err := s.d.Run(s.ctx, call, tool.Dispatch)
				require.NoError(t, err, "run %d", n)
				if n < tt.wantWarn {
					assert.Equal(t, "3 results", res.Content, "run %d carries a note", n)
					continue
				}
				assert.True(t, strings.HasPrefix(res.Content, "3 results"), "run %d: %q", n, res.Content)
				assert.True(t, strings.HasSuffix(res.Content, sfRepeatNote(n)), "run %d: %q should end with %q", n, res.Content, sfRepeatNote(n))
			}
			require.Len(t, tool.Calls(), tt.wantStop)
			res, err := s.d.Run(s.ctx, call, tool.Dispatch)
			sfCheckLoopRefusal(t, res, err, call, "search", tt.wantStop)
			assert.Len(t, tool.Calls(), tt.wantStop, "the refused call was dispatched")
		})
	}
}

// TestLoopDetectorRefusalReport checks the ending of a refused call in the
// report: OutcomeStopped, ReasonLoopDetected, no attempt, and the same
// result and error as Run.
func TestLoopDetectorRefusalReport(t *testing.T) {
	s := newSfSession(1, 2)
	tool := reflectiontest.NewTool(reflectiontest.Succeed("same"))
	call := sfCall("search", `{"q":"x"}`)
	for i := 0; i < 2; i++ {
		_, err := s.d.Run(s.ctx, call, tool.Dispatch)
		require.NoError(t, err)
	}
	var ends sfEnds
	rep, err := s.d.With(reflection.WithObserver(ends.observer())).RunWithReport(s.ctx, call, tool.Dispatch)
	sfCheckLoopRefusal(t, rep.Result, err, call, "search", 2)
	assert.Equal(t, reflection.OutcomeStopped, rep.Outcome)
	assert.Equal(t, reflection.ReasonLoopDetected, rep.Reason)
	assert.Equal(t, err.Error(), rep.Error)
	assert.Empty(t, rep.Attempts, "a refused dispatch is not an attempt")
	if e := ends.all(); assert.Len(t, e, 1) {
		assert.Equal(t, reflection.ReasonLoopDetected, e[0].Reason)
		assert.Equal(t, 0, e[0].Calls)
	}
}

// TestLoopDetectorWithinOneCall checks that retries are recorded too: a call
// that keeps failing the same way is refused at its stopAt+1-th dispatch,
// with a hard error even though earlier attempts failed softly.
func TestLoopDetectorWithinOneCall(t *testing.T) {
	s := newSfSession(2, 3, reflection.WithReflector(sfAlways(sfRecoverable(nil))), reflection.WithStrategy(sfRetry(0)))
	tool := reflectiontest.NewTool(reflectiontest.Fail("no rows"))
	call := sfCall("query", `{"sql":"select 1"}`)
	rep, err := s.d.RunWithReport(s.ctx, call, tool.Dispatch)
	sfCheckLoopRefusal(t, rep.Result, err, call, "query", 3)
	assert.Len(t, tool.Calls(), 3)
	assert.Len(t, rep.Attempts, 3)
	assert.Equal(t, reflection.OutcomeStopped, rep.Outcome)
	assert.Equal(t, reflection.ReasonLoopDetected, rep.Reason)
}

// TestLoopDetectorToolAsItWouldRun checks that the detector is asked about
// the tool as it would run: a ToolChange onto a looping pair is refused, and
// the error names the new tool.
func TestLoopDetectorToolAsItWouldRun(t *testing.T) {
	s := newSfSession(5, 2)
	b := reflectiontest.NewTool(reflectiontest.Succeed("same"))
	for i := 0; i < 2; i++ {
		_, err := s.d.Run(s.ctx, sfCall("b", `{"q":1}`), b.Dispatch)
		require.NoError(t, err)
	}
	tool := reflectiontest.NewTool(reflectiontest.Fail("a is gone"), reflectiontest.Succeed("same"))
	d := s.d.With(reflection.WithReflector(sfAlways(sfRecoverable(sfToolChange("b")))), reflection.WithStrategy(sfRetry(0)))
	call := sfCall("a", `{"q":1}`)
	res, err := d.Run(s.ctx, call, tool.Dispatch)
	sfCheckLoopRefusal(t, res, err, call, "b", 2)
	reflectiontest.AssertCallNames(t, tool, "a")
}

// TestLoopDetectorCountsIdenticalResults checks what counts as the same
// result: the text and whether it failed, for the same tool and input as
// JSON values; other results are progress, but do not reset the count.
func TestLoopDetectorCountsIdenticalResults(t *testing.T) {
	type run struct {
		input   string
		outcome reflectiontest.Outcome
		refused bool
	}
	ok := func(s string) reflectiontest.Outcome { return reflectiontest.Succeed(s) }
	tests := []struct {
		name   string
		stopAt int
		runs   []run
	}{
		{"consecutive", 3, []run{
			{`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("a"), true},
		}},
		{"not consecutive", 3, []run{
			{`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("b"), false}, {`{"q":1}`, ok("a"), false},
			{`{"q":1}`, ok("b"), false}, {`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("c"), true},
		}},
		{"different results are progress", 2, []run{
			{`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("b"), false}, {`{"q":1}`, ok("c"), false},
			{`{"q":1}`, ok("d"), false}, {`{"q":1}`, ok("e"), false}, {`{"q":1}`, ok("f"), false},
		}},
		{"a failure and a success of the same text differ", 2, []run{
			{`{"q":1}`, ok("x"), false}, {`{"q":1}`, reflectiontest.Fail("x"), false},
			{`{"q":1}`, ok("x"), false}, {`{"q":1}`, ok("x"), true},
		}},
		{"failures count", 2, []run{
			{`{"q":1}`, reflectiontest.Fail("boom"), false}, {`{"q":1}`, reflectiontest.Fail("boom"), false},
			{`{"q":1}`, reflectiontest.Fail("boom"), true},
		}},
		{"inputs compared as JSON values", 2, []run{
			{`{"q":1,"r":[1,2]}`, ok("a"), false}, {"{ \"r\" : [ 1, 2 ],\n \"q\" : 1 }", ok("a"), false},
			{`{"r":[1,2],"q":1}`, ok("a"), true},
		}},
		{"escaped strings are the same input", 2, []run{
			{`{"q":"abc"}`, ok("a"), false}, {`{"q":"\u0061bc"}`, ok("a"), false}, {`{"q":"ab\u0063"}`, ok("a"), true},
		}},
		{"another input is another call", 2, []run{
			{`{"q":1}`, ok("a"), false}, {`{"q":1}`, ok("a"), false},
			{`{"q":2}`, ok("a"), false}, {`{"q":2}`, ok("a"), false}, {`{"q":1}`, ok("a"), true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSfSession(100, tt.stopAt)
			for i, r := range tt.runs {
				tool := reflectiontest.NewTool(r.outcome)
				call := sfCall("search", r.input)
				res, err := s.d.Run(s.ctx, call, tool.Dispatch)
				if r.refused {
					assert.ErrorIs(t, err, reflection.ErrLoopDetected, "run %d", i)
					assert.Empty(t, tool.Calls(), "run %d was dispatched", i)
					assert.True(t, strings.HasPrefix(res.Content, sfRefusedPrefix), "run %d: %q", i, res.Content)
					continue
				}
				assert.NoError(t, err, "run %d", i)
				assert.Len(t, tool.Calls(), 1, "run %d was not dispatched", i)
			}
		})
	}
}

// TestLoopDetectorSession checks that the detector is the session's: Runs
// under another detector, or under none, are not refused, and a Driver
// without WithLoopDetection ignores a detector in its ctx.
func TestLoopDetectorSession(t *testing.T) {
	s := newSfSession(1, 2)
	tool := reflectiontest.NewTool(reflectiontest.Succeed("same"))
	call := sfCall("search", `{"q":1}`)
	for i := 0; i < 2; i++ {
		_, err := s.d.Run(s.ctx, call, tool.Dispatch)
		require.NoError(t, err)
	}
	_, err := s.d.Run(s.ctx, call, tool.Dispatch)
	require.ErrorIs(t, err, reflection.ErrLoopDetected, "the same session")

	other := reflection.ContextWithLoopDetector(context.Background(), reflection.NewLoopDetector(1, 2))
	_, err = s.d.Run(other, call, tool.Dispatch)
	assert.NoError(t, err, "another session")
	_, err = s.d.Run(context.Background(), call, tool.Dispatch)
	assert.NoError(t, err, "no session")
	for i := 0; i < 5; i++ {
		_, err = reflection.NewDriver().Run(s.ctx, call, tool.Dispatch)
		assert.NoError(t, err, "a Driver without WithLoopDetection")
	}
}

// TestLoopDetectorNotes checks the note on a repeated failure that ends
// softly, and that no note comes without WithRecoveryNotes.
func TestLoopDetectorNotes(t *testing.T) {
	for _, notes := range []bool{true, false} {
		t.Run(fmt.Sprintf("notes %v", notes), func(t *testing.T) {
			var opts []reflection.Option
			if notes {
				opts = append(opts, reflection.WithRecoveryNotes())
			}
			s := newSfSession(2, 10, opts...)
			tool := reflectiontest.NewTool(reflectiontest.Fail("permission denied"))
			call := sfCall("write", `{"path":"/etc/x"}`)
			for n := 1; n <= 4; n++ {
				res, err := s.d.Run(s.ctx, call, tool.Dispatch)
				require.NoError(t, err)
				require.True(t, res.IsError)
				require.True(t, strings.HasPrefix(res.Content, "permission denied"), "%q", res.Content)
				if !notes {
					assert.NotContains(t, res.Content, "Recovery note:", "run %d", n)
					continue
				}
				if n < 2 {
					assert.NotContains(t, res.Content, "same result", "run %d", n)
					continue
				}
				assert.Contains(t, res.Content, sfRepeatNote(n), "run %d", n)
			}
		})
	}
}

// TestLoopDetectorKeepsTheLastThousand checks that a detector remembers its
// last 1,000 records and no more: an old repeat falls out.
func TestLoopDetectorKeepsTheLastThousand(t *testing.T) {
	tests := []struct {
		between int // other records between the two repeats
		refused bool
	}{
		{998, true},   // records 1 and 1,000 are the repeats: both kept
		{999, false},  // records 1 and 1,001: the first has gone
		{1500, false}, // long gone
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d between", tt.between), func(t *testing.T) {
			s := newSfSession(100, 2)
			call := sfCall("search", `{"q":"repeat"}`)
			same := reflectiontest.NewTool(reflectiontest.Succeed("same"))
			_, err := s.d.Run(s.ctx, call, same.Dispatch)
			require.NoError(t, err)
			other := reflectiontest.NewTool(reflectiontest.Succeed("other"))
			for i := 0; i < tt.between; i++ {
				_, err := s.d.Run(s.ctx, sfCall("search", fmt.Sprintf(`{"q":%d}`, i)), other.Dispatch)
				require.NoError(t, err)
			}
			_, err = s.d.Run(s.ctx, call, same.Dispatch)
			require.NoError(t, err, "the second repeat")
			_, err = s.d.Run(s.ctx, call, same.Dispatch)
			if tt.refused {
				assert.ErrorIs(t, err, reflection.ErrLoopDetected, "both repeats are among the last 1,000 records")
			} else {
				assert.NoError(t, err, "the first repeat should have fallen out")
			}
		})
	}
}

// TestLoopDetectorConcurrent checks that a detector shared by many
// goroutines loses no record: 200 concurrent identical results, then the
// 201st carries the count 201 and the next dispatch is refused.
func TestLoopDetectorConcurrent(t *testing.T) {
	const n = 200
	s := newSfSession(1, n+1, reflection.WithRecoveryNotes())
	tool := reflectiontest.NewTool(reflectiontest.Succeed("same"))
	call := sfCall("search", `{"q":1}`)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.d.Run(s.ctx, call, tool.Dispatch)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "refused before stopAt")
	}
	res, err := s.d.Run(s.ctx, call, tool.Dispatch)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(res.Content, sfRepeatNote(n+1)), "%q", res.Content)
	res, err = s.d.Run(s.ctx, call, tool.Dispatch)
	sfCheckLoopRefusal(t, res, err, call, "search", n+1)
	assert.Len(t, tool.Calls(), n+1)
	assert.False(t, errors.Is(err, context.Canceled))
}

// TestLoopDetectorNoteWithinOneCall checks the note on a call whose own
// retries repeat one failure until the strategy gives up.
func TestLoopDetectorNoteWithinOneCall(t *testing.T) {
	s := newSfSession(2, 10,
		reflection.WithRecoveryNotes(),
		reflection.WithReflector(sfAlways(sfRecoverable(nil))),
		reflection.WithStrategy(reflectiontest.NewStrategy(reflection.Retry{}, reflection.Retry{}, reflection.Fail{Reason: "enough"})),
	)
	tool := reflectiontest.NewTool(reflectiontest.Fail("no rows"))
	res, err := s.d.Run(s.ctx, sfCall("query", `{"sql":"select 1"}`), tool.Dispatch)
	require.NoError(t, err)
	assert.Len(t, tool.Calls(), 3)
	assert.True(t, strings.HasPrefix(res.Content, "no rows"), "%q", res.Content)
	assert.Contains(t, res.Content, sfRepeatNote(3))
}
