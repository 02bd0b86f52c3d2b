package reflectiontemporal

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// A workflow RetryPolicy starts the workflow again from its first line when
// the workflow fails with an error it may retry, and `temporal workflow
// reset` runs a workflow again from a point of its history. Either way a
// call of the new run starts with a machine that has made no dispatch,
// while its tool already ran in the runs before: six executions a run, and
// a workflow that wraps Run's error (fmt.Errorf with %w, or a new error of
// the same text) makes the error retryable again. So in a run that a retry
// or a reset made, the tool activity first counts the call's executions in
// the workflow's earlier runs, from their histories (the tool activity IDs
// name the call), and the call gets only what is left of its six.

// maxEarlierRuns is how many runs the count reads at most, following the
// links back from the current run; a longer chain is counted that far.
const maxEarlierRuns = 64

// runLink is a link from a run's history to a run before it: the events of
// run from event ID from on happened there and are not in the later run.
type runLink struct {
	at   int64  // the ID of the event in the later run that holds the link
	run  string // the run it points to
	from int64  // the first event of run that the later run does not hold
}

// toolRuns is a run of a tool activity of one call: how many times the tool
// ran in it, and the ID of the event that records it.
type toolRuns struct {
	at         int64
	executions int
}

// runSummary is what the count needs of one run's history: its links to
// earlier runs, and the tool executions of each call, by the call part of
// the activity IDs.
type runSummary struct {
	links []runLink
	calls map[string][]toolRuns
}

