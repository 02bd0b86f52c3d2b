package reflectiontest

import (
	"context"
	"fmt"
	"sync"

	"github.com/loopctl-go/reflection"
)

// Reflector is a reflection.Reflector that answers from a script, in order,
// and records every Failure it is asked about. Past the end of its script it
// answers an error wrapping reflection.ErrInternal.
type Reflector struct {
	mu       sync.Mutex
	answers  []reflection.FailureAnalysis
	failures []reflection.Failure
}

// NewReflector returns a Reflector that gives answers in order.
func NewReflector(answers ...reflection.FailureAnalysis) *Reflector {
	return &Reflector{answers: append([]reflection.FailureAnalysis(nil), answers...)}
}

// Analyze records f and returns the next scripted answer.
func (r *Reflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.failures)
	r.failures = append(r.failures, f)
	if n >= len(r.answers) {
		return reflection.FailureAnalysis{}, fmt.Errorf("reflectiontest: reflector asked %d times, scripted for %d: %w",
			n+1, len(r.answers), reflection.ErrInternal)
	}
	return r.answers[n], nil
}

// Failures returns every Failure the Reflector was asked about, in order.
func (r *Reflector) Failures() []reflection.Failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reflection.Failure(nil), r.failures...)
}
