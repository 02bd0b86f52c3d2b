//go:build race

package reflection

// raceDetector is set under the race detector, which allocates.
const raceDetector = true
