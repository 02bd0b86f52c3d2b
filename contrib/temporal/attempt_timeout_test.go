package reflectiontemporal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowOnce is a tool whose first run outlives its time limit: it waits
// for its ctx to end (honours) or for 5s whatever its ctx does (ignores),
// then fails; its second run succeeds.
type slowOnce struct {
	ignoresCtx bool
	mu         sync.Mutex
	runs       int
}

func (s *slowOnce) dispatch(ctx context.Context, _ reflection.ToolCall) (reflection.ToolResult, error) {
	s.mu.Lock()
	s.runs++
	first := s.runs == 1
	s.mu.Unlock()
	if !first {
		return reflection.ToolResult{Content: "report ready"}, nil
	}
	if s.ignoresCtx {
		time.Sleep(5 * time.Second) // the bubble's clock
		return reflection.ToolResult{}, errors.New("the report service gave up")
	}
	<-ctx.Done()
	return reflection.ToolResult{}, ctx.Err()
}

// TestAttemptTimeoutMatchesDriver gives both runtimes a Driver with an
// attempt timeout of 1s and a tool whose first run outlives it: the
// attempt's failure reads as Driver.Run's attempt timeout under Run too
// (the tool activity's StartToCloseTimeout is the Driver's timeout), and
// the reports are the same, times aside. Both run in a synctest bubble:
// the waits pass at once.
func TestAttemptTimeoutMatchesDriver(t *testing.T) {
	for _, ignores := range []bool{false, true} {
		name := "a tool that honours its ctx"
		if ignores {
			name = "a tool that ignores its ctx"
		}
		t.Run(name, func(t *testing.T) {
			d := func(r reflection.Reflector) *reflection.Driver {
				opts := []reflection.Option{reflection.WithAttemptTimeout(time.Second)}
				if r != nil {
					opts = append(opts, reflection.WithReflector(r))
				}
				return reflection.NewDriver(opts...)
			}
			var want reflection.Report
			synctest.Test(t, func(t *testing.T) {
				tool := &slowOnce{ignoresCtx: ignores}
				var err error
				want, err = d(reflectiontest.NewReflector(recoverable("slow"))).RunWithReport(context.Background(), readCall, tool.dispatch)
				require.NoError(t, err)
			})
			var got ran
			synctest.Test(t, func(t *testing.T) {
				tool := &slowOnce{ignoresCtx: ignores}
				h := newHarness(t, tool.dispatch, reflectiontest.NewReflector(recoverable("slow")))
				got = h.run(d(nil), readCall)
			})

			require.NoError(t, got.err)
			reflectiontest.AssertOutcome(t, got.rep, reflection.OutcomeSucceeded)
			require.Len(t, got.rep.Attempts, 2)
			assert.Equal(t, `tool "read_file" timed out after 1s`, got.rep.Attempts[0].Failure)
			assert.Equal(t, withoutTimes(want), withoutTimes(got.rep))
		})
	}
}
