package reflectiontemporal_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/grpc"

	rt "github.com/loopctl-go/reflection/contrib/temporal"
)

// The environment variables of the dev-server tests.
const (
	// envCLI names an existing Temporal CLI binary to run the dev server
	// with; without it the tests build one (see temporalCLI).
	envCLI = "REFLECTION_TEMPORAL_CLI"

	// The environment that turns the test binary into a worker process.
	envWorkerHostPort = "REFLECTION_TEMPORAL_WORKER_HOSTPORT"
	envWorkerQueue    = "REFLECTION_TEMPORAL_WORKER_QUEUE"
	envWorkerLog      = "REFLECTION_TEMPORAL_WORKER_LOG"
	// envWorkerSteps makes the worker record that version of Run's steps
	// in new workflows (worker.Options.PreferredVersionProvider): "1" runs
	// the first release's steps, to measure what changed.
	envWorkerSteps = "REFLECTION_TEMPORAL_WORKER_STEPS"
	// envWorkerHeartbeats names a file to which the worker appends a line
	// for every activity heartbeat it sends to the server.
	envWorkerHeartbeats = "REFLECTION_TEMPORAL_WORKER_HEARTBEATS"

	// envServe turns the test binary into a guard that runs the CLI it
	// names (see devServerMain).
	envServe = "REFLECTION_TEMPORAL_SERVE_CLI"
)

// devServerModule is the module whose tool directive pins the Temporal CLI;
// it is not in go.work, so the adapter's users never download it.
const devServerModule = "internal/devserver"

// temporalCLI returns the path of a Temporal CLI binary: the one $envCLI
// names, or the one built from devServerModule and cached under the user
// cache directory, keyed by the CLI's version. A missing one is built
// first: a cold build takes minutes, later builds are skipped.
func temporalCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envCLI); p != "" {
		return p
	}
	version := cliVersion(t)
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	exe := "temporal"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	path := filepath.Join(cache, "loopctl-reflection", "temporal-cli", version, exe)
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		return path
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command builds the Temporal CLI")
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	// The build must end before the test binary's deadline: a test that
	// times out runs no cleanup, and would leave the build running.
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", tmp, "tool")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // go stops its compilers
	cmd.WaitDelay = 30 * time.Second
	cmd.Dir = devServerModule
	cmd.Env = append(os.Environ(), "GOWORK=off")
	t.Logf("building the Temporal CLI %s into %s (once; a cold build takes minutes)", version, path)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the Temporal CLI build did not finish before the test deadline: run with -timeout 30m, "+
			"or set %s to a Temporal CLI binary", envCLI)
	}
	require.NoError(t, err, "go build tool in %s:\n%s", devServerModule, out)
	require.NoError(t, os.Rename(tmp, path))
	t.Logf("built the Temporal CLI in %s", time.Since(start).Round(time.Second))
	return path
}

// cliVersion reads the version of github.com/temporalio/cli that
// devServerModule requires.
func cliVersion(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(devServerModule, "go.mod"))
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "github.com/temporalio/cli" {
			return fields[1]
		}
	}
	require.NoError(t, s.Err())
	t.Fatalf("%s/go.mod requires no github.com/temporalio/cli", devServerModule)
	return ""
}

// startDevServer starts the CLI's dev server on a free loopback port, with
// every other port it opens on loopback too, and stops it when the test
// ends.
func startDevServer(t *testing.T) *testsuite.DevServer {
	t.Helper()
	cli := temporalCLI(t)
	// The dev server runs under a guard, the test binary itself, that ends
	// it if this process dies without stopping it (a test that times out
	// runs no cleanup).
	t.Setenv(envServe, cli)
	logFile, err := os.Create(filepath.Join(t.TempDir(), "devserver.log"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  os.Args[0],
		ClientOptions: &client.Options{HostPort: "127.0.0.1:" + freePort(t), Logger: quietLogger()},
		LogLevel:      "warn",
		Stdout:        logFile,
		Stderr:        logFile,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		srv.Client().Close()
		if err := srv.Stop(); err != nil {
			t.Errorf("stop the dev server: %v", err)
		}
		_ = logFile.Close()
	})
	return srv
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)
	return port
}

// quietLogger drops the SDK's logs.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// workerProcess is a worker running as a child process: the test binary
// run again with the worker environment (see TestMain).
type workerProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startWorker starts a worker process for queue; every tool execution is
// logged to toolLog. env adds to the worker's environment. The process is
// killed when the test ends, if it still runs.
func startWorker(t *testing.T, srv *testsuite.DevServer, queue, toolLog string, env ...string) *workerProcess {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "worker.log"))
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envWorkerHostPort+"="+srv.FrontendHostPort(),
		envWorkerQueue+"="+queue,
		envWorkerLog+"="+toolLog,
	)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	w := &workerProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.kill()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("worker %d log:\n%s", cmd.Process.Pid, b)
		}
	})
	return w
}

