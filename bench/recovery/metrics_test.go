package recovery

import (
	"slices"
	"testing"
	"time"
)

func TestBinomial(t *testing.T) {
	tests := []struct{ n, k, want int }{{5, 0, 1}, {5, 1, 5}, {5, 2, 10}, {5, 5, 1}, {3, 4, 0}, {0, 0, 1}, {4, 2, 6}}
	for _, tt := range tests {
		if got := binomial(tt.n, tt.k); got != tt.want {
			t.Errorf("C(%d,%d) = %d, want %d", tt.n, tt.k, got, tt.want)
		}
	}
}

func TestIsRight(t *testing.T) {
	tests := []struct {
		right, calls int
		want         bool
	}{{1, 1, true}, {0, 1, false}, {9, 10, true}, {8, 10, false}, {18, 20, true}, {17, 20, false}}
	for _, tt := range tests {
		if got := (runResult{logical: tt.calls, right: tt.right}).isRight(); got != tt.want {
			t.Errorf("%d of %d right: got %v, want %v", tt.right, tt.calls, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	scs := []*scenario{{Class: "transient"}, {Class: "outage"}}
	ok := runResult{logical: 1, calls: 1, right: 1, dispatches: 2, analyses: 1, waited: time.Second}
	bad := runResult{logical: 1, calls: 1, dispatches: 4, analyses: 3, duplicates: 1, waited: 3 * time.Second}
	storm := runResult{logical: 10, calls: 10, right: 9, dispatches: 13, analyses: 3}
	// Scenario 0 is right in seeds 1, 2 and 3 of 5; scenario 1 in all five.
	runs := [][]runResult{{ok, storm}, {ok, storm}, {ok, storm}, {bad, storm}, {bad, storm}}
	got := summarize("c", scs, runs)
	if got.Correct != 0.8 || got.CorrectByClass["transient"] != 0.6 || got.CorrectByClass["outage"] != 1 {
		t.Errorf("correct: got %v %v", got.Correct, got.CorrectByClass)
	}
	// pass^k = mean of C(c,k)/C(5,k) for c = 3 and 5.
	want := []float64{0.8, 0.65, 0.55, 0.5, 0.5}
	if !slices.Equal(got.PassK, want) {
		t.Errorf("pass^k: got %v, want %v", got.PassK, want)
	}
	if got.DuplicateEffects != 2 || got.Amplification != 1.3 {
		t.Errorf("duplicates %d, amplification %v; want 2, 1.3", got.DuplicateEffects, got.Amplification)
	}
	// 55 calls: 3×2 + 2×4 + 5×13 = 79 dispatches, 3+6+15 = 24 analyses, 9 s.
	if got.DispatchesPerCall != 1.4364 || got.ReflectorCallsPerCall != 0.4364 || got.WaitedSecondsPerCall != 0.1636 {
		t.Errorf("per call: got %v %v %v", got.DispatchesPerCall, got.ReflectorCallsPerCall, got.WaitedSecondsPerCall)
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		p    float64
		n    int
		want [2]float64
	}{
		{0.5, 100, [2]float64{0.4038, 0.5962}},
		{0, 10, [2]float64{0, 0.2775}},
		{1, 10, [2]float64{0.7225, 1}},
		{0.9, 363, [2]float64{0.8648, 0.9268}},
		{0.3, 0, [2]float64{}},
	}
	for _, tt := range tests {
		if got := wilson(tt.p, tt.n); got != tt.want {
			t.Errorf("wilson(%v, %d) = %v, want %v", tt.p, tt.n, got, tt.want)
		}
	}
}
