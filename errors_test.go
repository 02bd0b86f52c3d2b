package reflection_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loopctl-go/reflection"
)

func TestToolRecoveryExhaustedError(t *testing.T) {
	err := &reflection.ToolRecoveryExhaustedError{Tool: "read_file", Attempts: 6}
	if got, want := err.Error(), `reflection: tool "read_file" still failing after 6 attempts`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	tests := []struct {
		name   string
		target error
		want   bool
	}{
		{"exhausted", reflection.ErrToolRecoveryExhausted, true},
		{"internal", reflection.ErrInternal, false},
		{"skipped", reflection.ErrSkipped, false},
		{"nil dispatch", reflection.ErrNilDispatch, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(err, tt.target); got != tt.want {
				t.Errorf("errors.Is(err, %v) = %v, want %v", tt.target, got, tt.want)
			}
			wrapped := fmt.Errorf("agent: %w", err)
			if got := errors.Is(wrapped, tt.target); got != tt.want {
				t.Errorf("errors.Is(wrapped, %v) = %v, want %v", tt.target, got, tt.want)
			}
		})
	}
	var target *reflection.ToolRecoveryExhaustedError
	if !errors.As(fmt.Errorf("agent: %w", err), &target) || target.Tool != "read_file" || target.Attempts != 6 {
		t.Errorf("errors.As = %+v, want the original error", target)
	}
}

func TestSentinelErrorsDistinct(t *testing.T) {
	errs := []error{
		reflection.ErrToolRecoveryExhausted, reflection.ErrInternal, reflection.ErrSkipped,
		reflection.ErrNilDispatch, reflection.ErrPanicked,
	}
	for i, a := range errs {
		for j, b := range errs {
			if (i == j) != errors.Is(a, b) {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", a, b, !(i == j), i == j)
			}
		}
	}
}
