package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// runAsProgram, set in the environment, makes the test binary run main
// itself: TestProgram starts it as a child process with a real stdin.
const runAsProgram = "APPROVAL_EXAMPLE_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsProgram) == "1" {
		main()
		return
	}
	goleak.VerifyTestMain(m)
}

// session runs the program with its input on a pipe: once the question is
// on the terminal, the test types answer (or closes the input when answer
// is empty), and returns the exit code and everything written.
func session(t *testing.T, answer string) (int, string) {
	t.Helper()
	r, w := io.Pipe()
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), r, &out) }()
	if answer != "" {
		// The write blocks until the asker reads: after the question.
		_, err := io.WriteString(w, answer)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	code := <-done
	require.NoError(t, r.Close())
	return code, out.String()
}

func TestApproval(t *testing.T) {
	question := []string{
		`The agent calls write_file {"path":"/etc/report.txt","text":"all systems go"}`,
		"tool:        write_file",
		"failure:     open /etc/report.txt: permission denied",
		"root cause:  no write permission in /etc",
		"correction:  input_fix: write to /tmp/report.txt instead",
		`new input:   {"path":"/tmp/report.txt","text":"all systems go"}`,
		"Retry the call? [y/N]",
	}
	tests := []struct {
		name     string
		answer   string
		wantCode int
		want     []string
		wantNone []string
	}{
		{
			name:     "y retries with the fix",
			answer:   "y\n",
			wantCode: 0,
			want: []string{
				"attempt 0: write_file {\"path\":\"/etc/report.txt\",\"text\":\"all systems go\"} -> open /etc/report.txt: permission denied\n" +
					"  asked a human: approved=true\n" +
					"attempt 1: write_file {\"path\":\"/tmp/report.txt\",\"text\":\"all systems go\"} -> ok\n",
				"The model is told: wrote 14 bytes to /tmp/report.txt",
			},
		},
		{
			name:     "Yes, from a Windows terminal",
			answer:   "Yes\r\n",
			wantCode: 0,
			want:     []string{"The model is told: wrote 14 bytes to /tmp/report.txt"},
		},
		{
			name:     "anything else declines and goes to the model",
			answer:   "no, ask the admin for access to /etc\n",
			wantCode: 1,
			want: []string{
				"  asked a human: approved=false\n",
				"The model is told (asked_user):\n  open /etc/report.txt: permission denied\n\n" +
					"  A human decision is needed before this call can be retried: high-severity failure with correction available: no write permission in /etc\n\n" +
					"  A human declined to retry this call.\n\n" +
					"  no, ask the admin for access to /etc\n",
			},
			wantNone: []string{"attempt 1", "wrote"},
		},
		{
			name:     "no answer: the input ends",
			answer:   "",
			wantCode: 1,
			want:     []string{"The model is told (asked_user):", "A human decision is needed before this call can be retried"},
			wantNone: []string{"declined", "asked a human", "attempt 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := session(t, tt.answer)
			assert.Equal(t, tt.wantCode, code, "exit code; output:\n%s", out)
			for _, w := range append(question, tt.want...) {
				assert.Contains(t, out, w)
			}
			for _, w := range tt.wantNone {
				assert.NotContains(t, out, w)
			}
		})
	}
}

// TestApprovalStopped: a cancel (Ctrl-C) while the question waits stops the
// call with exit code 2; the reader goroutine ends once the input closes.
func TestApprovalStopped(t *testing.T) {
	r, w := io.Pipe()
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, r, &out) }()
	// The question is written before the asker starts to read: a one-byte
	// write returns once it is read.
	_, err := io.WriteString(w, " ")
	require.NoError(t, err)
	cancel()
	code := <-done
	require.NoError(t, w.Close())
	assert.Equal(t, 2, code)
	assert.Contains(t, out.String(), "stopped: reflection: call stopped: context canceled")
}

// TestProgram runs main as a real process: the answer comes on its stdin.
func TestProgram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runAsProgram+"=1")
	cmd.Stdin = strings.NewReader("y\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "output:\n%s", out)
	assert.Contains(t, string(out), "The model is told: wrote 14 bytes to /tmp/report.txt")
}
