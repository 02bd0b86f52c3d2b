//go:build !plan9

package rules_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// BenchmarkAnalyze measures one Analyze of the stock table (with an
// UnknownTool rule at the end, as a host would add it): a typed hit, text
// hits early and late in the table, misses, and an unknown tool.
func BenchmarkAnalyze(b *testing.B) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	traceback := "Traceback (most recent call last):\n" +
		strings.Repeat("  File \"/srv/app/handlers.py\", line 120, in handle\n    return self.dispatch(request)\n", 200) +
		"KeyError: 'id'"
	buildLog := strings.Repeat("[build] compiling module github.com/acme/service/internal/handlers (pkg 12 of 40)\n", (1<<20)/80) +
		"error: exit status 2"
	cases := []struct {
		name string
		f    reflection.Failure
	}{
		{"typed hit (ECONNREFUSED)", reflection.Failure{Err: refused, Error: refused.Error(), Tool: "fetch"}},
		{"text hit (OpenAI 429 with a retry hint)", reflection.Failure{Tool: "fetch", Error: "429 Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms."}},
		{"text hit late in the table (MySQL deadlock)", reflection.Failure{Tool: "query", Error: "Error 1213: Deadlock found when trying to get lock; try restarting transaction"}},
		{"text hit (auth)", reflection.Failure{Tool: "fetch", Error: "Error code: 401 - {'type': 'error', 'error': {'type': 'authentication_error', 'message': 'invalid x-api-key'}}"}},
		{"miss (short)", reflection.Failure{Tool: "parse", Error: "json: cannot unmarshal string into Go value of type int"}},
		{"miss (16 KiB traceback)", reflection.Failure{Tool: "run_python", Error: traceback}},
		{"miss (1 MiB log)", reflection.Failure{Tool: "run_shell", Error: buildLog}},
		{"unknown tool", reflection.Failure{Tool: "web_serach", Error: `calling "tools/call": unknown tool "web_serach"`}},
	}
	r := rules.New(append(rules.Defaults(), rules.UnknownTool("web_search", "read_file", "write_file", "fetch"))...)
	ctx := context.Background()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Analyze(ctx, c.f)
			}
		})
	}
}

// BenchmarkUnknownToolLongName measures one Analyze of a call to an unknown
// tool whose name (the model's to choose) is very long, against a host with
// 200 tools: the work must be bounded by the list, not by the name.
func BenchmarkUnknownToolLongName(b *testing.B) {
	r := rules.New(rules.UnknownTool(hostTools(200)...))
	ctx := context.Background()
	for _, size := range []int{64 << 10, 1 << 20} {
		f := reflection.Failure{Tool: longToolName(size), Error: "Unknown tool"}
		b.Run(fmt.Sprintf("%d KiB name, 200 tools", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Analyze(ctx, f)
			}
		})
	}
}

// BenchmarkAnalyzeDataset measures the stock table over every message of
// the data set, one Analyze each: the cost per failure of a realistic mix of
// hits and misses, reported as ns/failure.
func BenchmarkAnalyzeDataset(b *testing.B) {
	var failures []reflection.Failure
	for _, file := range datasetFiles {
		for _, m := range loadDataset(b, file) {
			failures = append(failures, reflection.Failure{Tool: "tool", Error: m.Text})
		}
	}
	r := rules.New(rules.Defaults()...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for i := range failures {
			r.Analyze(ctx, failures[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(failures)), "ns/failure")
}
