package reflection_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loopctl-go/reflection"
)

func TestNoopReflector(t *testing.T) {
	tests := []struct {
		name string
		f    reflection.Failure
	}{
		{"zero failure", reflection.Failure{}},
		{"typical failure", reflection.Failure{
			Error: "connection refused", Tool: "fetch", Input: json.RawMessage(`{"url":"x"}`),
			Task: "get the page", Attempt: 2, MaxAttempts: 6,
		}},
		{"with schema", reflection.Failure{
			Error: "bad input", Tool: "t", Schema: &reflection.ToolSchema{Name: "t", InputSchema: json.RawMessage(`{}`)},
		}},
		{"multi-line error", reflection.Failure{Error: "line one\nline two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflection.NoopReflector{}.Analyze(context.Background(), tt.f)
			if err != nil {
				t.Fatalf("Analyze error = %v, want nil", err)
			}
			want := reflection.FailureAnalysis{
				IsRecoverable: false,
				RootCause:     tt.f.Error,
				Severity:      reflection.SeverityMedium,
				Correction:    nil,
				Context:       "",
			}
			if got != want {
				t.Errorf("Analyze = %+v, want %+v", got, want)
			}
		})
	}
}

func TestNoopReflectorCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var r reflection.Reflector = reflection.NoopReflector{}
	got, err := r.Analyze(ctx, reflection.Failure{Error: "e"})
	if err != nil {
		t.Fatalf("Analyze error = %v, want nil", err)
	}
	if got.RootCause != "e" || got.IsRecoverable || got.Severity != reflection.SeverityMedium {
		t.Errorf("Analyze = %+v, want the fixed unrecoverable analysis", got)
	}
}