// summarize reads a run's history. A retry's started event links to the run
// it retries (all of its events); a reset's workflow task failure links to
// the run it was reset from (its events from the failure's ID on: the ones
// before were copied into this run). A tool activity's executions are the
// attempts recorded by its started event, less the first when the activity
// was scheduled with two attempts (the first one is a wait, see runTool),
// and none when it answered that the call was spent (as far as its result
// can be read: a payload codec may hide it).
func summarize(events []*historypb.HistoryEvent) *runSummary {
	s := &runSummary{calls: map[string][]toolRuns{}}
	type scheduled struct {
		call    string
		wait    bool
		started int // the index of its executions in s.calls[call], +1; 0: none yet
	}
	tools := map[int64]*scheduled{}
	for _, e := range events {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			a := e.GetWorkflowExecutionStartedEventAttributes()
			if a.GetInitiator() == enumspb.CONTINUE_AS_NEW_INITIATOR_RETRY && a.GetContinuedExecutionRunId() != "" {
				s.links = append(s.links, runLink{at: e.GetEventId(), run: a.GetContinuedExecutionRunId(), from: 1})
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			a := e.GetWorkflowTaskFailedEventAttributes()
			if a.GetCause() == enumspb.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW && a.GetBaseRunId() != "" {
				s.links = append(s.links, runLink{at: e.GetEventId(), run: a.GetBaseRunId(), from: e.GetEventId()})
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes()
			if a.GetActivityType().GetName() != DispatchActivity {
				continue
			}
			if call, point, ok := parseActivityID(a.GetActivityId()); ok && point == pointTool {
				tools[e.GetEventId()] = &scheduled{call: call, wait: a.GetRetryPolicy().GetMaximumAttempts() == 2}
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := e.GetActivityTaskStartedEventAttributes()
			t, ok := tools[a.GetScheduledEventId()]
			if !ok {
				continue
			}
			n := int(a.GetAttempt())
			if t.wait {
				n--
			}
			if n > 0 {
				s.calls[t.call] = append(s.calls[t.call], toolRuns{at: e.GetEventId(), executions: n})
				t.started = len(s.calls[t.call])
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := e.GetActivityTaskCompletedEventAttributes()
			t, ok := tools[a.GetScheduledEventId()]
			if !ok || t.started == 0 || len(a.GetResult().GetPayloads()) != 1 {
				continue
			}
			var out dispatchOutput
			if converter.GetDefaultDataConverter().FromPayload(a.GetResult().GetPayloads()[0], &out) == nil && out.Spent {
				s.calls[t.call][t.started-1].executions--
			}
		}
	}
	return s
}

// parseActivityID splits an activity ID that activityID made into its call
// part and its point. The call part may hold "/": the attempt, the point and
// the digest are the last three parts.
func parseActivityID(id string) (call, point string, ok bool) {
	parts := strings.Split(id, "/")
	if len(parts) < 4 {
		return "", "", false
	}
	n := len(parts)
	if _, err := strconv.Atoi(parts[n-3]); err != nil {
		return "", "", false
	}
	return strings.Join(parts[:n-3], "/"), parts[n-2], true
}

// callPart is the part of the activity IDs of call ID id that names the
// call (see activityID).
func callPart(id string) string {
	if len(id) > maxCallIDInActivityID {
		return digestCallID(id)
	}
	return id
}

// fetchHistory returns the events of a run.
type fetchHistory func(ctx context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error)

// earlierCounter counts a call's tool executions in the runs before the
// current one. It keeps the summaries of the earlier runs it has read (they
// are closed: their histories no longer change), at most maxCachedRuns.
type earlierCounter struct {
	fetch fetchHistory

	mu    sync.Mutex
	cache map[string]*runSummary // by run ID
	order []string               // run IDs in the order they were cached
}

// maxCachedRuns is how many run summaries an earlierCounter keeps.
const maxCachedRuns = 256

// clientHistory reads histories through c.
func clientHistory(c client.Client) fetchHistory {
	return func(ctx context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
		if c == nil {
			return nil, errors.New("reflectiontemporal: the worker has no client to read the history with")
		}
		it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		var events []*historypb.HistoryEvent
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return nil, err
			}
			events = append(events, e)
		}
		return events, nil
	}
}

// count returns how many times the tool of call ID callID ran in the runs
// before run runID of workflow workflowID: the runs it retries, and what the
// runs it was reset from ran after the reset point, back along the chain.
func (c *earlierCounter) count(ctx context.Context, workflowID, runID, callID string) (int, error) {
	events, err := c.fetch(ctx, workflowID, runID)
	if err != nil {
		return 0, fmt.Errorf("reflectiontemporal: read the history of run %s: %w", runID, err)
	}
	target := callPart(callID)
	seen := map[string]bool{runID: true}
	total := 0
	var walk func(s *runSummary, from int64, here bool) error
	walk = func(s *runSummary, from int64, here bool) error {
		if here {
			for _, t := range s.calls[target] {
				if t.at >= from {
					total += t.executions
				}
			}
		}
		for _, l := range s.links {
			if l.at < from || seen[l.run] || len(seen) >= maxEarlierRuns {
				continue
			}
			seen[l.run] = true
			prev, err := c.summary(ctx, workflowID, l.run)
			if err != nil {
				return err
			}
			if err := walk(prev, l.from, true); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(summarize(events), 1, false); err != nil {
		return 0, err
	}
	return total, nil
}

// summary returns the summary of an earlier run, from the cache or its
// history.
func (c *earlierCounter) summary(ctx context.Context, workflowID, runID string) (*runSummary, error) {
	c.mu.Lock()
	s, ok := c.cache[runID]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	events, err := c.fetch(ctx, workflowID, runID)
	if err != nil {
		return nil, fmt.Errorf("reflectiontemporal: read the history of run %s: %w", runID, err)
	}
	s = summarize(events)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cache == nil {
		c.cache = map[string]*runSummary{}
	}
	if _, ok := c.cache[runID]; !ok {
		if len(c.order) >= maxCachedRuns {
			delete(c.cache, c.order[0])
			c.order = c.order[1:]
		}
		c.cache[runID] = s
		c.order = append(c.order, runID)
	}
	return s, nil
}

// spentError ends a call whose tool has run the ceiling's number of times
// across the workflow's runs: the runtime refuses to run it again. It wraps
// a *reflection.ToolRecoveryExhaustedError whose Attempts count every
// execution, in this run and the earlier ones.
type spentError struct {
	callID    string
	earlier   int // the executions in the earlier runs
	exhausted reflection.ToolRecoveryExhaustedError
}

func (e *spentError) Error() string {
	return fmt.Sprintf("reflectiontemporal: call %q is not run again: its tool already ran %d times in earlier runs of the workflow "+
		"(a retry or a reset), %d in all, the most a call may run", e.callID, e.earlier, e.exhausted.Attempts)
}

func (e *spentError) Unwrap() error { return &e.exhausted }

// lookbackError is the failure of an attempt whose tool did not run because
// the count of the earlier runs failed: it matches reflection.ErrNoEffect,
// and the next attempt counts again.
type lookbackError struct {
	tool  string
	cause error
}

func (e *lookbackError) Error() string {
	return "tool " + strconv.Quote(e.tool) + " not run: its runs in the workflow's earlier runs could not be counted: " + errchain.Text(e.cause)
}
func (e *lookbackError) Unwrap() error        { return e.cause }
func (e *lookbackError) Is(target error) bool { return target == reflection.ErrNoEffect }
