package reflection_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

func TestNewExponentialBackoffDefaults(t *testing.T) {
	b := reflection.NewExponentialBackoff(3)
	if got := b.MaxRetries(); got != 3 {
		t.Errorf("MaxRetries() = %d, want 3", got)
	}
	if got := b.BaseDelay(); got != 100*time.Millisecond {
		t.Errorf("BaseDelay() = %v, want 100ms", got)
	}
	if got := b.MaxDelay(); got != 30*time.Second {
		t.Errorf("MaxDelay() = %v, want 30s", got)
	}
}

func TestNewExponentialBackoffNegativeRetries(t *testing.T) {
	b := reflection.NewExponentialBackoff(-2)
	if got := b.MaxRetries(); got != 0 {
		t.Errorf("MaxRetries() = %d, want 0", got)
	}
	a := reflection.FailureAnalysis{IsRecoverable: true, RootCause: "r"}
	want := reflection.Fail{Reason: "max retries (0) exceeded"}
	if got := b.Decide(context.Background(), a, 0, 6); got != want {
		t.Errorf("Decide = %#v, want %#v", got, want)
	}
}

func TestExponentialBackoffBuilders(t *testing.T) {
	base := reflection.NewExponentialBackoff(4)
	tests := []struct {
		name     string
		b        reflection.ExponentialBackoff
		wantBase time.Duration
		wantMax  time.Duration
	}{
		{"unchanged", base, 100 * time.Millisecond, 30 * time.Second},
		{"base", base.WithBaseDelay(time.Second), time.Second, 30 * time.Second},
		{"max", base.WithMaxDelay(time.Minute), 100 * time.Millisecond, time.Minute},
		{"both", base.WithBaseDelay(time.Second).WithMaxDelay(5 * time.Second), time.Second, 5 * time.Second},
		{"negative base is 0", base.WithBaseDelay(-time.Second), 0, 30 * time.Second},
		{"negative max is 0", base.WithMaxDelay(-time.Second), 100 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.BaseDelay(); got != tt.wantBase {
				t.Errorf("BaseDelay() = %v, want %v", got, tt.wantBase)
			}
			if got := tt.b.MaxDelay(); got != tt.wantMax {
				t.Errorf("MaxDelay() = %v, want %v", got, tt.wantMax)
			}
			if got := tt.b.MaxRetries(); got != 4 {
				t.Errorf("MaxRetries() = %d, want 4", got)
			}
		})
	}
	// The builders return copies: the original is unchanged.
	if base.BaseDelay() != 100*time.Millisecond || base.MaxDelay() != 30*time.Second {
		t.Errorf("builders changed the receiver: base %v, max %v", base.BaseDelay(), base.MaxDelay())
	}
}

