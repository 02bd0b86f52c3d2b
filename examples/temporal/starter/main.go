// Command starter starts the example's Agent workflow, shows what each tool
// call is waiting for (through the call's Query), answers the question a
// call asks (through its Update), and prints the results. See the README of
// examples/temporal.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	reflectiontemporal "github.com/loopctl-go/reflection/contrib/temporal"
	"github.com/loopctl-go/reflection/examples/temporal/agent"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// publicReport is the input a human approves instead of the private path.
const publicReport = `{"path":"/public/sales.txt"}`

// answerTimeout bounds how long an answer waits for a worker to take it.
const answerTimeout = 30 * time.Second

func main() {
	address := flag.String("address", "127.0.0.1:7233", "the Temporal server's frontend address")
	approve := flag.Bool("approve", false, "approve the question without asking on the terminal")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *address, *approve, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "starter:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, address string, approve bool, in io.Reader, out io.Writer) error {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: address, Logger: logger})
	if err != nil {
		return err
	}
	defer c.Close()

	turn := agent.ExampleTurn()
	id := fmt.Sprintf("reflection-example-%d", time.Now().Unix())
	wf, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: agent.TaskQueue}, agent.WorkflowName, turn)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "started workflow %s (task: %s)\n", id, turn.Task)

	done := make(chan error, 1)
	var results []agent.Result
	go func() { done <- wf.Get(ctx, &results) }()

	lines := bufio.NewReader(in)
	seen := map[string]string{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			for _, r := range results {
				fmt.Fprintf(out, "\n%s: %s after %d attempt(s)\n%s\n", r.CallID, r.Outcome, r.Attempts, r.Content)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		for _, call := range turn.Calls {
			status, err := reflectiontemporal.QueryStatus(ctx, c, id, "", call.ID)
			if err != nil {
				continue // no worker yet, or the call has not started
			}
			line := describe(status)
			if seen[call.ID] == line {
				continue
			}
			seen[call.ID] = line
			fmt.Fprintf(out, "%s: %s\n", call.ID, line)
			if status.State == reflectiontemporal.StateAsking {
				if err := answer(ctx, c, id, call.ID, status, approve, lines, out); err != nil {
					return err
				}
			}
		}
	}
}

// describe says in one line what a call is doing.
func describe(s reflectiontemporal.Status) string {
	switch {
	case s.State == reflectiontemporal.StateWaiting && s.Wait != nil:
		return fmt.Sprintf("waiting %s (Retry-After hint %s) until %s, attempt %d failed",
			s.Wait.Delay, s.Wait.Hint, s.Wait.Until.Local().Format(time.TimeOnly), s.Attempt)
	case s.State == reflectiontemporal.StateAsking && s.Ask != nil:
		return "asking a human, until " + s.Ask.Until.Local().Format(time.DateTime)
	case s.State == reflectiontemporal.StateDone:
		return "done: " + s.Outcome.String()
	}
	return fmt.Sprintf("%s, attempt %d", s.State, s.Attempt)
}

// answer shows the question and sends the human's answer.
func answer(ctx context.Context, c client.Client, id, callID string, s reflectiontemporal.Status,
	approve bool, lines *bufio.Reader, out io.Writer) error {
	q := s.Ask.Question.Rebuild()
	fmt.Fprintf(out, "  question: %s\n  failure:  %s\n  guidance: %s\n", q.Prompt, q.Failure.Error, guidance(q))
	if !approve {
		fmt.Fprintf(out, "  retry with %s? [y/N] ", publicReport)
		line, err := lines.ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("read the answer: %w", err)
		}
		word := strings.ToLower(strings.TrimSpace(line))
		approve = word == "y" || word == "yes"
	}
	ans := reflection.Answer{Reply: "a human said no"}
	if approve {
		ans = reflection.Answer{Approve: true, Input: json.RawMessage(publicReport)}
	}
	// A worker takes the answer: with none running, SendAnswer would wait
	// for one as long as its ctx allows.
	actx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	if err := reflectiontemporal.SendAnswer(actx, c, id, "", callID, ans); err != nil {
		if actx.Err() == nil || ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(out, "  no worker took the answer within %s: is the worker running? The server holds the answer for the next one.\n", answerTimeout)
		return nil
	}
	fmt.Fprintf(out, "  answered: approve=%t\n", ans.Approve)
	return nil
}

func guidance(q reflection.Question) string {
	if c := q.Analysis.Correction; c != nil {
		return c.Guidance
	}
	return ""
}
