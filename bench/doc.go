// Package bench holds the benchmarks of github.com/loopctl-go/reflection: the
// Driver against a direct call of the tool (the floor) and against the Go
// retry libraries people would otherwise pick, each configured for zero delay
// and no jitter. It is its own module so that users of the library never
// download the peers. The code lives in the _test.go files; see README.md for
// the scenarios and run.sh to reproduce the numbers.
package bench
