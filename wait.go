package reflection

import (
	"context"
	"time"
)

// wait sleeps delay (negative counts as 0) unless ctx ends first. It refuses
// at once a wait that would end at or after ctx's deadline: nothing could
// run after it.
func (d *Driver) wait(ctx context.Context, attempt int, delay time.Duration) error {
	delay = max(delay, 0)
	if obs := d.observer; obs != nil && obs.Waiting != nil {
		obs.Waiting(ctx, attempt, delay)
	}
	if delay == 0 {
		return nil
	}
	if ctx.Err() != nil {
		// Already cancelled: report that, not the deadline that a wait
		// would also have passed.
		return stopError(ctx)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := WaitPastDeadline(delay, time.Now(), deadline); err != nil {
			return err
		}
	}
	t := time.NewTimer(delay)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return stopError(ctx)
	}
}

// WaitPastDeadline refuses a wait that could not end before the deadline:
// it returns a *WaitPastDeadlineError when a wait of delay starting at now
// would end at or after deadline, and nil otherwise (a zero deadline means
// none). Nothing could run after such a wait, so a runtime ends the call at
// once instead of sleeping until the deadline ends it.
func WaitPastDeadline(delay time.Duration, now, deadline time.Time) error {
	if deadline.IsZero() || deadline.After(now.Add(max(delay, 0))) {
		return nil
	}
	return &WaitPastDeadlineError{Delay: delay}
}
