package reflectiontest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// Recorder records every step a Driver's Observer sees, one line of text per
// step, so a test can compare the whole course of a call at once:
//
//	dispatch 0 read_file {"path":"a"}
//	failed 0: no such file
//	analyzed 0: recoverable low input_fix
//	decided 0: retry after 100ms
//	waiting 0: 100ms
//	corrected 0: input_fix applied
//	dispatch 1 read_file {"path":"b"}
//	succeeded 1
//	finished: 2 calls, ok
type Recorder struct {
	mu     sync.Mutex
	events []string
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Events returns the lines recorded so far.
func (r *Recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func (r *Recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

// Observer returns the hooks that record into r; join them with a host's own
// with reflection.JoinObservers.
func (r *Recorder) Observer() reflection.Observer {
	return reflection.Observer{
		DispatchStart: func(_ context.Context, attempt int, call reflection.ToolCall) {
			r.add("dispatch %d %s %s", attempt, call.Name, call.Input)
		},
		DispatchDone: func(_ context.Context, attempt int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				r.add("failed %d: %v", attempt, err)
			case res.IsError:
				r.add("failed %d: %s", attempt, res.Content)
			default:
				r.add("succeeded %d", attempt)
			}
		},
		Analyzed: func(_ context.Context, f reflection.Failure, a reflection.FailureAnalysis, err error) {
			if err != nil {
				r.add("analyzed %d: error: %v", f.Attempt, err)
				return
			}
			verdict := "unrecoverable"
			if a.IsRecoverable {
				verdict = "recoverable"
			}
			correction := "no correction"
			if a.Correction != nil {
				correction = string(a.Correction.Type)
			}
			r.add("analyzed %d: %s %s %s", f.Attempt, verdict, a.Severity, correction)
		},
		Decided: func(_ context.Context, attempt int, action reflection.RecoveryAction) {
			r.add("decided %d: %v", attempt, action)
		},
		Waiting: func(_ context.Context, attempt int, delay time.Duration) {
			r.add("waiting %d: %v", attempt, delay)
		},
		Corrected: func(_ context.Context, attempt int, c reflection.Correction, applied bool, why string) {
			if applied {
				r.add("corrected %d: %s applied", attempt, c.Type)
				return
			}
			r.add("corrected %d: %s dropped: %s", attempt, c.Type, why)
		},
		Asked: func(_ context.Context, attempt int, _ reflection.Question, ans reflection.Answer, err error) {
			switch {
			case err != nil:
				r.add("asked %d: error: %v", attempt, err)
			case ans.Approve:
				r.add("asked %d: approved", attempt)
			default:
				r.add("asked %d: declined %q", attempt, ans.Reply)
			}
		},
		Finished: func(_ context.Context, calls int, res reflection.ToolResult, err error) {
			switch {
			case err != nil:
				r.add("finished: %d calls, error: %v", calls, err)
			case res.IsError:
				r.add("finished: %d calls, soft error", calls)
			default:
				r.add("finished: %d calls, ok", calls)
			}
		},
	}
}
