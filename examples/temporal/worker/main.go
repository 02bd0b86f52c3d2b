// Command worker serves the example's Agent workflow and the recovery
// activities (the simulated tools and the Reflector) on a Temporal server.
// Kill it at any time, even with SIGKILL, and start it again: the calls go
// on where they were. See the README of examples/temporal.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/loopctl-go/reflection/examples/temporal/agent"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

func main() {
	address := flag.String("address", "127.0.0.1:7233", "the Temporal server's frontend address")
	flag.Parse()
	if err := run(*address); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(address string) error {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: address, Logger: logger})
	if err != nil {
		return err
	}
	defer c.Close()
	w := worker.New(c, agent.TaskQueue, worker.Options{})
	if err := agent.Register(w); err != nil {
		return err
	}
	fmt.Printf("worker %d polling task queue %q on %s\n", os.Getpid(), agent.TaskQueue, address)
	return w.Run(worker.InterruptCh())
}
