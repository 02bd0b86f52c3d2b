package reflectiontest

import (
	"context"
	"fmt"
	"sync"

	"github.com/loopctl-go/reflection"
)

// Reflector is a reflection.Reflector that answers from a script, in order,
// and records every Failure it is asked about. Past the end of its script it
// answers an error wrapping reflection.ErrInternal, unless RepeatLast made
// it give its last answer again.
type Reflector struct {
	mu       sync.Mutex
	answers  []reflection.FailureAnalysis
	repeat   bool
	failures []reflection.Failure
}

// NewReflector returns a Reflector that gives answers in order.
func NewReflector(answers ...reflection.FailureAnalysis) *Reflector {
	return &Reflector{answers: append([]reflection.FailureAnalysis(nil), answers...)}
}

// RepeatLast makes r give its last scripted answer again, as often as it is
// asked, once the others are used up, and returns r:
//
//	r := reflectiontest.NewReflector(toolChange, transient).RepeatLast()
//
// A Reflector with an empty script has nothing to repeat: it still answers
// an error wrapping reflection.ErrInternal.
func (r *Reflector) RepeatLast() *Reflector {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.repeat = true
	return r
}

// Analyze records f and returns the next scripted answer.
func (r *Reflector) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.failures)
	r.failures = append(r.failures, f)
	switch {
	case n < len(r.answers):
		return r.answers[n], nil
	case r.repeat && len(r.answers) > 0:
		return r.answers[len(r.answers)-1], nil
	}
	return reflection.FailureAnalysis{}, fmt.Errorf("reflectiontest: reflector asked %d times, scripted for %d: %w",
		n+1, len(r.answers), reflection.ErrInternal)
}

// Failures returns every Failure the Reflector was asked about, in order.
func (r *Reflector) Failures() []reflection.Failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reflection.Failure(nil), r.failures...)
}