func TestExponentialBackoffDelayForDefaults(t *testing.T) {
	b := reflection.NewExponentialBackoff(3)
	ms := time.Millisecond
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{0, 100 * ms},
		{1, 200 * ms},
		{2, 400 * ms},
		{3, 800 * ms},
		{4, 1600 * ms},
		{5, 3200 * ms},
		{6, 6400 * ms},
		{7, 12800 * ms},
		{8, 25600 * ms},
		{9, 30 * time.Second},
		{10, 30 * time.Second},
		{40, 30 * time.Second},
		{62, 30 * time.Second},
		{63, 30 * time.Second},
		{64, 30 * time.Second},
		{1000, 30 * time.Second},
		{math.MaxInt, 30 * time.Second},
		{-1, 100 * ms},
		{math.MinInt, 100 * ms},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("attempt %d", tt.attempt), func(t *testing.T) {
			if got := b.DelayFor(tt.attempt); got != tt.want {
				t.Errorf("DelayFor(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestExponentialBackoffDelayForSaturates(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	tests := []struct {
		name    string
		b       reflection.ExponentialBackoff
		attempt int
		want    time.Duration
	}{
		{"huge cap, attempt 62", reflection.NewExponentialBackoff(1).WithBaseDelay(1).WithMaxDelay(huge), 62, 1 << 62},
		{"huge cap, attempt 63", reflection.NewExponentialBackoff(1).WithBaseDelay(1).WithMaxDelay(huge), 63, huge},
		{"huge cap, attempt 200", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Hour).WithMaxDelay(huge), 200, huge},
		{"huge base and cap", reflection.NewExponentialBackoff(1).WithBaseDelay(huge / 2).WithMaxDelay(huge), 1, huge - 1},
		{"huge base and cap, attempt 2", reflection.NewExponentialBackoff(1).WithBaseDelay(huge / 2).WithMaxDelay(huge), 2, huge},
		{"cap reached exactly", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Second).WithMaxDelay(8 * time.Second), 3, 8 * time.Second},
		{"just under the cap", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Second).WithMaxDelay(9 * time.Second), 3, 8 * time.Second},
		{"cap below base, attempt 0", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Second).WithMaxDelay(time.Millisecond), 0, time.Millisecond},
		{"cap below base, attempt 5", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Second).WithMaxDelay(time.Millisecond), 5, time.Millisecond},
		{"cap equals base", reflection.NewExponentialBackoff(1).WithBaseDelay(time.Second).WithMaxDelay(time.Second), 4, time.Second},
		{"zero base", reflection.NewExponentialBackoff(1).WithBaseDelay(0), 7, 0},
		{"zero cap", reflection.NewExponentialBackoff(1).WithMaxDelay(0), 7, 0},
		{"negative base counts as 0", reflection.NewExponentialBackoff(1).WithBaseDelay(-time.Second), 3, 0},
		{"negative cap counts as 0", reflection.NewExponentialBackoff(1).WithMaxDelay(-time.Second), 3, 0},
		{"zero value", reflection.ExponentialBackoff{}, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.DelayFor(tt.attempt)
			if got != tt.want {
				t.Errorf("DelayFor(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
			if got < 0 {
				t.Errorf("DelayFor(%d) = %v, negative", tt.attempt, got)
			}
		})
	}
}

// TestExponentialBackoffDelayForNeverNegative sweeps attempts and delays
// around the overflow edge.
func TestExponentialBackoffDelayForNeverNegative(t *testing.T) {
	bases := []time.Duration{1, 3, time.Millisecond, time.Hour, math.MaxInt64 / 3, math.MaxInt64}
	caps := []time.Duration{0, 1, time.Second, math.MaxInt64 / 2, math.MaxInt64}
	for _, base := range bases {
		for _, cp := range caps {
			b := reflection.NewExponentialBackoff(1).WithBaseDelay(base).WithMaxDelay(cp)
			prev := time.Duration(0)
			for n := -2; n < 130; n++ {
				got := b.DelayFor(n)
				if got < 0 || got > cp {
					t.Fatalf("base %d cap %d: DelayFor(%d) = %d, want within [0, cap]", base, cp, n, got)
				}
				if got < prev {
					t.Fatalf("base %d cap %d: DelayFor(%d) = %d < DelayFor(%d) = %d, want non-decreasing", base, cp, n, got, n-1, prev)
				}
				prev = got
			}
		}
	}
}

