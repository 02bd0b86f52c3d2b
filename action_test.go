package reflection_test

import (
	"testing"
	"time"

	"github.com/loopctl-go/reflection"
)

func TestRecoveryActionString(t *testing.T) {
	tests := []struct {
		name   string
		action reflection.RecoveryAction
		want   string
	}{
		{"retry", reflection.Retry{Delay: 200 * time.Millisecond}, "retry after 200ms"},
		{"retry zero", reflection.Retry{}, "retry after 0s"},
		{"retry long", reflection.Retry{Delay: 90 * time.Second}, "retry after 1m30s"},
		{"skip", reflection.Skip{Reason: "not needed"}, "skip: not needed"},
		{"skip empty", reflection.Skip{}, "skip: "},
		{"ask user", reflection.AskUser{Prompt: "may I delete it?"}, "ask user: may I delete it?"},
		{"fail", reflection.Fail{Reason: "max retries (3) exceeded"}, "fail: max retries (3) exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.action.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRecoveryActionEquality(t *testing.T) {
	tests := []struct {
		name string
		a, b reflection.RecoveryAction
		want bool
	}{
		{"same retry", reflection.Retry{Delay: time.Second}, reflection.Retry{Delay: time.Second}, true},
		{"retry delays differ", reflection.Retry{Delay: time.Second}, reflection.Retry{Delay: 2 * time.Second}, false},
		{"same skip", reflection.Skip{Reason: "r"}, reflection.Skip{Reason: "r"}, true},
		{"skip reasons differ", reflection.Skip{Reason: "r"}, reflection.Skip{Reason: "s"}, false},
		{"same ask user", reflection.AskUser{Prompt: "p"}, reflection.AskUser{Prompt: "p"}, true},
		{"same fail", reflection.Fail{Reason: "r"}, reflection.Fail{Reason: "r"}, true},
		{"skip and fail with one reason", reflection.Skip{Reason: "r"}, reflection.Fail{Reason: "r"}, false},
		{"ask user and fail with one text", reflection.AskUser{Prompt: "r"}, reflection.Fail{Reason: "r"}, false},
		{"zero retry and zero fail", reflection.Retry{}, reflection.Fail{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a == tt.b; got != tt.want {
				t.Errorf("%#v == %#v is %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestRecoveryActionCompareWithValue checks the form the package promises:
// an interface value compares equal to a plain variant value.
func TestRecoveryActionCompareWithValue(t *testing.T) {
	var a reflection.RecoveryAction = reflection.Retry{Delay: 3 * time.Second}
	if a != (reflection.Retry{Delay: 3 * time.Second}) {
		t.Errorf("RecoveryAction(Retry{3s}) == Retry{3s} is false, want true")
	}
	if a == (reflection.Retry{Delay: time.Second}) {
		t.Errorf("RecoveryAction(Retry{3s}) == Retry{1s} is true, want false")
	}
	// A map keyed by actions works because every variant is comparable.
	seen := map[reflection.RecoveryAction]int{}
	seen[reflection.Fail{Reason: "x"}]++
	seen[reflection.Fail{Reason: "x"}]++
	seen[reflection.Skip{Reason: "x"}]++
	if got := seen[reflection.Fail{Reason: "x"}]; got != 2 {
		t.Errorf("map count for Fail{x} = %d, want 2", got)
	}
	if got := len(seen); got != 2 {
		t.Errorf("len(map) = %d, want 2", got)
	}
}