// pid returns the worker's process ID.
func (w *workerProcess) pid() int { return w.cmd.Process.Pid }

// kill kills the worker with SIGKILL (no graceful stop) and waits until it
// has exited.
func (w *workerProcess) kill() {
	_ = w.cmd.Process.Kill()
	<-w.done
}

// workerMain is the worker process: it serves the test workflows and the
// activities over workerTool and workerReflector until it is killed.
func workerMain() int {
	go exitWithParent()
	copts := client.Options{HostPort: os.Getenv(envWorkerHostPort), Logger: quietLogger()}
	if name := os.Getenv(envWorkerHeartbeats); name != "" {
		copts.ConnectionOptions.DialOptions = []grpc.DialOption{grpc.WithChainUnaryInterceptor(countHeartbeats(name))}
	}
	c, err := client.Dial(copts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker: dial:", err)
		return 1
	}
	defer c.Close()
	// The deadlock detector fails a workflow task whose code runs a second
	// without yielding; on a loaded machine a task can be held off the CPU
	// that long, and the retried task would make the tests slower, not
	// wrong. Run's own code yields within milliseconds.
	opts := worker.Options{DeadlockDetectionTimeout: time.Minute}
	if v, err := strconv.Atoi(os.Getenv(envWorkerSteps)); err == nil {
		opts.PreferredVersionProvider = func(in worker.PreferredVersionProviderInput) *worker.VersionPreference {
			if in.ChangeID != "github.com/loopctl-go/reflection/contrib/temporal" {
				return nil
			}
			return &worker.VersionPreference{Version: workflow.Version(v)}
		}
	}
	w := worker.New(c, os.Getenv(envWorkerQueue), opts)
	registerWorkflows(w)
	w.RegisterActivityWithOptions(plainTool, activity.RegisterOptions{Name: plainActivity})
	if err := rt.Register(w, workerTool(os.Getenv(envWorkerLog)), workerReflector); err != nil {
		fmt.Fprintln(os.Stderr, "worker: register:", err)
		return 1
	}
	fmt.Println("worker: running")
	if err := w.Run(worker.InterruptCh()); err != nil {
		fmt.Fprintln(os.Stderr, "worker: run:", err)
		return 1
	}
	return 0
}

// countHeartbeats is a gRPC interceptor that appends a line to the file
// name for every activity heartbeat sent to the server: what Temporal
// Cloud bills, the SDK's throttling done.
func countHeartbeats(name string) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if strings.HasSuffix(method, "/RecordActivityTaskHeartbeat") || strings.HasSuffix(method, "/RecordActivityTaskHeartbeatById") {
			_ = appendLine(name, method)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// devServerMain is the dev server's guard: it runs the CLI that envServe
// names with this process's arguments, passes on an interrupt (how
// DevServer.Stop stops it), kills the CLI when the test process that
// started the guard has gone, and exits with the CLI's status.
func devServerMain() int {
	parent := os.Getppid()
	cmd := exec.Command(os.Getenv(envServe), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "devserver guard:", err)
		return 1
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if exit, ok := err.(*exec.ExitError); ok {
				return exit.ExitCode()
			}
			if err != nil {
				return 1
			}
			return 0
		case sig := <-interrupts:
			_ = cmd.Process.Signal(sig)
		case <-tick.C:
			if os.Getppid() != parent {
				_ = cmd.Process.Kill()
			}
		}
	}
}

// exitWithParent ends the worker process when the test process that
// started it has gone (a test that times out runs no cleanup).
func exitWithParent() {
	parent := os.Getppid()
	for range time.Tick(time.Second) {
		if os.Getppid() != parent {
			os.Exit(2)
		}
	}
}

// toolRuns reads the tool log: one line per tool execution.
func toolRuns(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// awaitState polls the call's Query until it reports state.
func awaitState(t *testing.T, c client.Client, workflowID, callID string, state rt.State) rt.Status {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var last rt.Status
	var lastErr error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		last, lastErr = rt.QueryStatus(ctx, c, workflowID, "", callID)
		cancel()
		if lastErr == nil && last.State == state {
			return last
		}
		time.Sleep(100 * time.Millisecond) // an integration test polls a real server
	}
	t.Fatalf("call %s never reached state %s: last status %+v, last error %v", callID, state, last, lastErr)
	return last
}
