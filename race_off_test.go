//go:build !race

package reflection_test

// raceEnabled is set when the tests run under the race detector, which
// makes the largest loads too slow to run whole.
const raceEnabled = false
