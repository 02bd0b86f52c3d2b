package recovery

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
)

// paced is the strategy of every configuration that retries: its inner
// backoff decides, and paced only sets a Retry's delay. The delay is the
// inner one (or AWS's, with aws: see budgetModel), raised to the hint the
// machine would wait for anyway, and stretched by less than N nanoseconds
// so that the wait ends on an instant of the Run's agent (see player).
// With one agent, and without aws, a Retry is the inner backoff's.
type paced struct {
	inner reflection.RecoveryStrategy
	aws   *lockedSource // nil: the inner backoff's delays
}

func (s *paced) Decide(ctx context.Context, a reflection.FailureAnalysis, attempt, maxAttempts int) reflection.RecoveryAction {
	act := s.inner.Decide(ctx, a, attempt, maxAttempts)
	r, ok := act.(reflection.Retry)
	if !ok {
		return act
	}
	st := stateFrom(ctx)
	wait := max(r.Delay, st.hint, 0) // what the machine waits
	if s.aws != nil {
		// The machine sees no hint (hideHints): this delay is the wait.
		r.Delay = awsDelay(s.aws, st, attempt)
		wait = r.Delay
	}
	p := st.p
	if p == nil || p.sc.agents == 1 {
		return r
	}
	d := wait
	now := time.Now()
	return reflection.Retry{Delay: p.stagger(now.Add(d), st.agent).Sub(now)}
}
