#!/usr/bin/env bash
# Benchmarks the Driver at an earlier commit and at the working tree, in one
# run: both test binaries are built first, then run in turn, -count times, so
# the two see the same machine, load and thermal state.
#
#   bash bench/compare.sh fb40f14           # the commit before the state machine
#   COUNT=10 BENCH='^Benchmark(Success|Retry3)$' bash bench/compare.sh <commit>
#   SRC=new BENCH='^Benchmark(Success|DispatchShape)$' bash bench/compare.sh 5c3e124
#
# BENCHTIME sets -test.benchtime (default: go test's 1s).
# SRC=old (the default) runs the commit's own benchmarks against it; SRC=new
# runs this directory's benchmarks against it, built with the tag oldroot,
# which leaves out the files that need names the commit may not have, so a
# benchmark added since measures the commit too.
#
# Results: bench/results/compare-old.txt and compare-new.txt (benchstat reads
# them), and the benchstat table on stdout.
set -euo pipefail
cd "$(dirname "$0")"
old=${1:?usage: compare.sh <commit>}
count=${COUNT:-10}
bench=${BENCH:-'^Benchmark(Success|Retry3|InputFix)$'}
timeflag=()
if [ -n "${BENCHTIME:-}" ]; then
	timeflag=(-test.benchtime "$BENCHTIME")
fi
out=${OUT:-results}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/root" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# The old root, and a copy of a bench module pointing at it: the commit's
# own, or this one (SRC=new). Only the benchmarks both builds have are run.
git worktree add --detach "$tmp/root" "$old" >/dev/null
tags=()
case ${SRC:-old} in
old) cp -r "$tmp/root/bench" "$tmp/bench" ;;
new)
	mkdir "$tmp/bench"
	cp ./*.go go.mod go.sum "$tmp/bench/"
	tags=(-tags oldroot)
	;;
*)
	echo "compare.sh: SRC must be old or new" >&2
	exit 2
	;;
esac
(cd "$tmp/bench" && go mod edit -replace "github.com/loopctl-go/reflection=$tmp/root" && GOWORK=off go test -c "${tags[@]}" -o "$tmp/old.test" .)
go test -c -o "$tmp/new.test" .

: >"$out/compare-old.txt"
: >"$out/compare-new.txt"
for _ in $(seq "$count"); do
	for v in old new; do
		"$tmp/$v.test" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1 "${timeflag[@]}" |
			grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$out/compare-$v.txt"
	done
done
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
if go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da 2>/dev/null; then
	"$gobin/benchstat" "$out/compare-old.txt" "$out/compare-new.txt"
fi
