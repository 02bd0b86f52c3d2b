package reflectiontest

import (
	"context"
	"strconv"
	"sync"

	"github.com/loopctl-go/reflection"
)

// Strategy is a reflection.RecoveryStrategy that answers from a script, in
// order, and records what it was asked. Past the end of its script it answers
// Fail.
type Strategy struct {
	mu      sync.Mutex
	actions []reflection.RecoveryAction
	asked   []Decision
}

// Decision is one question a Strategy was asked.
type Decision struct {
	Analysis    reflection.FailureAnalysis
	Attempt     int
	MaxAttempts int
}

// NewStrategy returns a Strategy that gives actions in order.
func NewStrategy(actions ...reflection.RecoveryAction) *Strategy {
	return &Strategy{actions: append([]reflection.RecoveryAction(nil), actions...)}
}

// Decide records the question and returns the next scripted action.
func (s *Strategy) Decide(_ context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.asked)
	s.asked = append(s.asked, Decision{Analysis: a, Attempt: attempt, MaxAttempts: maxAttempts})
	if n >= len(s.actions) {
		return reflection.Fail{Reason: "reflectiontest: strategy asked " + strconv.Itoa(n+1) +
			" times, scripted for " + strconv.Itoa(len(s.actions))}
	}
	return s.actions[n]
}

// Decisions returns every question the Strategy was asked, in order.
func (s *Strategy) Decisions() []Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Decision(nil), s.asked...)
}