func TestExponentialBackoffDecide(t *testing.T) {
	ctx := context.Background()
	corr := &reflection.Correction{Type: reflection.InputFix, ModifiedInput: []byte(`{}`)}
	tests := []struct {
		name        string
		b           reflection.ExponentialBackoff
		a           reflection.FailureAnalysis
		attempt     int
		maxAttempts int
		want        reflection.RecoveryAction
	}{
		{
			name: "1 not recoverable fails with root cause",
			b:    reflection.NewExponentialBackoff(3),
			a:    reflection.FailureAnalysis{RootCause: "disk on fire", Severity: reflection.SeverityCritical, Correction: corr},
			want: reflection.Fail{Reason: "disk on fire"},
		},
		{
			name:    "1 wins over 2 when out of retries",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{RootCause: "nope"},
			attempt: 10, maxAttempts: 6,
			want: reflection.Fail{Reason: "nope"},
		},
		{
			name:    "2 attempt equals maxRetries",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, RootCause: "timed out"},
			attempt: 3, maxAttempts: 6,
			want: reflection.Fail{Reason: "max retries (3) exceeded"},
		},
		{
			name:    "2 attempt past maxRetries",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 4, maxAttempts: 6,
			want: reflection.Fail{Reason: "max retries (3) exceeded"},
		},
		{
			name:    "2 wins over 3",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, Severity: reflection.SeverityHigh, Correction: corr},
			attempt: 3, maxAttempts: 6,
			want: reflection.Fail{Reason: "max retries (3) exceeded"},
		},
		{
			name:    "2 limit is maxAttempts-1 when smaller",
			b:       reflection.NewExponentialBackoff(10),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 5, maxAttempts: 6,
			want: reflection.Fail{Reason: "max retries (5) exceeded"},
		},
		{
			name:    "2 limit maxAttempts-1 still retries below it",
			b:       reflection.NewExponentialBackoff(10),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 4, maxAttempts: 6,
			want: reflection.Retry{Delay: 1600 * time.Millisecond},
		},
		{
			name:    "2 limit never below 0 with maxAttempts 0",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 0, maxAttempts: 0,
			want: reflection.Fail{Reason: "max retries (0) exceeded"},
		},
		{
			name:    "2 limit never below 0 with negative maxAttempts",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 0, maxAttempts: -5,
			want: reflection.Fail{Reason: "max retries (0) exceeded"},
		},
		{
			name:    "2 maxAttempts 1 allows no retry",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 0, maxAttempts: 1,
			want: reflection.Fail{Reason: "max retries (0) exceeded"},
		},
		{
			name:    "2 zero retries",
			b:       reflection.NewExponentialBackoff(0),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 0, maxAttempts: 6,
			want: reflection.Fail{Reason: "max retries (0) exceeded"},
		},
		{
			name:    "3 high with correction asks the user",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, RootCause: "permission denied", Severity: reflection.SeverityHigh, Correction: corr},
			attempt: 0, maxAttempts: 6,
			want: reflection.AskUser{Prompt: "high-severity failure with correction available: permission denied"},
		},
		{
			name:    "3 critical with correction asks the user",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, RootCause: "rm -rf", Severity: reflection.SeverityCritical, Correction: corr},
			attempt: 2, maxAttempts: 6,
			want: reflection.AskUser{Prompt: "high-severity failure with correction available: rm -rf"},
		},
		{
			name:    "4 high without correction retries",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, Severity: reflection.SeverityHigh},
			attempt: 1, maxAttempts: 6,
			want: reflection.Retry{Delay: 200 * time.Millisecond},
		},
		{
			name:    "4 medium with correction retries",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true, Severity: reflection.SeverityMedium, Correction: corr},
			attempt: 2, maxAttempts: 6,
			want: reflection.Retry{Delay: 400 * time.Millisecond},
		},
		{
			name:    "4 first retry",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 0, maxAttempts: 6,
			want: reflection.Retry{Delay: 100 * time.Millisecond},
		},
		{
			name:    "4 uses the configured delays",
			b:       reflection.NewExponentialBackoff(5).WithBaseDelay(time.Second).WithMaxDelay(3 * time.Second),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: 2, maxAttempts: 6,
			want: reflection.Retry{Delay: 3 * time.Second},
		},
		{
			name:    "4 negative attempt retries at base",
			b:       reflection.NewExponentialBackoff(3),
			a:       reflection.FailureAnalysis{IsRecoverable: true},
			attempt: -1, maxAttempts: 6,
			want: reflection.Retry{Delay: 100 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.Decide(ctx, tt.a, tt.attempt, tt.maxAttempts)
			if got != tt.want {
				t.Errorf("Decide(attempt %d, max %d) = %#v, want %#v", tt.attempt, tt.maxAttempts, got, tt.want)
			}
		})
	}
}

// TestExponentialBackoffDecideFailReasonText pins the exact text the model's
// logs will show.
func TestExponentialBackoffDecideFailReasonText(t *testing.T) {
	got := reflection.NewExponentialBackoff(3).Decide(context.Background(),
		reflection.FailureAnalysis{IsRecoverable: true}, 3, 6)
	if got.String() != "fail: max retries (3) exceeded" {
		t.Errorf("Decide(...).String() = %q, want %q", got.String(), "fail: max retries (3) exceeded")
	}
}

func TestExponentialBackoffIsRecoveryStrategy(t *testing.T) {
	var s reflection.RecoveryStrategy = reflection.NewExponentialBackoff(1)
	got := s.Decide(context.Background(), reflection.FailureAnalysis{IsRecoverable: true}, 0, 6)
	if got != (reflection.Retry{Delay: 100 * time.Millisecond}) {
		t.Errorf("Decide = %#v, want Retry{100ms}", got)
	}
}
