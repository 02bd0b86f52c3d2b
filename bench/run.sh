#!/usr/bin/env bash
# Runs the benchmarks of github.com/loopctl-go/reflection against the direct
# call and the peer retry libraries, and summarises them with benchstat.
#
#   bash bench/run.sh                 # full run: -count 6 (a few minutes)
#   BENCH_QUICK=1 bash bench/run.sh   # smoke run for CI: -benchtime 100x -count 1
#
# Settings (environment): COUNT (default 6), BENCHTIME (default: go test's
# 1s), CANCEL_RUNS (cancellations per count, default 2000), OUT (directory for
# the raw results, default this directory; *.out is git-ignored).
set -euo pipefail
cd "$(dirname "$0")"

count=${COUNT:-6}
benchtime=${BENCHTIME:-}
cancel_runs=${CANCEL_RUNS:-2000}
if [ -n "${BENCH_QUICK:-}" ]; then
	count=1
	benchtime=100x
	cancel_runs=100
fi
out=${OUT:-.}
mkdir -p "$out"
timeflag=()
if [ -n "$benchtime" ]; then
	timeflag=(-benchtime "$benchtime")
fi

step() { printf '\n== %s\n' "$*"; }

step "machine"
go version
uname -srm
echo "cpus: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true

step "benchstat"
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
benchstat="$gobin/benchstat"
if ! go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da 2>/dev/null &&
	! go install golang.org/x/perf/cmd/benchstat@latest; then
	echo "benchstat could not be installed; raw results only"
	benchstat=""
fi

step "same work: every library makes the same calls"
go test -count=1 -run '^TestSameWork$' .

step "benchmarks (count $count${benchtime:+, benchtime $benchtime})"
go test -run '^$' -bench '^Benchmark(Success|DispatchShape|Retry3|InputFix|LLMAnalyze|LLMRepair)$' -benchmem \
	-count "$count" "${timeflag[@]}" | tee "$out/bench.out"

step "safety by default: every option against none, per dispatch shape; a failed call with the memory"
go test -run '^$' -bench '^Benchmark(SafeDefaults|FailedCallMemory|SuccessMemoryHeld)$' -benchmem \
	-count "$count" "${timeflag[@]}" | tee "$out/defaults.out"
go test -run '^$' -bench '^BenchmarkSafeDefaultsParallel$' -benchmem -cpu 1,2 \
	-count "$count" "${timeflag[@]}" | tee "$out/defaults-parallel.out"

step "shared Driver under RunParallel (-cpu 1,2)"
go test -run '^$' -bench '^BenchmarkRetry3Parallel$' -benchmem -cpu 1,2 \
	-count "$count" "${timeflag[@]}" | tee "$out/parallel.out"

step "cancel latency ($cancel_runs cancellations per count)"
go test -run '^$' -bench '^BenchmarkCancelLatency$' -benchtime "${cancel_runs}x" \
	-count "$count" | tee "$out/cancel.out"

if [ -z "$benchstat" ]; then
	exit 0
fi

step "summary: every library against the direct call (the floor)"
"$benchstat" -col /lib -row .name -filter '.name:(Success OR Retry3 OR InputFix)' "$out/bench.out"

step "summary: the Driver against each peer"
"$benchstat" -col '/lib@(driver cenkalti retrygo failsafe)' -row .name \
	-filter '/lib:(driver OR cenkalti OR retrygo OR failsafe)' "$out/bench.out"

step "summary: the Driver against a direct call, per dispatch shape"
"$benchstat" -col /lib -row /dispatch -filter '.name:DispatchShape' "$out/bench.out"

step "summary: every safety option against none, per dispatch shape"
"$benchstat" -col /options -row /dispatch -filter '.name:SafeDefaults' "$out/defaults.out"
"$benchstat" -col /options -row /dispatch,/gomaxprocs "$out/defaults-parallel.out"

step "summary: a failed call, with and without the effect memory"
"$benchstat" -col /memory -filter '.name:FailedCallMemory' "$out/defaults.out"
"$benchstat" -col /memory -filter '.name:SuccessMemoryHeld' "$out/defaults.out"

step "summary: llm.Reflector.Analyze with a fake client"
"$benchstat" -col /cache -row .name -filter '.name:LLMAnalyze' "$out/bench.out"

step "summary: what one repair round adds to Analyze (fake client)"
"$benchstat" -col /repair -row .name -filter '.name:LLMRepair' "$out/bench.out"

step "summary: RunParallel, 1 CPU against 2 (ns/op is per call, all goroutines together)"
"$benchstat" -col /gomaxprocs -row /lib "$out/parallel.out"

step "summary: cancel latency (p50-ns, p99-ns, max-ns)"
"$benchstat" "$out/cancel.out"
